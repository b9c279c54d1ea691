// RunLimits: what bounds every run bef_serve starts, and how a run is ended
// from outside (docs/serving.md, "Limits and timeouts"; docs/reliability.md,
// "Every run ends").
//
// A run ends by itself, or is cancelled (RequestContext::Cancel) by
//   - its deadline: the client's (`timeout_ms`, a gRPC deadline,
//     `deadline_ms`) capped by `max_run_time` (DEADLINE_EXCEEDED);
//   - its caller's stop check: an HTTP client that closed its connection, a
//     cancelled gRPC call (CANCELLED);
//   - the server's stop (StopAt, at the end of the drain): every run still
//     going, and any started later, ends with UNAVAILABLE.
// Stop checks are asked by one watchdog thread per RunLimits, every
// kStopPollInterval, for every run that has gone on for kStopCheckAge: a
// run shorter than that is never ended by its client's leaving. (An HTTP
// client that half-closes its side after its request is still waiting, but
// TCP cannot tell it from one that left: it gets the answer of a short run
// whenever the half-close arrives; a longer run is cancelled, as nginx and
// Go's net/http cancel it.) A run may hold the thread
// that started it for good (the executor runs a function inline as far as
// it can, a loop without end included), so no one can rely on that thread
// to look. The executor looks at cancellation between kernels (every kernel
// through a frame, every kCancellationInterval kernels of a straight line,
// every loop iteration), so a cancelled run ends within about one kernel's
// time; a kernel that itself blocks for good is not interrupted.
//
// Thread-safety: every method may be called from any thread.
#ifndef BEF_TOOLS_SERVING_RUN_LIMITS_H_
#define BEF_TOOLS_SERVING_RUN_LIMITS_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "bef/async/async_value.h"
#include "bef/async/rc_reference.h"
#include "bef/host/execution_context.h"
#include "bef/host/function.h"
#include "bef/host/function_run.h"
#include "bef/host/work_queue.h"
#include "tools/serving/byte_budget.h"

namespace bef::serving {

// How often the watchdog asks whether a run must end.
inline constexpr absl::Duration kStopPollInterval = absl::Milliseconds(20);
// How long a run goes on before its stop check is first asked (the
// server's stop and deadlines apply from its start).
inline constexpr absl::Duration kStopCheckAge = absl::Milliseconds(250);

// OK while the run may go on; otherwise the status it is cancelled with.
using StopCheck = std::function<absl::Status()>;

// Whether a program's runs are known to be short: each of its last
// kStreak runs took under kShortNanos. The HTTP front end runs requests of
// such a program (a model version, the /v1/ program) on its I/O thread
// instead of handing them to a worker (Route::run_inline_when): a tiny
// request then costs no thread hand-off. One longer run makes it not known
// short until the next streak; a program starts not known short.
class ShortRunStreak {
 public:
  static constexpr uint32_t kStreak = 16;
  static constexpr int64_t kShortNanos = 500'000;

  bool known_short() const { return streak_.load(std::memory_order_relaxed) >= kStreak; }
  // Counts a run that took `nanos`.
  void Observe(int64_t nanos) {
    if (nanos >= kShortNanos) {
      streak_.store(0, std::memory_order_relaxed);
    } else if (streak_.load(std::memory_order_relaxed) < kStreak) {
      streak_.fetch_add(1, std::memory_order_relaxed);
    }
  }

 private:
  std::atomic<uint32_t> streak_{0};  // consecutive short runs (saturating)
};

class RunLimits {
 public:
  RunLimits() = default;
  ~RunLimits();
  RunLimits(const RunLimits&) = delete;
  RunLimits& operator=(const RunLimits&) = delete;

  // Every run's deadline is at most this far away (--max_run_secs).
  absl::Duration max_run_time = absl::Minutes(5);
  // Files larger than these are not loaded (--max_model_bytes; config.json).
  uint64_t max_model_bytes = uint64_t{1} << 30;
  uint64_t max_config_bytes = uint64_t{1} << 20;
  // The bytes of answers being built or written at once, server-wide
  // (--max_response_bytes; byte_budget.h): an answer reserves an upper
  // bound of its size before it is built and holds its size until written,
  // however slowly its client reads. The default holds a 16 MiB tensor's
  // answer in any form (16 Mi INT8 elements as JSON text: 80 MiB) twice
  // over with room to spare.
  static constexpr uint64_t kDefaultResponseBytes = uint64_t{256} << 20;
  ByteBudget response_bytes{kDefaultResponseBytes};

  // The deadline of a run starting now that the client wants to end at
  // `requested` (nullopt: no wish).
  absl::Time Deadline(std::optional<absl::Time> requested) const;

  // From `when` on, every run in progress is cancelled and new ones end at
  // once (UNAVAILABLE). The first call wins.
  void StopAt(absl::Time when);
  // UNAVAILABLE once the stop time has come, else OK.
  absl::Status StopStatus() const;

  // The id of a new run's RequestContext: one counter for every API's runs.
  int64_t NextRequestId() { return next_request_id_.fetch_add(1, std::memory_order_relaxed); }

  // Runs that ended cancelled, past their deadline or stopped
  // (bef_serve_cancelled_total).
  uint64_t cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

  // Executes `run` under these limits and waits for every result, or for
  // its cancellation (then what is pending is the cancellation's error): its
  // request's deadline is `requested_deadline` capped by max_run_time; while
  // it runs, the watchdog asks the server's stop and `stop` (may be empty)
  // whether it must end. A run started after the stop fails at once (every
  // result UNAVAILABLE). How long it took goes to `streak` (may be null).
  // The one run path of every bef_serve API.
  void Run(FunctionRun& run, std::optional<absl::Time> requested_deadline, const StopCheck& stop,
           ShortRunStreak* streak);

 private:
  // A run the watchdog looks after (a node of an intrusive list).
  struct Watched {
    RequestContext* request;
    const StopCheck* stop;
    // When the stop check is first asked (the start plus kStopCheckAge).
    std::chrono::steady_clock::time_point ask_stop_from;
    bool cancelled = false;
    Watched* previous = nullptr;
    Watched* next = nullptr;
  };
  void Watch(Watched* run);
  void Unwatch(Watched* run);
  void WatchdogLoop();

  static constexpr int64_t kNever = INT64_MAX;
  std::atomic<int64_t> stop_nanos_{kNever};  // absl::ToUnixNanos of StopAt
  std::atomic<uint64_t> cancelled_{0};
  std::atomic<int64_t> next_request_id_{1};

  std::mutex mutex_;  // guards the list and the thread's state
  std::condition_variable wake_;
  Watched* watched_ = nullptr;
  bool exiting_ = false;
  std::thread watchdog_;  // started with the first run
};

// Returns once every value is available (from any thread). While some are
// not, the calling thread runs compute tasks waiting in `queue`
// (ConcurrentWorkQueue::RunPendingTask), and blocks only when none waits
// (looking again every kHelpPollInterval): a request's run never waits for
// a compute thread behind other requests' long kernels while its own
// thread sits idle (an inline run on an I/O thread, or a worker's).
inline constexpr std::chrono::milliseconds kHelpPollInterval(2);
void WaitForAll(std::span<const RCReference<AsyncValue>> values, ConcurrentWorkQueue& queue);

}  // namespace bef::serving

#endif  // BEF_TOOLS_SERVING_RUN_LIMITS_H_
