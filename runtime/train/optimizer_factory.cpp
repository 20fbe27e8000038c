#include "runtime/train/optimizer_factory.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <set>
#include <sstream>

#include "runtime/core/did_you_mean.h"
#include "runtime/core/errors.h"
#include "runtime/core/regex.h"
#include "runtime/train/param_groups.h"

namespace runner::train {

using nlohmann::json;

namespace {

// As the user wrote it: nlohmann dumps nan and inf as null.
std::string text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

// "k=v,k2=v2" → JSON (numbers and booleans typed; HF passes strings and lets each
// optimizer parse them).
json parse_optim_args(const std::optional<std::string>& text) {
  json out = json::object();
  if (!text || text->empty()) return out;
  std::stringstream ss(*text);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw ArgumentError("args.optim_args: expected \"key=value\", got \"" + item + "\"");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (out.contains(key)) throw ArgumentError("args.optim_args: '" + key + "' is given twice");
    char* end = nullptr;
    const double num = std::strtod(value.c_str(), &end);
    if (value == "true" || value == "True") out[key] = true;
    else if (value == "false" || value == "False") out[key] = false;
    else if (!value.empty() && *end == '\0') out[key] = num;
    else out[key] = value;
  }
  return out;
}

// Typed reads from the options object; anything never read is an error naming the key.
class OptionReader {
 public:
  OptionReader(json o, std::string optim, std::string where) : o_(std::move(o)), optim_(std::move(optim)), where_(std::move(where)) {}
  // A finite number in float32's range (the kernels compute in float), at least `min`
  // where torch's optimizers refuse less (their "Invalid ... value").
  double number(const char* k, double def, double min = -std::numeric_limits<double>::infinity()) {
    used_.insert(k);
    if (!o_.contains(k)) return def;
    if (!o_[k].is_number()) fail(k, "must be a number");
    const double v = o_[k].get<double>();
    if (!std::isfinite(v) || std::abs(v) > std::numeric_limits<float>::max()) fail(k, "must be a finite number, got " + text(v));
    if (v < min) fail(k, "must be >= " + text(min) + ", got " + text(v));
    return v;
  }
  bool boolean(const char* k, bool def) {
    used_.insert(k);
    if (!o_.contains(k)) return def;
    if (!o_[k].is_boolean()) fail(k, "must be true or false");
    return o_[k].get<bool>();
  }
  bool has(const char* k) {
    used_.insert(k);
    return o_.contains(k) && !o_[k].is_null();
  }
  std::vector<double> pair(const char* k, std::vector<double> def) {
    used_.insert(k);
    if (!o_.contains(k)) return def;
    if (!o_[k].is_array() || o_[k].size() != 2 || !o_[k][0].is_number() || !o_[k][1].is_number()) fail(k, "must be a pair of numbers");
    for (const auto& v : o_[k])
      if (!(v.get<double>() >= 0 && v.get<double>() < 1)) fail(k, "each must be in [0, 1), got " + o_[k].dump());
    return {o_[k][0].get<double>(), o_[k][1].get<double>()};
  }
  void finish() {
    std::vector<std::string> known(used_.begin(), used_.end());
    for (auto it = o_.begin(); it != o_.end(); ++it)
      if (!used_.count(it.key()))
        throw ArgumentError(where_ + ": " + optim_ + " has no option '" + it.key() + "'" + (known.empty() ? "" : did_you_mean(it.key(), known)));
  }
  [[noreturn]] void fail(const std::string& k, const std::string& msg) { throw ArgumentError(where_ + "." + k + ": " + msg); }

 private:
  json o_;
  std::string optim_, where_;
  std::set<std::string> used_;
};

// Reads and checks the options of `type`, then builds the optimizer over `flat` (nothing is
// built without one: runner check validates the options alone).
std::unique_ptr<optim::Optimizer> make(const std::string& type, optim::FlatParams* flat, std::vector<optim::GroupOptions> groups,
                                       OptionReader& r, const TrainingArguments& args) {
  std::unique_ptr<optim::Optimizer> opt;
  if (type == "adamw_torch" || type == "adamw_torch_fused" || type == "adamw") {
    const auto betas = r.pair("betas", {args.adam_beta1, args.adam_beta2});
    const optim::AdamWOptions o{betas[0], betas[1], r.number("eps", args.adam_epsilon, 0), type == "adamw_torch_fused"};
    if (flat) opt = optim::make_adamw(*flat, groups, o);
  } else if (type == "sgd") {
    optim::SGDOptions o;
    o.momentum = r.number("momentum", 0.0, 0);
    o.dampening = r.number("dampening", 0.0);
    o.nesterov = r.boolean("nesterov", false);
    if (o.nesterov && (o.momentum <= 0 || o.dampening != 0)) r.fail("nesterov", "needs momentum > 0 and dampening = 0");
    if (flat) opt = optim::make_sgd(*flat, groups, o);
  } else if (type == "adagrad") {
    optim::AdagradOptions o;
    o.lr_decay = r.number("lr_decay", o.lr_decay, 0);
    o.initial_accumulator_value = r.number("initial_accumulator_value", o.initial_accumulator_value, 0);
    o.eps = r.number("eps", o.eps, 0);
    if (flat) opt = optim::make_adagrad(*flat, groups, o);
  } else if (type == "rmsprop") {
    optim::RMSpropOptions o;
    o.alpha = r.number("alpha", o.alpha, 0);
    o.eps = r.number("eps", o.eps, 0);
    o.momentum = r.number("momentum", o.momentum, 0);
    o.centered = r.boolean("centered", o.centered);
    if (flat) opt = optim::make_rmsprop(*flat, groups, o);
  } else if (type == "adafactor") {
    optim::AdafactorOptions o;  // HF Trainer: scale_parameter=False, relative_step=False
    o.eps1 = r.number("eps1", o.eps1);
    o.eps2 = r.number("eps2", o.eps2);
    o.clip_threshold = r.number("clip_threshold", o.clip_threshold);
    o.decay_rate = r.number("decay_rate", o.decay_rate);
    if (r.has("beta1")) o.beta1 = r.number("beta1", 0.0);
    o.scale_parameter = r.boolean("scale_parameter", o.scale_parameter);
    o.relative_step = r.boolean("relative_step", o.relative_step);
    o.warmup_init = r.boolean("warmup_init", o.warmup_init);
    if (flat) opt = optim::make_adafactor(*flat, groups, o);
  } else {
    throw ArgumentError("args.optim: Trainer cannot instantiate unsupported optimizer: " + type);
  }
  r.finish();
  return opt;
}

// torch's optimizers refuse these ("Invalid learning rate"); NaN would train to NaN weights.
void check_groups(const std::vector<optim::GroupOptions>& groups, const OptimizerSpec* spec) {
  for (size_t g = 0; g < groups.size(); ++g)
    for (const auto& [what, v] : {std::pair<const char*, double>{"lr", groups[g].lr}, {"weight_decay", groups[g].weight_decay}})
      if (!(v >= 0) || v > std::numeric_limits<float>::max()) {
        const std::string key = spec ? "create_optimizer: " + (spec->groups.size() > g ? "group " + std::to_string(g + 1) + " " : std::string()) + what
                                     : std::string("args.") + (std::string(what) == "lr" ? "learning_rate" : "weight_decay");
        throw ArgumentError(key + ": must be a finite number >= 0, got " + text(v));
      }
}

}  // namespace

void check_optimizer_arguments(const TrainingArguments& args) {
  const std::vector<optim::GroupOptions> groups = {{args.learning_rate, args.weight_decay}};
  check_groups(groups, nullptr);
  OptionReader reader(parse_optim_args(args.optim_args), args.optim, "args.optim_args");
  make(args.optim, nullptr, groups, reader, args);
}

BuiltOptimizer build_optimizer(const TrainingArguments& args, const models::Module& model, const models::NamedTensorList& trainable,
                               const OptimizerSpec* spec, const FlatLayout& layout) {
  const std::string type = spec ? spec->type : args.optim;
  const double lr = spec ? spec->lr : args.learning_rate;
  const double wd = spec ? spec->weight_decay : args.weight_decay;
  std::vector<int> group_of(trainable.size(), -1);
  std::vector<optim::GroupOptions> groups;
  if (!spec || spec->groups.empty()) {
    const auto no_decay = no_decay_mask(model, trainable);
    for (size_t i = 0; i < trainable.size(); ++i) group_of[i] = no_decay[i] ? 1 : 0;
    groups = {{lr, wd}, {lr, 0.0}};
  } else {
    for (size_t g = 0; g < spec->groups.size(); ++g) {
      const auto& sg = spec->groups[g];
      // A Python regular expression searched in the name (re.search), as recipes write them.
      const Regex re(sg.match.empty() ? "(?!)" : sg.match, "optimizer group " + std::to_string(g + 1) + ": match", ErrorKind::kRecipe);
      size_t matched = 0;
      for (size_t i = 0; i < trainable.size(); ++i) {
        if (group_of[i] >= 0) continue;  // first matching group wins
        const std::string& name = trainable[i].first;
        if (std::find(sg.names.begin(), sg.names.end(), name) != sg.names.end() || re.search(name)) {
          group_of[i] = static_cast<int>(g);
          ++matched;
        }
      }
      for (const auto& n : sg.names)
        if (std::none_of(trainable.begin(), trainable.end(), [&](const auto& p) { return p.first == n; }))
          throw RecipeError("create_optimizer: group " + std::to_string(g + 1) + " names '" + n + "', which is not a trainable parameter");
      if (matched == 0) throw RecipeError("create_optimizer: group " + std::to_string(g + 1) + " selects no parameters");
      groups.push_back({sg.lr.value_or(lr), sg.weight_decay.value_or(wd)});
    }
    for (auto& g : group_of)
      if (g < 0) g = static_cast<int>(spec->groups.size());
    groups.push_back({lr, wd});
  }
  check_groups(groups, spec);
  BuiltOptimizer b;
  b.flat = std::make_unique<optim::FlatParams>(trainable, group_of, static_cast<int>(groups.size()), layout.grad_buffer,
                                               layout.data_buffer, layout.place, layout.device);
  optim::FlatParams& owned = layout.optimizer_view ? layout.optimizer_view(*b.flat) : *b.flat;
  OptionReader reader(spec ? spec->options : parse_optim_args(args.optim_args), type, spec ? "create_optimizer" : "args.optim_args");
  b.optimizer = make(type, &owned, groups, reader, args);
  for (const auto& g : groups) b.base_lrs.push_back(g.lr);
  return b;
}

}  // namespace runner::train
