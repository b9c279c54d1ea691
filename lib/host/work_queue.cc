#include "bef/host/work_queue.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
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

// A number from the first line of `path` ("max" and unreadable files:
// none).
std::optional<int64_t> ReadLimit(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  int64_t value;
  if (!std::getline(file, line) || !absl::SimpleAtoi(line, &value) || value < 0) {
    return std::nullopt;
  }
  return value;
}

// The pids.max of this process's cgroup (v2, or v1's pids controller).
std::optional<int64_t> CgroupPidsLimit() {
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroups, line)) {
    // "ID:CONTROLLERS:PATH"; v2 has an empty controller list.
    size_t first = line.find(':');
    size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    if (controllers.empty()) {
      if (auto limit = ReadLimit("/sys/fs/cgroup" + path + "/pids.max")) return limit;
    } else {
      for (absl::string_view controller : absl::StrSplit(controllers, ',')) {
        if (controller != "pids") continue;
        if (auto limit = ReadLimit("/sys/fs/cgroup/pids" + path + "/pids.max")) return limit;
      }
    }
  }
  return std::nullopt;
}

// How many threads this process may have at most, and which limit says so:
// the least of RLIMIT_NPROC, the kernel's threads-max and the cgroup's
// pids.max. (An upper bound: other threads of the user and the cgroup
// count against the first and the last.)
std::pair<int64_t, std::string> ThreadLimit() {
  std::pair<int64_t, std::string> limit = {kMaxWorkQueueThreads, "the runtime's own bound"};
  auto lower = [&](std::optional<int64_t> value, const char* what) {
    if (value && *value < limit.first) limit = {*value, what};
  };
  rlimit processes;
  if (getrlimit(RLIMIT_NPROC, &processes) == 0 && processes.rlim_cur != RLIM_INFINITY) {
    lower(static_cast<int64_t>(processes.rlim_cur), "RLIMIT_NPROC (ulimit -u)");
  }
  lower(ReadLimit("/proc/sys/kernel/threads-max"), "/proc/sys/kernel/threads-max");
  lower(CgroupPidsLimit(), "the cgroup's pids.max");
  return limit;
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
    bool blocking_given = false;
    if (!argument.empty()) {
      std::vector<absl::string_view> parts =
          absl::StrSplit(ToAbsl(argument), ',');
      blocking_given = parts.size() == 2;
      bool ok = parts.size() <= 2 && ParsePositive(parts[0], &compute) &&
                (parts.size() == 1 || ParsePositive(parts[1], &blocking));
      if (!ok) {
        LogLine(LogSeverity::kError, "static_registration.cc", 71,
                absl::StrCat("Invalid argument for mstd work queue: ",
                             ToAbsl(argument)));
        return invalid();
      }
    }
    // Threads start on demand, and a thread the system refuses would end
    // the process (oneTBB and std::thread throw where nothing can catch):
    // ask for no more than the process may have. The default blocking pool
    // shrinks to fit; numbers given are refused.
    auto [limit, limited_by] = ThreadLimit();
    if (!blocking_given && compute < limit) {
      blocking = static_cast<int>(std::clamp<int64_t>(limit - compute, 1, blocking));
    }
    if (static_cast<int64_t>(compute) + blocking > limit) {
      return absl::InvalidArgumentError(absl::StrCat(
          "work queue ", ToAbsl(spec), ": ", compute, " compute and ", blocking,
          " blocking threads are more than this process may have (", limit, ", ",
          limited_by, ")"));
    }
    return CreateMultiThreadedWorkQueue(compute, blocking);
  }
  return invalid();
}

}  // namespace bef
