// Jinja's filters (`value | name(args)`) that chat templates use, with Jinja's defaults and
// transformers' own tojson (json.dumps with ensure_ascii=False, indent, separators,
// sort_keys; no HTML escaping): abs, attr, capitalize, count, default/d, dictsort, first,
// float, format, indent, int, items, join, last, length, list, lower, map, max, min, reject,
// rejectattr, replace, reverse, round, safe, select, selectattr, sort, string, sum, title,
// tojson, trim, unique, upper. Others are refused by name.
#pragma once
#include <string>

#include "runtime/jinja/value.h"

namespace runner::jinja {

Value apply_filter(const std::string& name, const Value& input, const Args& args);
bool is_filter(const std::string& name);  // the parser refuses unknown filters, as Jinja does when compiling

}  // namespace runner::jinja
