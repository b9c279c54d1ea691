// Loading a plugin: a shared library the runtime reaches through a C table
// (the oneTBB arena, tools/tbb_arena_plugin.cc; oneDNN, kernels/cpu/
// onednn.h), loaded on first use so that a binary that never needs it
// never loads it or the libraries it brings.
//
// LoadPluginEntry dlopens the candidates in order (RTLD_NOW | RTLD_LOCAL:
// the plugin's own libstdc++ and symbols stay its own) and returns the
// address of `symbol` in the first that has it; the library stays loaded
// for the process. Otherwise an error naming every path tried and why,
// for the caller's message.
#ifndef BEF_SUPPORT_PLUGIN_LIBRARY_H_
#define BEF_SUPPORT_PLUGIN_LIBRARY_H_

#include <dlfcn.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace bef {

inline absl::StatusOr<void*> LoadPluginEntry(const std::vector<std::string>& candidates,
                                             const char* symbol) {
  std::vector<std::string> failures;
  for (const std::string& candidate : candidates) {
    void* library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* error = dlerror();
      failures.push_back(error != nullptr ? error : candidate);
      continue;
    }
    if (void* entry = dlsym(library, symbol); entry != nullptr) return entry;
    failures.push_back(absl::StrCat(candidate, ": no ", symbol));
    dlclose(library);
  }
  return absl::NotFoundError(absl::StrCat("tried: ", absl::StrJoin(failures, "; ")));
}

}  // namespace bef

#endif  // BEF_SUPPORT_PLUGIN_LIBRARY_H_
