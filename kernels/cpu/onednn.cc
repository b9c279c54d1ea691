#include "kernels/cpu/onednn.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>

#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bef/support/plugin_library.h"

namespace bef::cpu_kernels {
namespace {

constexpr char kPluginName[] = "libbef_onednn.so";

// The directory of the binary or shared object this code is in (for the
// main program the loader keeps no path: /proc/self/exe names it).
std::string OwnDirectory() {
  Dl_info info;
  link_map* object = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&OwnDirectory), &info, reinterpret_cast<void**>(&object),
              RTLD_DL_LINKMAP) == 0) {
    return "";
  }
  std::string path;
  if (object != nullptr && object->l_name != nullptr && object->l_name[0] != 0) {
    path = object->l_name;
  } else {
    char executable[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", executable, sizeof(executable) - 1);
    if (length <= 0) return "";
    path.assign(executable, static_cast<size_t>(length));
  }
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::vector<std::string> Candidates() {
  if (const char* path = std::getenv("BEF_ONEDNN_LIBRARY"); path != nullptr && *path != 0) {
    return {path};
  }
  std::vector<std::string> candidates;
  if (std::string directory = OwnDirectory(); !directory.empty()) {
    candidates.push_back(absl::StrCat(directory, "/", kPluginName));
    candidates.push_back(absl::StrCat(directory, "/../kernels/cpu/", kPluginName));
  }
  candidates.push_back(kPluginName);
  return candidates;
}

absl::StatusOr<const BefOneDnnApi*> Load() {
  absl::StatusOr<void*> entry = LoadPluginEntry(Candidates(), "BefOneDnnApiV5");
  if (!entry.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot load ", kPluginName, ", the oneDNN plugin of the CPU kernels (apt-get install "
        "libdnnl2; set BEF_ONEDNN_LIBRARY to the plugin's path); ", entry.status().message()));
  }
  using Entry = const BefOneDnnApi* (*)();
  return reinterpret_cast<Entry>(*entry)();
}

}  // namespace

absl::StatusOr<const BefOneDnnApi*> OneDnn() {
  static absl::StatusOr<const BefOneDnnApi*>* api = nullptr;
  static std::once_flag once;
  std::call_once(once, [] { api = new absl::StatusOr<const BefOneDnnApi*>(Load()); });
  return *api;
}

}  // namespace bef::cpu_kernels

#if defined(__SANITIZE_ADDRESS__)
// Under AddressSanitizer: GCC 12's LeakSanitizer misreads the dynamic TLS
// blocks of libraries loaded with dlopen once a second thread has used them
// (libgomp's and oneDNN's, after the plugin ran on two work-queue threads):
// its exit-time scan printed "DTLS 7 at 0x0001000003f1-0x0025000014f3" and
// died with "Tracer caught signal 11" in about half of the runs of
// tests/cpu/eigen_kernels.mlir on mstd:2. Not tracking __tls_get_addr
// avoids the bad records (the scan then skips dynamic TLS: memory reachable
// only from a loaded library's thread-locals would be reported as leaked,
// not missed). Flags in ASAN_OPTIONS still apply on top of these.
extern "C" const char* __asan_default_options() { return "intercept_tls_get_addr=0"; }
#endif
