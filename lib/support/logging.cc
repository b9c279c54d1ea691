#include "bef/support/logging.h"

#include <pthread.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <string>

namespace bef {

void LogLine(LogSeverity severity, std::string_view file, int line,
             std::string_view message) {
  timeval now;
  gettimeofday(&now, nullptr);
  tm local;
  localtime_r(&now.tv_sec, &local);
  char prefix[96];
  int length = std::snprintf(
      prefix, sizeof(prefix), "%c %04d-%02d-%02d %02d:%02d:%02d.%06ld %lu ",
      static_cast<char>(severity), local.tm_year + 1900, local.tm_mon + 1,
      local.tm_mday, local.tm_hour, local.tm_min, local.tm_sec,
      static_cast<long>(now.tv_usec),
      static_cast<unsigned long>(pthread_self()));
  std::string text(prefix, length > 0 ? length : 0);
  text.append(file);
  text += ':';
  text += std::to_string(line);
  text += "] ";
  text.append(message);
  text += '\n';
  std::fflush(stdout);
  ssize_t ignored = write(STDERR_FILENO, text.data(), text.size());
  (void)ignored;
}

}  // namespace bef
