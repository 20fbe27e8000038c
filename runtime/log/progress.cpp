#include "runtime/log/progress.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "runtime/log/log.h"

namespace runner::log {

namespace {
// A value as Python prints it in a dict.
std::string python_repr(const nlohmann::json& v) {
  if (v.is_number()) return format_number(v.get<double>());
  if (v.is_string()) return "'" + v.get<std::string>() + "'";
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  return v.dump();
}

}  // namespace

std::string format_logs(const nlohmann::json& logs) {
  // HF's key order: loss, grad_norm, learning_rate first, epoch last, the rest between.
  static const char* const head[] = {"loss", "grad_norm", "learning_rate"};
  std::vector<std::string> keys;
  for (const char* k : head)
    if (logs.contains(k)) keys.emplace_back(k);
  for (auto it = logs.begin(); it != logs.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end() && it.key() != "epoch" && it.key() != "total_flos")
      keys.push_back(it.key());
  if (logs.contains("epoch")) keys.emplace_back("epoch");
  std::string line = "{";
  for (size_t i = 0; i < keys.size(); ++i) line += (i ? ", '" : "'") + keys[i] + "': " + python_repr(logs[keys[i]]);
  return line + "}";
}


using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<long long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%02lld:%02lld", s / 60, s % 60);
  return buf;
}

namespace {

std::string rate_text(double per_second) {
  char buf[32];
  if (per_second >= 1 || per_second <= 0) std::snprintf(buf, sizeof buf, "%.2f it/s", per_second);
  else std::snprintf(buf, sizeof buf, "%.2f s/it", 1 / per_second);
  return buf;
}

// Done, total, elapsed seconds → "[elapsed<eta, rate]" (the ETA from this session's pace).
std::string timing(int64_t done, int64_t total, double secs) {
  if (done < 2 || secs <= 0) return "[" + format_duration(secs) + "<?, ? it/s";  // no pace yet
  const double rate = static_cast<double>(done) / secs;
  const double eta = rate > 0 ? static_cast<double>(total - done) / rate : NAN;
  return "[" + format_duration(secs) + "<" + format_duration(eta) + ", " + rate_text(rate);
}

std::string bar(double frac, int width) {
  frac = std::clamp(frac, 0.0, 1.0);
  const int filled = static_cast<int>(frac * width);
  return std::string(filled, '#') + std::string(width - filled, ' ');
}

class Progress : public Callback {
 public:
  Progress(bool terminal, bool plain_lines, std::FILE* out) : terminal_(terminal), plain_lines_(plain_lines), out_(out) {}
  std::string name() const override { return terminal_ ? "ProgressCallback" : "PrinterCallback"; }

  void on_event(Event e, const TrainingArguments&, const TrainerState& state, TrainerControl&, const json& payload) override {
    // HF: the bar (ProgressCallback; runner's plain progress lines stand in for it off a
    // terminal) belongs to the world's first process only; PrinterCallback (disable_tqdm =
    // true: log lines only) prints on every node's first process. Other nodes' first
    // processes repeat the info-level log lines (log_on_each_node), never the progress.
    if (!(printer_only() ? state.is_local_process_zero : state.is_world_process_zero)) return;
    switch (e) {
      case Event::kTrainBegin:
        start_ = Clock::now();
        start_step_ = state.global_step;
        next_tenth_ = state.max_steps > 0 ? state.global_step * 10 / state.max_steps + 1 : 11;
        training_ = true;
        break;
      case Event::kStepEnd: step_end(state); break;
      case Event::kLog:
        if (payload.contains("loss") && payload["loss"].is_number()) loss_ = payload["loss"].get<double>();
        clear();
        log::info(format_logs(payload));
        redraw(state);
        break;
      case Event::kPredictionStep: prediction_step(payload); break;
      case Event::kEvaluate:
      case Event::kPredict:
        eval_started_ = false;
        clear();
        redraw(state);
        break;
      case Event::kTrainEnd:
        clear();
        training_ = false;
        break;
      default: break;
    }
  }

 private:
  bool printer_only() const { return !terminal_ && !plain_lines_; }
  double seconds_since(Clock::time_point t) const { return std::chrono::duration<double>(Clock::now() - t).count(); }
  std::string loss_text() const {
    return std::isnan(loss_) ? "" : ", loss " + log::format_number(std::round(loss_ * 1e4) / 1e4);
  }

  void step_end(const TrainerState& s) {
    const int64_t done = s.global_step - start_step_;
    if (!terminal_) {
      // One plain line per tenth of the run, whatever the pace: a cluster log stays short.
      if (!plain_lines_ || s.max_steps <= 0 || s.global_step * 10 < next_tenth_ * s.max_steps) return;
      next_tenth_ = s.global_step * 10 / s.max_steps + 1;
      const int64_t left = s.max_steps - s.global_step;
      const double secs = seconds_since(start_);
      const double rate = secs > 0 ? static_cast<double>(done) / secs : 0.0;
      log::info("step " + std::to_string(s.global_step) + "/" + std::to_string(s.max_steps) + " (" +
                std::to_string(s.global_step * 100 / s.max_steps) + "%), " + rate_text(rate) + ", elapsed " + format_duration(secs) +
                ", ETA " + format_duration(rate > 0 ? static_cast<double>(left) / rate : NAN) + loss_text());
      return;
    }
    const auto now = Clock::now();
    if (drawn_ && s.global_step < s.max_steps && now - last_draw_ < std::chrono::milliseconds(100)) return;
    draw_train(s);
  }

  void prediction_step(const json& p) {
    if (!terminal_ || !p.contains("num_batches")) return;
    const int64_t b = p.value("batch", int64_t{0}), n = p.value("num_batches", int64_t{0});
    if (!eval_started_) {
      eval_started_ = true;
      eval_start_ = Clock::now();
    }
    const auto now = Clock::now();
    if (drawn_ && b < n && now - last_draw_ < std::chrono::milliseconds(100)) return;
    const double frac = n > 0 ? static_cast<double>(b) / static_cast<double>(n) : 0.0;
    std::fprintf(out_, "\r\033[K%s %3d%%|%s| %lld/%lld %s]", p.value("split", std::string("eval")).c_str(), static_cast<int>(frac * 100),
                 bar(frac, 20).c_str(), static_cast<long long>(b), static_cast<long long>(n),
                 timing(b, n, seconds_since(eval_start_)).c_str());
    std::fflush(out_);
    drawn_ = true;
    last_draw_ = now;
  }

  void draw_train(const TrainerState& s) {
    const double frac = s.max_steps > 0 ? static_cast<double>(s.global_step) / static_cast<double>(s.max_steps) : 0.0;
    std::fprintf(out_, "\r\033[K%3d%%|%s| %lld/%lld %s%s]", static_cast<int>(frac * 100), bar(frac, 30).c_str(),
                 static_cast<long long>(s.global_step), static_cast<long long>(s.max_steps),
                 timing(s.global_step - start_step_, s.max_steps - start_step_, seconds_since(start_)).c_str(), loss_text().c_str());
    std::fflush(out_);
    drawn_ = true;
    last_draw_ = Clock::now();
  }
  void redraw(const TrainerState& s) {
    if (terminal_ && training_) draw_train(s);
  }
  void clear() {
    if (!terminal_ || !drawn_) return;
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
    drawn_ = false;
  }

  bool terminal_, plain_lines_;
  std::FILE* out_;
  Clock::time_point start_, last_draw_, eval_start_;
  int64_t start_step_ = 0, next_tenth_ = 1;
  double loss_ = NAN;
  bool drawn_ = false, training_ = false, eval_started_ = false;
};

}  // namespace

std::shared_ptr<Callback> make_progress_callback(bool terminal, bool plain_progress_lines, std::FILE* out) {
  return std::make_shared<Progress>(terminal, plain_progress_lines, out);
}

}  // namespace runner::log
