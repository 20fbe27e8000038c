#include "runtime/io/json_text.h"

#include <cmath>

namespace runner::io {

using nlohmann::json;

namespace {

// Stand-ins that cannot come from a real string: dump() escapes the control characters.
const char* const kNaN = "\x01runner-nan\x01";
const char* const kInf = "\x01runner-inf\x01";
const char* const kNegInf = "\x01runner-neginf\x01";

json with_markers(const json& v) {
  if (v.is_number_float() && !std::isfinite(v.get<double>()))
    return std::isnan(v.get<double>()) ? kNaN : v.get<double>() > 0 ? kInf : kNegInf;
  if (v.is_object()) {
    json out = json::object();
    for (auto it = v.begin(); it != v.end(); ++it) out[it.key()] = with_markers(it.value());
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const auto& e : v) out.push_back(with_markers(e));
    return out;
  }
  return v;
}

bool has_nonfinite(const json& v) {
  if (v.is_number_float()) return !std::isfinite(v.get<double>());
  if (v.is_structured())
    for (const auto& e : v)
      if (has_nonfinite(e)) return true;
  return false;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

void markers_to_numbers(json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == kNaN) v = std::nan("");
    else if (s == kInf) v = HUGE_VAL;
    else if (s == kNegInf) v = -HUGE_VAL;
  } else if (v.is_structured()) {
    for (auto& e : v) markers_to_numbers(e);
  }
}

}  // namespace

std::string dump_json_python(const json& value, int indent) {
  if (!has_nonfinite(value)) return value.dump(indent);
  std::string text = with_markers(value).dump(indent);
  for (const auto& [marker, token] : {std::pair<const char*, const char*>{kNaN, "NaN"}, {kInf, "Infinity"}, {kNegInf, "-Infinity"}})
    replace_all(text, json(marker).dump(), token);
  return text;
}

json parse_json_python(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_discarded() || (text.find("NaN") == std::string::npos && text.find("Infinity") == std::string::npos)) return j;
  // Replace the bare tokens outside strings by marker strings, parse, then turn them back.
  std::string rewritten;
  rewritten.reserve(text.size() + 64);
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      rewritten += c;
      if (c == '\\' && i + 1 < text.size()) rewritten += text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    auto token = [&](const char* t, const char* marker) {
      const size_t n = std::char_traits<char>::length(t);
      if (text.compare(i, n, t) != 0) return false;
      rewritten += json(marker).dump();
      i += n - 1;
      return true;
    };
    if (token("NaN", kNaN) || token("-Infinity", kNegInf) || token("Infinity", kInf)) continue;
    rewritten += c;
  }
  j = json::parse(rewritten, nullptr, false);
  if (!j.is_discarded()) markers_to_numbers(j);
  return j;
}

}  // namespace runner::io
