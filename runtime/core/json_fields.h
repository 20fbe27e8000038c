// Typed reads of the fields of a JSON file runner reads back (checkpoint metadata, the
// trainer state): a field of the wrong type or out of range names the file and the key and
// exits 2 (CheckpointError), instead of surfacing as an internal nlohmann type error.
// Missing and null fields take the default.
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"

namespace runner {

class JsonFields {
 public:
  JsonFields(const nlohmann::json& j, std::string file) : j_(j), file_(std::move(file)) {
    if (!j_.is_object()) fail("", "expected a JSON object, got " + brief(j_));
  }

  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  const nlohmann::json& raw(const char* key) const { return j_[key]; }

  double number(const char* key, double def) const {
    if (!has(key)) return def;
    const auto& v = j_[key];
    if (!v.is_number()) fail(key, "expected a number, got " + brief(v));
    return v.get<double>();
  }
  int64_t integer(const char* key, int64_t def) const {
    if (!has(key)) return def;
    const auto& v = j_[key];
    if (v.is_number_integer()) return v.get<int64_t>();
    // Integral floats (1e3) are integers; the range check keeps the cast defined.
    if (!v.is_number_float() || v.get<double>() != std::floor(v.get<double>()) || std::fabs(v.get<double>()) >= 9.2e18)
      fail(key, "expected an integer, got " + brief(v));
    return static_cast<int64_t>(v.get<double>());
  }
  bool boolean(const char* key, bool def) const {
    if (!has(key)) return def;
    if (!j_[key].is_boolean()) fail(key, "expected true or false, got " + brief(j_[key]));
    return j_[key].get<bool>();
  }
  std::string string(const char* key, const std::string& def) const {
    if (!has(key)) return def;
    if (!j_[key].is_string()) fail(key, "expected a string, got " + brief(j_[key]));
    return j_[key].get<std::string>();
  }
  std::optional<double> opt_number(const char* key) const { return has(key) ? std::optional<double>(number(key, 0)) : std::nullopt; }
  std::optional<int64_t> opt_integer(const char* key) const { return has(key) ? std::optional<int64_t>(integer(key, 0)) : std::nullopt; }
  std::optional<std::string> opt_string(const char* key) const {
    return has(key) ? std::optional<std::string>(string(key, "")) : std::nullopt;
  }
  nlohmann::json array(const char* key) const { return typed(key, nlohmann::json::array(), true); }
  nlohmann::json object(const char* key) const { return typed(key, nlohmann::json::object(), false); }

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw CheckpointError(key.empty() ? message : "'" + key + "': " + message, file_);
  }

 private:
  nlohmann::json typed(const char* key, nlohmann::json def, bool array) const {
    if (!has(key)) return def;
    const auto& v = j_[key];
    if (array ? !v.is_array() : !v.is_object()) fail(key, std::string("expected ") + (array ? "a list" : "an object") + ", got " + brief(v));
    return v;
  }
  static std::string brief(const nlohmann::json& v) {
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
  }

  nlohmann::json j_;  // a copy: callers often pass a temporary
  std::string file_;
};

}  // namespace runner
