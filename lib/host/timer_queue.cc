#include "bef/host/timer_queue.h"

namespace bef {

TimerQueue::~TimerQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

TimerQueue::TimerId TimerQueue::ScheduleAt(absl::Time deadline,
                                           UniqueFunction<void()> callback) {
  bool wake;
  TimerId id;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = next_id_++;
    timers_.emplace(std::make_pair(deadline, id), std::move(callback));
    deadlines_.emplace(id, deadline);
    // The timer thread wakes by itself at wake_at_: a deadline at or after
    // it is found then. (A server whose requests run one after another sets
    // each one's deadline after the last one was cancelled: that deadline
    // is the earliest, but later than the one the thread sleeps toward.)
    wake = deadline < wake_at_;
    if (wake) wake_at_ = deadline;
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  }
  if (wake) changed_.notify_all();
  return id;
}

bool TimerQueue::Cancel(TimerId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = deadlines_.find(id);
  if (found == deadlines_.end()) return false;
  timers_.erase(std::make_pair(found->second, id));
  deadlines_.erase(found);
  return true;
}

void TimerQueue::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (timers_.empty()) {
      wake_at_ = absl::InfiniteFuture();
      changed_.wait(lock);
      continue;
    }
    absl::Time next = timers_.begin()->first.first;
    if (absl::Now() < next) {
      // Woken early by an earlier timer or shutdown; the loop re-checks.
      wake_at_ = next;
      changed_.wait_until(lock, absl::ToChronoTime(next));
      continue;
    }
    UniqueFunction<void()> callback = std::move(timers_.begin()->second);
    deadlines_.erase(timers_.begin()->first.second);
    timers_.erase(timers_.begin());
    lock.unlock();
    callback();
    callback.reset();
    lock.lock();
  }
}

}  // namespace bef
