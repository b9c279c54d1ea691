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
  std::lock_guard<std::mutex> lock(mutex_);
  TimerId id = next_id_++;
  timers_.emplace(std::make_pair(deadline, id), std::move(callback));
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  changed_.notify_all();
  return id;
}

bool TimerQueue::Cancel(TimerId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = timers_.begin(); it != timers_.end(); ++it) {
    if (it->first.second == id) {
      timers_.erase(it);
      return true;
    }
  }
  return false;
}

void TimerQueue::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (timers_.empty()) {
      changed_.wait(lock);
      continue;
    }
    absl::Time next = timers_.begin()->first.first;
    if (absl::Now() < next) {
      // Woken early by a new timer or shutdown; the loop re-checks.
      changed_.wait_until(lock, absl::ToChronoTime(next));
      continue;
    }
    UniqueFunction<void()> callback = std::move(timers_.begin()->second);
    timers_.erase(timers_.begin());
    lock.unlock();
    callback();
    callback.reset();
    lock.lock();
  }
}

}  // namespace bef
