// The time strftime_now renders (Llama 3.2's template prints today's date): fixed once per
// process, at the first render unless set before (data::set_template_time, which data-parallel
// runs call with rank 0's time so ranks on either side of midnight build the same dataset).
#pragma once
#include <ctime>

namespace runner::jinja {

void set_render_time(std::time_t t);
std::time_t render_time();

}  // namespace runner::jinja
