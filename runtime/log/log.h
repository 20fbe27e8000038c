// Logging for every layer, through spdlog, with a rank-aware prefix. Only this layer
// includes spdlog, so the rest of the runtime stays quick to compile.
#pragma once
#include <string>

namespace runner::log {

enum class Level { kDebug, kInfo, kWarning, kError, kCritical, kOff };

// HF level names: debug, info, warning, error, critical, passive (= info for runner's own
// progress lines, which HF prints regardless of the library level).
Level parse_level(const std::string& name);

// Set the level and the prefix. `rank` < 0 means single process (no rank prefix).
void configure(Level level, int rank = -1);
Level level();
bool enabled(Level l);

void debug(const std::string& message);
void info(const std::string& message);
void warn(const std::string& message);
void error(const std::string& message);

// A number the way Python's repr prints it in HF log dicts (shortest round-trip form).
std::string format_number(double v);

}  // namespace runner::log
