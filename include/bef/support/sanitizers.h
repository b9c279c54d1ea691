// Hooks into the sanitizers that are no-ops in normal builds.
#ifndef BEF_SUPPORT_SANITIZERS_H_
#define BEF_SUPPORT_SANITIZERS_H_

extern "C" void __lsan_ignore_object(const void* p) __attribute__((weak));

namespace bef {

// Tells LeakSanitizer that `pointer` is leaked on purpose (test kernels that
// leak to exercise the leak-check allocator).
inline void IgnoreIntentionalLeak(const void* pointer) {
  if (&__lsan_ignore_object != nullptr) __lsan_ignore_object(pointer);
}

}  // namespace bef

#endif  // BEF_SUPPORT_SANITIZERS_H_
