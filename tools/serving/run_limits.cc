#include "tools/serving/run_limits.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "absl/time/clock.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/host_context.h"

namespace bef::serving {

RunLimits::~RunLimits() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    exiting_ = true;
  }
  wake_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

absl::Time RunLimits::Deadline(std::optional<absl::Time> requested) const {
  absl::Time longest = absl::Now() + max_run_time;
  return requested ? std::min(*requested, longest) : longest;
}

void RunLimits::StopAt(absl::Time when) {
  int64_t expected = kNever;
  stop_nanos_.compare_exchange_strong(expected, absl::ToUnixNanos(when),
                                      std::memory_order_acq_rel);
}

absl::Status RunLimits::StopStatus() const {
  int64_t stop = stop_nanos_.load(std::memory_order_acquire);
  if (stop == kNever || absl::ToUnixNanos(absl::Now()) < stop) return absl::OkStatus();
  return absl::UnavailableError(
      "the server is stopping: the run did not end within the drain time (--drain_secs)");
}

void RunLimits::Watch(Watched* run) {
  std::lock_guard<std::mutex> lock(mutex_);
  run->next = watched_;
  if (watched_ != nullptr) watched_->previous = run;
  watched_ = run;
  if (!watchdog_.joinable()) watchdog_ = std::thread([this] { WatchdogLoop(); });
}

void RunLimits::Unwatch(Watched* run) {
  // Under the mutex: the watchdog never calls a stop check that is gone.
  std::lock_guard<std::mutex> lock(mutex_);
  if (run->previous != nullptr) run->previous->next = run->next;
  if (run->next != nullptr) run->next->previous = run->previous;
  if (watched_ == run) watched_ = run->next;
}

void RunLimits::WatchdogLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, absl::ToChronoNanoseconds(kStopPollInterval),
                         [this] { return exiting_; })) {
    absl::Status server_stop = StopStatus();
    const auto now = std::chrono::steady_clock::now();
    for (Watched* run = watched_; run != nullptr; run = run->next) {
      if (run->cancelled) continue;
      absl::Status status = server_stop;
      if (status.ok() && *run->stop && now >= run->ask_stop_from) status = (*run->stop)();
      if (!status.ok()) {
        run->request->Cancel(std::move(status));
        run->cancelled = true;
      }
    }
  }
}

void RunLimits::Run(FunctionRun& run, std::optional<absl::Time> requested_deadline,
                    const StopCheck& stop, ShortRunStreak* streak) {
  std::span<RCReference<AsyncValue>> results = run.results();
  if (absl::Status stopping = StopStatus(); !stopping.ok()) {
    for (auto& result : results) result = MakeErrorAsyncValueRef(stopping);
    return;
  }
  RequestContext& request = run.request();
  request.SetDeadline(Deadline(requested_deadline));
  const auto start = std::chrono::steady_clock::now();
  Watched watched{&request, &stop, start + absl::ToChronoNanoseconds(kStopCheckAge)};
  Watch(&watched);
  run.Execute();
  // Until the results are available or the request is cancelled (its
  // deadline, the watchdog): a run with a kernel that never completes a
  // result still ends, its pending results the cancellation's error.
  const RCReference<AsyncValue> done = run.Done();
  WaitForAll({&done, 1}, run.request().host()->work_queue());
  run.Settle();
  if (streak != nullptr) {
    streak->Observe(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  Unwatch(&watched);
  if (int error = run.FirstErrorResult(); error >= 0) {
    absl::StatusCode code = results[error]->GetErrorInfo().status.code();
    if (code == absl::StatusCode::kCancelled || code == absl::StatusCode::kDeadlineExceeded ||
        code == absl::StatusCode::kUnavailable) {
      cancelled_.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

void WaitForAll(std::span<const RCReference<AsyncValue>> values, ConcurrentWorkQueue& queue) {
  struct Latch {
    std::mutex mutex;
    std::condition_variable done;
    size_t pending = 0;
  };
  bool all_available = true;
  for (const RCReference<AsyncValue>& value : values) all_available &= value->IsAvailable();
  if (all_available) return;  // a short run's usual case: no latch
  auto latch = std::make_shared<Latch>();
  latch->pending = values.size();
  for (const RCReference<AsyncValue>& value : values) {
    value->AndThen([latch] {
      std::lock_guard<std::mutex> lock(latch->mutex);
      if (--latch->pending == 0) latch->done.notify_all();
    });
  }
  std::unique_lock<std::mutex> lock(latch->mutex);
  while (latch->pending != 0) {
    lock.unlock();
    // Help while the run's work (or anyone's) waits for a compute thread.
    while (queue.RunPendingTask()) {
      std::lock_guard<std::mutex> check(latch->mutex);
      if (latch->pending == 0) return;
    }
    lock.lock();
    latch->done.wait_for(lock, kHelpPollInterval, [&] { return latch->pending == 0; });
  }
}

}  // namespace bef::serving
