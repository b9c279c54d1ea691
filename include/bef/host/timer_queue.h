// TimerQueue: runs callbacks at given times on one timer thread, started on
// first use. Used for request deadlines: a server sets one per request and
// cancels it when the request ends, so both cost O(log timers) and wake the
// timer thread only for a deadline earlier than the time it sleeps until
// (cancelling never wakes it: it wakes at the cancelled deadline, finds
// nothing due and sleeps again).
//
// Thread safety: all members may be called from any thread. A callback runs
// on the timer thread and must not block for long.
#ifndef BEF_HOST_TIMER_QUEUE_H_
#define BEF_HOST_TIMER_QUEUE_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bef/support/unique_function.h"

namespace bef {

class TimerQueue {
 public:
  using TimerId = uint64_t;

  TimerQueue() = default;
  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;
  // Drops pending timers without running them.
  ~TimerQueue();

  // Schedules `callback` at `deadline` (as soon as possible if it has
  // passed). The returned id is never 0.
  TimerId ScheduleAt(absl::Time deadline, UniqueFunction<void()> callback);
  // Cancels a timer; false if it already ran, is running, or is unknown.
  bool Cancel(TimerId id);

 private:
  void Loop();

  std::mutex mutex_;
  std::condition_variable changed_;
  // Ordered by (deadline, id).
  std::map<std::pair<absl::Time, TimerId>, UniqueFunction<void()>> timers_;
  // Per pending timer, its deadline (its key in timers_).
  std::unordered_map<TimerId, absl::Time> deadlines_;
  TimerId next_id_ = 1;
  // When the timer thread wakes by itself: the deadline it sleeps until,
  // infinite while it waits for a first timer (or before it runs).
  absl::Time wake_at_ = absl::InfiniteFuture();
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace bef

#endif  // BEF_HOST_TIMER_QUEUE_H_
