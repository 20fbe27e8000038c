// JSON text as Python's `json` module writes and reads it: HF writes non-finite floats
// (a NaN loss) as the bare tokens NaN, Infinity and -Infinity, which strict JSON (and
// nlohmann) would turn into null or refuse. Keys are sorted and indented by 2, as HF's
// json.dumps(..., indent=2, sort_keys=True).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace runner::io {

// indent -1: one line (JSON Lines).
std::string dump_json_python(const nlohmann::json& value, int indent = 2);
// Strict JSON plus NaN / Infinity / -Infinity outside strings; discarded on a syntax error.
nlohmann::json parse_json_python(const std::string& text);

}  // namespace runner::io
