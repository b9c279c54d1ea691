#include "tools/tbb_arena_plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bef/host/work_queue.h"
#include "bef/support/logging.h"
#include "bef/support/plugin_library.h"
#include "lib/host/tbb_arena.h"

namespace bef::tools {
namespace {

constexpr char kPluginName[] = "libbef_tbb_arena.so";

std::vector<std::string> PluginCandidates() {
  if (const char* path = std::getenv("BEF_TBB_ARENA_LIBRARY"); path && *path) {
    return {path};
  }
  std::vector<std::string> candidates;
  char executable[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", executable, sizeof(executable) - 1);
  if (length > 0) {
    std::string exe(executable, static_cast<size_t>(length));
    std::string directory = exe.substr(0, exe.rfind('/'));
    candidates.push_back(absl::StrCat(directory, "/", kPluginName));
    candidates.push_back(absl::StrCat(directory, "/../lib/host/", kPluginName));
  }
  candidates.push_back(kPluginName);  // the loader's search path
  return candidates;
}

// The first candidate that loads; the library stays loaded for the process.
const BefTbbArenaApi* LoadPlugin() {
  static const BefTbbArenaApi* table = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    absl::StatusOr<void*> entry = LoadPluginEntry(PluginCandidates(), "BefTbbArenaApiV1");
    if (entry.ok()) {
      using Entry = const BefTbbArenaApi* (*)();
      table = reinterpret_cast<Entry>(*entry)();
      return;
    }
    LogLine(LogSeverity::kError, "tbb_arena_plugin.cc", __LINE__,
            absl::StrCat("cannot load ", kPluginName,
                         " (set BEF_TBB_ARENA_LIBRARY to its path); ",
                         entry.status().message()));
  });
  return table;
}

}  // namespace

void RegisterTbbArenaPlugin() { RegisterTbbArenaSource(&LoadPlugin); }

}  // namespace bef::tools
