#include "runtime/log/log.h"

#include <cmath>
#include <cstdio>
#include <memory>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace runner::log {

namespace {

Level g_level = Level::kInfo;

spdlog::logger& logger() {
  // stdout (stderr is kept for the one-line error), synchronised sink: a background save (save_async) logs its commit from its own thread; data workers never log.
  static std::shared_ptr<spdlog::logger> l = [] {
    auto lg = std::make_shared<spdlog::logger>("runner", std::make_shared<spdlog::sinks::stdout_sink_mt>());
    lg->set_pattern("[%H:%M:%S] %v");
    lg->set_level(spdlog::level::info);
    return lg;
  }();
  return *l;
}

spdlog::level::level_enum to_spd(Level l) {
  switch (l) {
    case Level::kDebug: return spdlog::level::debug;
    case Level::kInfo: return spdlog::level::info;
    case Level::kWarning: return spdlog::level::warn;
    case Level::kError: return spdlog::level::err;
    case Level::kCritical: return spdlog::level::critical;
    case Level::kOff: return spdlog::level::off;
  }
  return spdlog::level::info;
}

}  // namespace

Level parse_level(const std::string& name) {
  if (name == "debug") return Level::kDebug;
  if (name == "info" || name == "passive") return Level::kInfo;
  if (name == "warning") return Level::kWarning;
  if (name == "error") return Level::kError;
  if (name == "critical") return Level::kCritical;
  return Level::kInfo;
}

void configure(Level level, int rank) {
  g_level = level;
  logger().set_level(to_spd(level));
  logger().set_pattern(rank < 0 ? "[%H:%M:%S] %v" : "[%H:%M:%S rank " + std::to_string(rank) + "] %v");
}

Level level() { return g_level; }
bool enabled(Level l) { return l >= g_level; }

void debug(const std::string& m) { logger().debug(m); }
void info(const std::string& m) { logger().info(m); }
void warn(const std::string& m) { logger().warn("warning: " + m); }
void error(const std::string& m) { logger().error(m); }

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
  }
  // Shortest representation that round-trips, like Python's repr.
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace runner::log
