// libm, loaded on first use, for bef_executor.
//
// Why: the dynamic loader maps every library the executable names before
// main, and loading libm.so.6 costs about 40 µs of each start on the
// project's machine class (an empty C program takes 0.90 ms with it,
// 0.86 without; docs/performance.md), while an empty BEF program calls
// none of its functions. The only libm functions bef_executor refers to
// come from Abseil's archives (log2 for hash-table sampling, nan and nanf
// for parsing "nan(...)"), from tfrt_test.benchmark (llround) and from
// tfrt_test.softmax_inplace.f32 (expf). This file defines those five, so
// the link no longer needs libm; each loads
// libm.so.6 on its first call and calls libm's own function, so results
// are exactly libm's. Runs that load it anyway: those reporting an error
// (a status payload is a Cord, and Abseil's sampling of a thread's first
// Cord calls log2; the dlopen makes such a run ~0.05 ms slower than with
// libm linked), tfrt_test.benchmark's (after measuring) and a softmax's.
//
// Only executables should link this (it defines C library names; shared
// libraries keep their own references to libm). bef_executor's link finds
// no libm (tools/startup_link/libm.so), so code calling another libm
// function fails to link with an undefined reference to it: add it here.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace {

void* Libm() {
  static void* const libm = [] {
    void* handle = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = dlerror();
      std::fprintf(stderr, "cannot load libm.so.6: %s\n", error ? error : "unknown error");
      std::abort();
    }
    return handle;
  }();
  return libm;
}

// The function `name` of libm itself (dlsym with libm's handle searches
// libm and its dependencies, never this executable).
template <typename Function>
Function Resolve(const char* name) {
  void* function = dlsym(Libm(), name);
  if (function == nullptr) {
    std::fprintf(stderr, "libm.so.6 has no %s\n", name);
    std::abort();
  }
  return reinterpret_cast<Function>(function);
}

}  // namespace

extern "C" {

double log2(double x) noexcept {
  static const auto libm_log2 = Resolve<double (*)(double)>("log2");
  return libm_log2(x);
}

long long llround(double x) noexcept {  // NOLINT(runtime/int): libm's type
  static const auto libm_llround = Resolve<long long (*)(double)>("llround");  // NOLINT
  return libm_llround(x);
}

double nan(const char* tag) noexcept {
  static const auto libm_nan = Resolve<double (*)(const char*)>("nan");
  return libm_nan(tag);
}

float expf(float x) noexcept {
  static const auto libm_expf = Resolve<float (*)(float)>("expf");
  return libm_expf(x);
}

float nanf(const char* tag) noexcept {
  static const auto libm_nanf = Resolve<float (*)(const char*)>("nanf");
  return libm_nanf(tag);
}

}  // extern "C"
