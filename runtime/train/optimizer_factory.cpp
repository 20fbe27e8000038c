#include "runtime/train/optimizer_factory.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

#include "runtime/core/did_you_mean.h"
#include "runtime/core/errors.h"

namespace runner::train {

namespace {

std::map<std::string, std::string> parse_optim_args(const std::optional<std::string>& text, const std::vector<std::string>& known,
                                                    const std::string& optim) {
  std::map<std::string, std::string> out;
  if (!text || text->empty()) return out;
  std::stringstream ss(*text);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw ArgumentError("args.optim_args: expected \"key=value\", got \"" + item + "\"");
    const std::string key = item.substr(0, eq);
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw ArgumentError("args.optim_args: " + optim + " has no option '" + key + "'" +
                          (known.empty() ? " (it takes none)" : did_you_mean(key, known)));
    out[key] = item.substr(eq + 1);
  }
  return out;
}

double number(const std::map<std::string, std::string>& kv, const std::string& key, double def) {
  auto it = kv.find(key);
  if (it == kv.end()) return def;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end) throw ArgumentError("args.optim_args: " + key + " must be a number, got \"" + it->second + "\"");
  return v;
}

}  // namespace

std::unique_ptr<optim::Optimizer> make_optimizer(const TrainingArguments& args, optim::FlatParams& flat) {
  std::vector<optim::GroupOptions> groups{{args.learning_rate, args.weight_decay}, {args.learning_rate, 0.0}};
  if (args.optim == "adamw_torch" || args.optim == "adamw_torch_fused") {
    parse_optim_args(args.optim_args, {}, args.optim);
    return optim::make_adamw(flat, groups, {args.adam_beta1, args.adam_beta2, args.adam_epsilon});
  }
  if (args.optim == "sgd") {
    auto kv = parse_optim_args(args.optim_args, {"momentum", "dampening", "nesterov"}, args.optim);
    optim::SGDOptions o;
    o.momentum = number(kv, "momentum", 0.0);
    o.dampening = number(kv, "dampening", 0.0);
    o.nesterov = kv.count("nesterov") && (kv["nesterov"] == "true" || kv["nesterov"] == "True" || kv["nesterov"] == "1");
    return optim::make_sgd(flat, groups, o);
  }
  throw ArgumentError("args.optim: unsupported optimizer \"" + args.optim + "\"");
}

}  // namespace runner::train
