// Python `str` semantics over UTF-8 bytes, for the Jinja interpreter: chat templates call
// str methods (strip, split, title, ...) and Jinja filters defined by them, and their output
// must equal what Python gives byte for byte. Lengths, indices and slices count code points,
// whitespace is str.isspace()'s set, case mapping is Unicode's (ICU), floats print as repr().
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace runner::jinja::text {

std::u32string decode(std::string_view s);  // invalid bytes become U+FFFD
std::string encode(std::u32string_view cps);
int64_t length(std::string_view s);  // in code points

bool is_space(char32_t c);  // str.isspace()
// str.strip / lstrip / rstrip; `chars` null: whitespace.
std::string strip(std::string_view s, const std::string* chars, bool left, bool right);
// str.split / rsplit; `sep` null: runs of whitespace, empty pieces dropped. maxsplit < 0: no limit.
std::vector<std::string> split(std::string_view s, const std::string* sep, int64_t maxsplit, bool from_right = false);
std::string replace(std::string_view s, std::string_view old, std::string_view with, int64_t count = -1);
int64_t count(std::string_view s, std::string_view sub);
int64_t find(std::string_view s, std::string_view sub, bool from_right = false);  // code point index or -1

std::string upper(std::string_view s);
std::string lower(std::string_view s);
std::string py_title(std::string_view s);    // str.title()
std::string capitalize(std::string_view s);  // str.capitalize()
std::string jinja_title(std::string_view s);  // Jinja's |title: words split at whitespace - ( { [ <
bool is_upper(std::string_view s);
bool is_lower(std::string_view s);

std::string repr(std::string_view s);        // repr(str): quoted as Python prints it in lists
std::string json_quote(std::string_view s);  // json.dumps(s, ensure_ascii=False)
std::string format_float(double d);          // repr(float): 1.0, 0.1, 1e+16, inf, nan

}  // namespace runner::jinja::text
