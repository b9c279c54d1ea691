#include "bef/host/work_queue.h"

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
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

// The first limit `read` finds in this process's cgroups: `read(DIR, v2)`
// for each cgroup directory of /proc/self/cgroup, DIR the v2 directory
// (v2 true) or `controller`'s v1 directory (v2 false).
template <typename Read>
std::optional<int64_t> CgroupLimit(absl::string_view controller, Read read,
                                   const std::string& process_cgroups = "/proc/self/cgroup",
                                   const std::string& cgroup_root = "/sys/fs/cgroup") {
  std::ifstream cgroups(process_cgroups);
  std::string line;
  while (std::getline(cgroups, line)) {
    // "ID:CONTROLLERS:PATH"; v2 has an empty controller list.
    size_t first = line.find(':');
    size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    if (controllers.empty()) {
      if (auto limit = read(cgroup_root + path, true)) return limit;
    } else {
      for (absl::string_view name : absl::StrSplit(controllers, ',')) {
        if (name != controller) continue;
        // v1 mounts a hierarchy under its controllers' names ("cpu,cpuacct").
        if (auto limit = read(absl::StrCat(cgroup_root, "/", controllers, path), false)) {
          return limit;
        }
      }
    }
  }
  return std::nullopt;
}

// The pids.max of this process's cgroup (v2, or v1's pids controller).
std::optional<int64_t> CgroupPidsLimit() {
  return CgroupLimit("pids", [](const std::string& directory, bool) {
    return ReadLimit(directory + "/pids.max");
  });
}

}  // namespace

namespace internal {
std::optional<int64_t> CgroupCpuLimit(const std::string& process_cgroups,
                                      const std::string& cgroup_root) {
  auto read = [](const std::string& directory, bool v2) -> std::optional<int64_t> {
    int64_t quota = 0;
    int64_t period = 0;
    if (v2) {
      // "QUOTA PERIOD", QUOTA "max" when unlimited.
      std::ifstream file(directory + "/cpu.max");
      std::string quota_text;
      if (!(file >> quota_text >> period) || !absl::SimpleAtoi(quota_text, &quota)) {
        return std::nullopt;
      }
    } else {
      // -1 when unlimited.
      std::optional<int64_t> v1_quota = ReadLimit(directory + "/cpu.cfs_quota_us");
      std::optional<int64_t> v1_period = ReadLimit(directory + "/cpu.cfs_period_us");
      if (!v1_quota || !v1_period) return std::nullopt;
      quota = *v1_quota;
      period = *v1_period;
    }
    if (quota <= 0 || period <= 0) return std::nullopt;
    return quota / period + (quota % period != 0);  // rounded up, without overflow
  };
  return CgroupLimit("cpu", read, process_cgroups, cgroup_root);
}
}  // namespace internal

namespace {

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

// What a spec says: "s", or "mstd" with its counts (0: not given).
struct ParsedSpec {
  bool single_threaded = false;
  int compute = 0;
  int blocking = 0;
};

absl::StatusOr<ParsedSpec> ParseSpec(std::string_view spec) {
  absl::string_view text = absl::StripAsciiWhitespace(ToAbsl(spec));
  absl::string_view name = text;
  absl::string_view argument;
  bool has_argument = false;
  if (size_t colon = text.find(':'); colon != absl::string_view::npos) {
    name = text.substr(0, colon);
    argument = text.substr(colon + 1);
    has_argument = true;
  }
  auto invalid = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("couldn't create work queue type ", ToAbsl(spec)));
  };
  ParsedSpec parsed;
  if (name == "s") {
    if (has_argument) {
      LogLine(LogSeverity::kError, "static_registration.cc", 34,
              absl::StrCat("Invalid argument for s work queue: ", argument));
      return invalid();
    }
    parsed.single_threaded = true;
    return parsed;
  }
  if (name != "mstd") return invalid();
  if (has_argument) {
    std::vector<absl::string_view> parts = absl::StrSplit(argument, ',');
    bool ok = parts.size() <= 2 && ParsePositive(parts[0], &parsed.compute) &&
              (parts.size() == 1 || ParsePositive(parts[1], &parsed.blocking));
    if (!ok) {
      LogLine(LogSeverity::kError, "static_registration.cc", 71,
              absl::StrCat("Invalid argument for mstd work queue: ", argument));
      return invalid();
    }
  }
  return parsed;
}

// The threads held by the process's live `mstd` queues (see work_queue.h).
std::mutex budget_mutex;
int64_t budget_held = 0;  // guarded by budget_mutex

}  // namespace

namespace internal {
void ReturnThreadBudget(int64_t threads) {
  std::lock_guard<std::mutex> lock(budget_mutex);
  budget_held -= threads;
}
}  // namespace internal

absl::StatusOr<std::string> CanonicalWorkQueueSpec(std::string_view spec) {
  absl::StatusOr<ParsedSpec> parsed = ParseSpec(spec);
  if (!parsed.ok()) return parsed.status();
  if (parsed->single_threaded) return std::string("s");
  if (parsed->compute == 0) return std::string("mstd");
  if (parsed->blocking == 0) return absl::StrCat("mstd:", parsed->compute);
  return absl::StrCat("mstd:", parsed->compute, ",", parsed->blocking);
}

int UsableCores() {
  int64_t cores = 0;
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) cores = CPU_COUNT(&mask);
  if (cores <= 0) cores = std::thread::hardware_concurrency();
  std::optional<int64_t> quota = internal::CgroupCpuLimit("/proc/self/cgroup", "/sys/fs/cgroup");
  if (quota && *quota < cores) cores = *quota;
  return static_cast<int>(std::clamp<int64_t>(cores, 1, kMaxWorkQueueThreads));
}

absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> CreateWorkQueue(
    std::string_view spec) {
  absl::StatusOr<ParsedSpec> parsed = ParseSpec(spec);
  if (!parsed.ok()) return parsed.status();
  if (parsed->single_threaded) return CreateSingleThreadedWorkQueue();
  int compute = parsed->compute;
  if (compute == 0) compute = UsableCores();
  const bool blocking_given = parsed->blocking != 0;
  int blocking = blocking_given ? parsed->blocking : 256;
  // Threads start on demand, and a thread the system refuses would end the
  // process (oneTBB and std::thread throw where nothing can catch): the
  // process's queues together ask for no more than it may have. The default
  // blocking pool shrinks to fit; numbers given are refused.
  std::lock_guard<std::mutex> lock(budget_mutex);
  auto [limit, limited_by] = ThreadLimit();
  const int64_t left = limit - budget_held;
  if (!blocking_given && compute < left) {
    blocking = static_cast<int>(std::clamp<int64_t>(left - compute, 1, blocking));
  }
  if (static_cast<int64_t>(compute) + blocking > left) {
    return absl::InvalidArgumentError(absl::StrCat(
        "work queue ", ToAbsl(spec), ": ", compute, " compute and ", blocking,
        " blocking threads are more than this process may have (", limit, ", ", limited_by,
        budget_held > 0 ? absl::StrCat("; its other work queues hold ", budget_held) : "",
        ")"));
  }
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
      CreateMultiThreadedWorkQueue(compute, blocking, compute + blocking);
  if (queue.ok()) budget_held += compute + blocking;
  return queue;
}

}  // namespace bef
