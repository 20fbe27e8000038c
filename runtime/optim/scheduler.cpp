#include "runtime/optim/scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "runtime/core/did_you_mean.h"
#include "runtime/core/errors.h"

namespace runner::optim {

using nlohmann::json;

namespace {

constexpr double kPi = 3.14159265358979323846;

class LambdaScheduler : public Scheduler {
 public:
  explicit LambdaScheduler(std::function<double(int64_t)> fn) : fn_(std::move(fn)) {}
  double factor(int64_t s) const override { return fn_(s); }

 private:
  std::function<double(int64_t)> fn_;
};

// Reads lr_scheduler_kwargs with type checks; unknown keys are reported by finish().
class Kwargs {
 public:
  Kwargs(const json& j, std::string type) : j_(j.is_null() ? json::object() : j), type_(std::move(type)) {}
  bool has(const char* key) {
    used_.insert(key);
    return j_.contains(key) && !j_[key].is_null();
  }
  double number(const char* key, double def) {
    if (!has(key)) return def;
    if (!j_[key].is_number()) fail(key, "expected a number, got " + j_[key].dump());
    return j_[key].get<double>();
  }
  int64_t integer(const char* key, int64_t def) {
    if (!has(key)) return def;
    const json& v = j_[key];
    if (!v.is_number() || v.get<double>() != std::floor(v.get<double>())) fail(key, "expected an integer, got " + v.dump());
    return static_cast<int64_t>(v.get<double>());
  }
  bool flag(const char* key, bool def) {
    if (!has(key)) return def;
    if (!j_[key].is_boolean()) fail(key, "expected true or false, got " + j_[key].dump());
    return j_[key].get<bool>();
  }
  std::string text(const char* key, const std::string& def) {
    if (!has(key)) return def;
    if (!j_[key].is_string()) fail(key, "expected a string, got " + j_[key].dump());
    return j_[key].get<std::string>();
  }
  [[noreturn]] void fail(const std::string& key, const std::string& msg) {
    throw ArgumentError("args.lr_scheduler_kwargs." + key + ": " + msg);
  }
  void finish() {
    std::vector<std::string> known(used_.begin(), used_.end());
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!used_.count(it.key()))
        throw ArgumentError("args.lr_scheduler_kwargs." + it.key() + ": not an option of " + type_ +
                            (known.empty() ? " (it takes none)" : did_you_mean(it.key(), known)));
  }

 private:
  json j_;
  std::string type_;
  std::set<std::string> used_;
};

double warmup(int64_t s, int64_t w) { return static_cast<double>(s) / static_cast<double>(std::max<int64_t>(1, w)); }
double progress(int64_t s, int64_t w, int64_t t) {
  return static_cast<double>(s - w) / static_cast<double>(std::max<int64_t>(1, t - w));
}

// JSON has no inf/nan: such values travel as strings.
json encode_double(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}
double decode_double(const json& j, const char* key) {
  if (j.contains(key)) {
    const json& v = j[key];
    if (v.is_number()) return v.get<double>();
    if (v == "inf") return std::numeric_limits<double>::infinity();
    if (v == "-inf") return -std::numeric_limits<double>::infinity();
    if (v == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  throw CheckpointError(std::string("scheduler state: '") + key + "' is missing or not a number");
}
int64_t decode_int(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number_integer())
    throw CheckpointError(std::string("scheduler state: '") + key + "' is missing or not an integer");
  return j[key].get<int64_t>();
}

}  // namespace

json Scheduler::state() const { return {{"steps_taken", step_}}; }

void Scheduler::load_state(const json& state) {
  if (!state.is_object()) throw CheckpointError("scheduler state: expected an object, got " + state.dump());
  step_ = decode_int(state, "steps_taken");
}

PlateauScheduler::PlateauScheduler(PlateauOptions options, double base_lr) : o_(std::move(options)), base_lr_(base_lr) {
  const std::string where = "args.lr_scheduler_kwargs.";
  if (o_.mode != "min" && o_.mode != "max")
    throw ArgumentError(where + "mode: unknown \"" + o_.mode + "\", expected 'min' or 'max'");
  if (o_.threshold_mode != "rel" && o_.threshold_mode != "abs")
    throw ArgumentError(where + "threshold_mode: unknown \"" + o_.threshold_mode + "\", expected 'rel' or 'abs'");
  if (!(o_.factor < 1.0)) throw ArgumentError(where + "factor: must be < 1.0, got " + json(o_.factor).dump());
  if (o_.patience < 0) throw ArgumentError(where + "patience: must be >= 0");
  if (o_.cooldown < 0) throw ArgumentError(where + "cooldown: must be >= 0");
  best_ = (o_.mode == "min" ? 1.0 : -1.0) * std::numeric_limits<double>::infinity();
}

bool PlateauScheduler::is_better(double a) const {
  const double t = o_.threshold;
  if (o_.mode == "min") return o_.threshold_mode == "rel" ? a < best_ * (1.0 - t) : a < best_ - t;
  return o_.threshold_mode == "rel" ? a > best_ * (1.0 + t) : a > best_ + t;
}

void PlateauScheduler::on_metric(double value) {
  ++last_epoch_;
  if (is_better(value)) {
    best_ = value;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {  // bad evaluations during cooldown do not count
    --cooldown_counter_;
    num_bad_epochs_ = 0;
  }
  if (num_bad_epochs_ > o_.patience) {
    // torch compares learning rates, not multipliers: min_lr and eps are absolute.
    const double old_lr = base_lr_ * multiplier_;
    const double new_lr = std::max(old_lr * o_.factor, o_.min_lr);
    if (old_lr - new_lr > o_.eps && base_lr_ != 0) multiplier_ = new_lr / base_lr_;
    cooldown_counter_ = o_.cooldown;
    num_bad_epochs_ = 0;
  }
}

json PlateauScheduler::state() const {
  json j = Scheduler::state();
  j["best"] = encode_double(best_);
  j["num_bad_epochs"] = num_bad_epochs_;
  j["cooldown_counter"] = cooldown_counter_;
  j["last_epoch"] = last_epoch_;
  j["multiplier"] = multiplier_;
  return j;
}

void PlateauScheduler::load_state(const json& state) {
  Scheduler::load_state(state);
  best_ = decode_double(state, "best");
  num_bad_epochs_ = decode_int(state, "num_bad_epochs");
  cooldown_counter_ = decode_int(state, "cooldown_counter");
  last_epoch_ = decode_int(state, "last_epoch");
  multiplier_ = decode_double(state, "multiplier");
}

std::unique_ptr<PlateauScheduler> make_plateau_scheduler(const json& kwargs, double base_lr) {
  Kwargs kw(kwargs, "reduce_lr_on_plateau");
  PlateauOptions o;
  o.mode = kw.text("mode", o.mode);
  o.factor = kw.number("factor", o.factor);
  o.patience = kw.integer("patience", o.patience);
  o.threshold = kw.number("threshold", o.threshold);
  o.threshold_mode = kw.text("threshold_mode", o.threshold_mode);
  o.cooldown = kw.integer("cooldown", o.cooldown);
  o.min_lr = kw.number("min_lr", o.min_lr);
  o.eps = kw.number("eps", o.eps);
  kw.flag("verbose", false);  // torch 1.13 takes it; it only prints
  kw.finish();
  return std::make_unique<PlateauScheduler>(std::move(o), base_lr);
}

std::unique_ptr<Scheduler> make_lambda_scheduler(std::function<double(int64_t)> fn) {
  return std::make_unique<LambdaScheduler>(std::move(fn));
}

std::unique_ptr<Scheduler> make_scheduler(const std::string& type, int64_t W, int64_t T, const json& kwargs_json,
                                          double base_lr) {
  // HF's get_scheduler returns ReduceLROnPlateau before looking at warmup.
  if (type == "reduce_lr_on_plateau") return make_plateau_scheduler(kwargs_json, base_lr);
  Kwargs kw(kwargs_json, type);
  std::function<double(int64_t)> fn;
  if (type == "constant") {
    fn = [](int64_t) { return 1.0; };
  } else if (type == "constant_with_warmup") {
    fn = [W](int64_t s) { return s < W ? warmup(s, W) : 1.0; };
  } else if (type == "linear") {
    fn = [W, T](int64_t s) {
      if (s < W) return warmup(s, W);
      return std::max(0.0, static_cast<double>(T - s) / static_cast<double>(std::max<int64_t>(1, T - W)));
    };
  } else if (type == "cosine") {
    const double cycles = kw.number("num_cycles", 0.5);
    fn = [W, T, cycles](int64_t s) {
      if (s < W) return warmup(s, W);
      return std::max(0.0, 0.5 * (1.0 + std::cos(kPi * 2.0 * cycles * progress(s, W, T))));
    };
  } else if (type == "cosine_with_restarts") {
    const double cycles = kw.number("num_cycles", 1.0);
    fn = [W, T, cycles](int64_t s) {
      if (s < W) return warmup(s, W);
      const double p = progress(s, W, T);
      if (p >= 1.0) return 0.0;
      return std::max(0.0, 0.5 * (1.0 + std::cos(kPi * std::fmod(cycles * p, 1.0))));
    };
  } else if (type == "polynomial") {
    const double lr_end = kw.number("lr_end", 1e-7), power = kw.number("power", 1.0);
    if (!(base_lr > lr_end))
      kw.fail("lr_end", "lr_end (" + json(lr_end).dump() + ") must be smaller than initial lr (" + json(base_lr).dump() + ")");
    fn = [W, T, lr_end, power, base_lr](int64_t s) {
      if (s < W) return warmup(s, W);
      if (s > T) return lr_end / base_lr;
      const double remaining = 1.0 - static_cast<double>(s - W) / static_cast<double>(T - W);
      return ((base_lr - lr_end) * std::pow(remaining, power) + lr_end) / base_lr;
    };
  } else if (type == "inverse_sqrt") {
    const double timescale = kw.number("timescale", W > 0 ? static_cast<double>(W) : 10000.0);
    fn = [W, timescale](int64_t s) {
      if (s < W) return warmup(s, W);
      const double shift = timescale - static_cast<double>(W);
      return 1.0 / std::sqrt((static_cast<double>(s) + shift) / timescale);
    };
  } else if (type == "cosine_with_min_lr" || type == "cosine_warmup_with_min_lr") {
    const double cycles = kw.number("num_cycles", 0.5);
    const bool has_min = kw.has("min_lr"), has_rate = kw.has("min_lr_rate");
    if (has_min && has_rate) kw.fail("min_lr", "only one of min_lr or min_lr_rate should be set");
    if (!has_min && !has_rate) kw.fail("min_lr", "one of min_lr or min_lr_rate should be set");
    const double rate = has_min ? kw.number("min_lr", 0) / base_lr : kw.number("min_lr_rate", 0);
    if (type == "cosine_with_min_lr") {
      fn = [W, T, cycles, rate](int64_t s) {
        if (s < W) return warmup(s, W);
        const double c = 0.5 * (1.0 + std::cos(kPi * 2.0 * cycles * progress(s, W, T)));
        return std::max(0.0, c * (1.0 - rate) + rate);
      };
    } else {
      const bool has_warmup_rate = kw.has("warmup_lr_rate");
      const double warmup_rate = kw.number("warmup_lr_rate", 0.0);
      fn = [W, T, cycles, rate, has_warmup_rate, warmup_rate](int64_t s) {
        const double sd = static_cast<double>(s), wd = static_cast<double>(W);
        if (s < W) {
          if (!has_warmup_rate) return (sd + 1.0) / std::max(1.0, wd);
          return warmup_rate + (1.0 - warmup_rate) * sd / std::max(1.0, wd - 1.0);
        }
        const double p = (sd - wd + 1.0) / std::max(1.0, static_cast<double>(T) - wd);
        const double c = 0.5 * (1.0 + std::cos(kPi * cycles * 2.0 * p));
        return std::max(0.0, c * (1.0 - rate) + rate);
      };
    }
  } else if (type == "warmup_stable_decay") {
    if (!kw.has("num_decay_steps")) kw.fail("num_decay_steps", "warmup_stable_decay requires num_decay_steps");
    const auto decay = static_cast<int64_t>(kw.number("num_decay_steps", 0));
    const auto stable = static_cast<int64_t>(kw.number("num_stable_steps", static_cast<double>(T - W - decay)));
    const std::string wtype = kw.text("warmup_type", "linear"), dtype = kw.text("decay_type", "cosine");
    const double min_ratio = kw.number("min_lr_ratio", 0.0), cycles = kw.number("num_cycles", 0.5);
    for (const auto& [key, v] : {std::pair<const char*, std::string>{"warmup_type", wtype}, {"decay_type", dtype}})
      if (v != "linear" && v != "cosine" && v != "1-sqrt")
        kw.fail(key, "unknown type \"" + v + "\", expected 'linear', 'cosine' or '1-sqrt'");
    fn = [=](int64_t s) {
      if (s < W) {
        const double p = warmup(s, W);
        double f = wtype == "linear" ? p : wtype == "cosine" ? 0.5 * (1.0 - std::cos(kPi * p)) : 1.0 - std::sqrt(1.0 - p);
        return std::max(0.0, f * (1.0 - min_ratio) + min_ratio);
      }
      if (s < W + stable) return 1.0;
      if (s < W + stable + decay) {
        const double p = static_cast<double>(s - W - stable) / static_cast<double>(std::max<int64_t>(1, decay));
        double f = dtype == "linear" ? 1.0 - p
                   : dtype == "cosine" ? 0.5 * (1.0 + std::cos(kPi * cycles * 2.0 * p))
                                       : 1.0 - std::sqrt(p);
        return std::max(0.0, f * (1.0 - min_ratio) + min_ratio);
      }
      return min_ratio;
    };
  } else {
    throw ArgumentError("args.lr_scheduler_type: unknown \"" + type + "\"");
  }
  kw.finish();
  return make_lambda_scheduler(std::move(fn));
}

}  // namespace runner::optim
