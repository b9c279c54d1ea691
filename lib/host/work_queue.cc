#include "bef/host/work_queue.h"

#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bef/support/logging.h"
#include "bef/support/string_view.h"

namespace bef {
namespace {

bool ParsePositive(absl::string_view text, int* value) {
  return absl::SimpleAtoi(text, value) && *value > 0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> CreateWorkQueue(
    std::string_view spec) {
  std::string_view name = spec;
  std::string_view argument;
  if (size_t colon = spec.find(':'); colon != std::string_view::npos) {
    name = spec.substr(0, colon);
    argument = spec.substr(colon + 1);
  }
  auto invalid = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("couldn't create work queue type ", ToAbsl(spec)));
  };
  if (name == "s") {
    if (!argument.empty()) {
      LogLine(LogSeverity::kError, "static_registration.cc", 34,
              absl::StrCat("Invalid argument for s work queue: ", ToAbsl(argument)));
      return invalid();
    }
    return CreateSingleThreadedWorkQueue();
  }
  if (name == "mstd") {
    int compute = static_cast<int>(std::thread::hardware_concurrency());
    if (compute <= 0) compute = 1;
    int blocking = 256;
    if (!argument.empty()) {
      std::vector<absl::string_view> parts =
          absl::StrSplit(ToAbsl(argument), ',');
      bool ok = parts.size() <= 2 && ParsePositive(parts[0], &compute) &&
                (parts.size() == 1 || ParsePositive(parts[1], &blocking));
      if (!ok) {
        LogLine(LogSeverity::kError, "static_registration.cc", 71,
                absl::StrCat("Invalid argument for mstd work queue: ",
                             ToAbsl(argument)));
        return invalid();
      }
    }
    return CreateMultiThreadedWorkQueue(compute, blocking);
  }
  return invalid();
}

}  // namespace bef
