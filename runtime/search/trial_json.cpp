#include "runtime/search/trial_json.h"

#include <string>

namespace runner::search {

using nlohmann::json;

namespace {
const char* kind_name(Distribution::Kind k) {
  switch (k) {
    case Distribution::Kind::kFloat: return "float";
    case Distribution::Kind::kInt: return "int";
    case Distribution::Kind::kCategorical: return "categorical";
  }
  return "float";
}
Trial::State state_of(const std::string& s) {
  if (s == "complete") return Trial::State::kComplete;
  if (s == "pruned") return Trial::State::kPruned;
  if (s == "failed") return Trial::State::kFailed;
  return Trial::State::kRunning;
}
}  // namespace

json distribution_to_json(const Distribution& d) {
  json j = {{"kind", kind_name(d.kind)}};
  if (d.kind == Distribution::Kind::kCategorical) {
    j["choices"] = d.choices;
    return j;
  }
  j["low"] = d.low;
  j["high"] = d.high;
  j["log"] = d.log;
  if (d.step) j["step"] = *d.step;
  return j;
}

Distribution distribution_from_json(const json& j) {
  Distribution d;
  const std::string kind = j.at("kind").get<std::string>();
  d.kind = kind == "int" ? Distribution::Kind::kInt : kind == "categorical" ? Distribution::Kind::kCategorical : Distribution::Kind::kFloat;
  if (d.kind == Distribution::Kind::kCategorical) {
    for (const auto& c : j.at("choices")) d.choices.push_back(c);
    return d;
  }
  d.low = j.at("low").get<double>();
  d.high = j.at("high").get<double>();
  d.log = j.value("log", false);
  if (j.contains("step")) d.step = j["step"].get<double>();
  return d;
}

json trial_to_json(const Trial& t) {
  json params = json::object(), order = json::array(), dists = json::object(), inter = json::object();
  for (const auto& [name, value] : t.params) {
    params[name] = value;
    order.push_back(name);
  }
  for (const auto& [name, d] : t.distributions) dists[name] = distribution_to_json(d);
  for (const auto& [step, v] : t.intermediate) inter[std::to_string(step)] = v;
  return {{"number", t.number}, {"state", state_name(t.state)}, {"params", params}, {"param_order", order},
          {"distributions", dists}, {"values", t.values}, {"intermediate_values", inter}};
}

Trial trial_from_json(const json& j) {
  Trial t;
  t.number = j.at("number").get<int>();
  t.state = state_of(j.at("state").get<std::string>());
  for (const auto& name : j.at("param_order")) t.params.emplace_back(name.get<std::string>(), j.at("params").at(name.get<std::string>()));
  for (auto it = j.at("distributions").begin(); it != j.at("distributions").end(); ++it) t.distributions[it.key()] = distribution_from_json(*it);
  t.values = j.at("values").get<std::vector<double>>();
  for (auto it = j.at("intermediate_values").begin(); it != j.at("intermediate_values").end(); ++it)
    t.intermediate[std::stoll(it.key())] = it->get<double>();
  return t;
}

}  // namespace runner::search
