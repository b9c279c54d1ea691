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
  bool earliest;
  TimerId id;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = next_id_++;
    auto [it, inserted] = timers_.emplace(std::make_pair(deadline, id), std::move(callback));
    deadlines_.emplace(id, deadline);
    earliest = it == timers_.begin();
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  }
  // The timer thread sleeps until the earliest deadline: only a new
  // earliest one needs to wake it (a later one is found when it wakes).
  if (earliest) changed_.notify_all();
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
    deadlines_.erase(timers_.begin()->first.second);
    timers_.erase(timers_.begin());
    lock.unlock();
    callback();
    callback.reset();
    lock.lock();
  }
}

}  // namespace bef
