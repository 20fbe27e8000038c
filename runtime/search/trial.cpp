#include "runtime/search/trial.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace runner::search {

namespace {

// The shortest form that reads back as the same double: "1e-06" and "0.5", not "9.9999999999999995e-07".
std::string num(double x) {
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

[[noreturn]] void fail(const std::string& name, const std::string& problem) {
  throw std::invalid_argument("parameter '" + name + "': " + problem);
}

// Ints travel as doubles in Distribution; beyond 2^53 they would silently stop being exact.
bool is_exact_integer(double x) { return std::isfinite(x) && std::floor(x) == x && std::fabs(x) <= 9007199254740992.0; }

}  // namespace

Direction parse_direction(const std::string& s) {
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "minimize" || lower == "min") return Direction::kMinimize;
  if (lower == "maximize" || lower == "max") return Direction::kMaximize;
  throw std::invalid_argument("unknown direction '" + s + "': expected \"minimize\" or \"maximize\"");
}

const char* direction_name(Direction d) { return d == Direction::kMinimize ? "minimize" : "maximize"; }

void Distribution::check(const std::string& name) const {
  if (kind == Kind::kCategorical) {
    if (choices.empty()) fail(name, "categorical needs at least one choice");
    for (size_t i = 0; i < choices.size(); ++i) {
      const auto& c = choices[i];
      if (!c.is_number() && !c.is_string() && !c.is_boolean())
        fail(name, "choice " + std::to_string(i + 1) + " is " + c.type_name() +
                       "; choices must be numbers, strings or booleans");
      if (c.is_number_float() && !std::isfinite(c.get<double>()))
        fail(name, "choice " + std::to_string(i + 1) + " is not a finite number");
      // Duplicates would count twice in the grid and skew TPE's category weights.
      for (size_t j = 0; j < i; ++j)
        if (choices[j] == c) fail(name, "choice " + c.dump() + " is listed twice");
    }
    return;
  }
  if (!std::isfinite(low) || !std::isfinite(high)) fail(name, "bounds must be finite numbers");
  if (low > high) fail(name, "low (" + num(low) + ") must not exceed high (" + num(high) + ")");
  if (log && low <= 0) fail(name, "log scale needs low > 0 (got " + num(low) + ")");
  if (step && !(std::isfinite(*step) && *step > 0)) fail(name, "step must be > 0 (got " + num(*step) + ")");
  // optuna: a log-scale float takes no step, a log-scale int only step 1.
  if (log && step && (kind != Kind::kInt || *step != 1)) fail(name, "step is not supported with log = true" + std::string(kind == Kind::kInt ? " (other than 1)" : ""));
  if (kind == Kind::kInt) {
    if (!is_exact_integer(low) || !is_exact_integer(high))
      fail(name, "integer bounds must be whole numbers (got " + num(low) + ", " + num(high) + ")");
    if (step && !is_exact_integer(*step)) fail(name, "integer step must be a whole number (got " + num(*step) + ")");
  }
}

bool Distribution::operator==(const Distribution& o) const {
  if (kind != o.kind) return false;
  if (kind == Kind::kCategorical) return choices == o.choices;
  // An int's implicit step is 1; spelling it out must not make two trials look incompatible.
  auto eff_step = [](const Distribution& d) -> std::optional<double> {
    return d.kind == Kind::kInt && !d.step ? std::optional<double>(1.0) : d.step;
  };
  return low == o.low && high == o.high && log == o.log && eff_step(*this) == eff_step(o);
}

const nlohmann::json* Trial::param(const std::string& name) const {
  for (const auto& [n, v] : params)
    if (n == name) return &v;
  return nullptr;
}

const char* state_name(Trial::State s) {
  switch (s) {
    case Trial::State::kComplete: return "complete";
    case Trial::State::kPruned: return "pruned";
    case Trial::State::kFailed: return "failed";
    case Trial::State::kRunning: break;
  }
  return "running";
}

}  // namespace runner::search
