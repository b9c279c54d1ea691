// SpinLock: a scoped lock on an std::atomic<bool> for critical sections of a
// few instructions (a queue's push or pop, a list head's swap), where a
// mutex would put a contended thread to sleep for far longer than the
// section lasts. A waiter spins briefly, then yields its time slice: a
// holder preempted while it holds the lock (more threads than cores) is
// waited for without burning the waiter's slice.
//
//   std::atomic<bool> locked{false};
//   { SpinLock lock(locked); queue.push_back(task); }
#ifndef BEF_SUPPORT_SPIN_LOCK_H_
#define BEF_SUPPORT_SPIN_LOCK_H_

#include <atomic>
#include <thread>

namespace bef {

class SpinLock {
 public:
  explicit SpinLock(std::atomic<bool>& locked) : locked_(locked) { Acquire(locked_); }
  ~SpinLock() { Release(locked_); }
  // The same, unscoped: for a lock held across calls (fork handlers that
  // take it before fork and give it back after, test hooks).
  static void Acquire(std::atomic<bool>& locked) {
    for (int spins = 0; locked.exchange(true, std::memory_order_acquire);) {
      while (locked.load(std::memory_order_relaxed)) {
        if (++spins < kSpinsBeforeYield) {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        } else {
          std::this_thread::yield();
        }
      }
    }
  }
  static void Release(std::atomic<bool>& locked) {
    locked.store(false, std::memory_order_release);
  }
  SpinLock(const SpinLock&) = delete;
  SpinLock& operator=(const SpinLock&) = delete;

 private:
  static constexpr int kSpinsBeforeYield = 64;
  std::atomic<bool>& locked_;
};

}  // namespace bef

#endif  // BEF_SUPPORT_SPIN_LOCK_H_
