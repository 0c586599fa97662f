// Message levels for a run and for each element (its `log` field).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cnuas {

// Ordered: a level shows its own messages and those of every level before it.
enum class LogLevel : std::uint8_t { Quiet, Warning, Info, Debug };

// "quiet", "warning", "info" or "debug"; nullopt for anything else.
inline std::optional<LogLevel> parse_log_level(const std::string& text) {
  if (text == "quiet") return LogLevel::Quiet;
  if (text == "warning") return LogLevel::Warning;
  if (text == "info") return LogLevel::Info;
  if (text == "debug") return LogLevel::Debug;
  return std::nullopt;
}

inline const char* log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::Quiet:
      return "quiet";
    case LogLevel::Warning:
      return "warning";
    case LogLevel::Info:
      return "info";
    case LogLevel::Debug:
      return "debug";
  }
  return "?";
}

}  // namespace cnuas
