// TFRT-format log lines on stderr:
//   S YYYY-MM-DD HH:MM:SS.uuuuuu TID file:line] message
// with S one of I, W, E, F. Call sites that must match TFRT's output byte for
// byte (the driver's work-queue errors, the fixed-size allocator, the
// logging test kernel) pass TFRT's file name and line explicitly.
#ifndef BEF_SUPPORT_LOGGING_H_
#define BEF_SUPPORT_LOGGING_H_

#include <string_view>

namespace bef {

enum class LogSeverity : char {
  kInfo = 'I',
  kWarning = 'W',
  kError = 'E',
  kFatal = 'F',
};

// Writes one line atomically (a single write) to stderr.
void LogLine(LogSeverity severity, std::string_view file, int line,
             std::string_view message);

}  // namespace bef

#endif  // BEF_SUPPORT_LOGGING_H_
