// BEF_DEBUG_CHECK(condition, message): an invariant the hot path relies on
// and the verifier or the executor's own bookkeeping guarantees (ready
// counts never below zero, an exclusive invocation touched by one thread,
// a register window in bounds). Checked in builds without NDEBUG (the test
// suite's normal and sanitizer passes): a violation prints the message and
// where, then aborts. Compiled out of optimized builds (-c opt), where the
// condition is not even compiled (it may name
// debug-only members).
#ifndef BEF_SUPPORT_DEBUG_CHECK_H_
#define BEF_SUPPORT_DEBUG_CHECK_H_

#ifdef NDEBUG
#define BEF_DEBUG_CHECK(condition, message) \
  do {                                      \
  } while (false)
#else
#include <cstdio>
#include <cstdlib>
#define BEF_DEBUG_CHECK(condition, message)                                         \
  do {                                                                              \
    if (!(condition)) [[unlikely]] {                                                \
      std::fprintf(stderr, "%s:%d: debug check failed: %s (%s)\n", __FILE__, __LINE__, \
                   message, #condition);                                            \
      std::abort();                                                                 \
    }                                                                               \
  } while (false)
#endif

#endif  // BEF_SUPPORT_DEBUG_CHECK_H_
