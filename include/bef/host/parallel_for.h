// Splitting one kernel's work over the host's work-queue threads.
//
//   absl::StatusOr<AsyncValueRef<Chain>> done = ParallelFor(
//       host, rows, /*min_block=*/64,
//       [keep = buffer.CopyRef(), ...](int64_t begin, int64_t end) -> absl::Status {
//         ... rows [begin, end) ...
//       });
//
// ParallelFor calls body(begin, end) on disjoint ranges that cover [0,
// count): at most one range per work-queue thread and none shorter than
// min_block (so a small kernel is one call, with no task and no
// allocation). The calling thread runs the first range itself; the others
// go to the queue as parallel work (HostContext::EnqueueParallelWork), so
// a kernel on `mstd:2` uses both threads and no thread pool but the
// executor's. The result is a chain available once every range has run,
// or the first error a range returned; when the work was one range, that
// range has run on return and the result is the ready chain or the error
// itself.
//
// The body is copied once into state shared by the ranges: it must own
// (hold references to) what it reads and writes, because the kernel's
// operands may be released as soon as the kernel returns.
#ifndef BEF_HOST_PARALLEL_FOR_H_
#define BEF_HOST_PARALLEL_FOR_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/host_context.h"

namespace bef {

namespace internal {

template <typename Body>
struct ParallelForState {
  ParallelForState(Body body, int pending) : body(std::move(body)), pending(pending) {}

  // One range has run with `status`; the last makes `done` available.
  void Finish(absl::Status status) {
    if (!status.ok() && !failed.exchange(true, std::memory_order_acq_rel)) {
      error = std::move(status);  // only the first failure writes it
    }
    if (pending.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    if (failed.load(std::memory_order_acquire)) {
      done.SetError(std::move(error));
    } else {
      done.emplace();
    }
  }

  Body body;
  std::atomic<int> pending;
  std::atomic<bool> failed{false};
  absl::Status error;
  AsyncValueRef<Chain> done = MakeUnconstructedAsyncValueRef<Chain>();
};

}  // namespace internal

template <typename Body>
absl::StatusOr<AsyncValueRef<Chain>> ParallelFor(HostContext* host, int64_t count,
                                                 int64_t min_block, Body body) {
  const int64_t threads = std::max(host->GetNumWorkerThreads(), 1);
  const int64_t ranges =
      std::clamp<int64_t>(count / std::max<int64_t>(min_block, 1), 1, threads);
  if (ranges == 1) {
    if (count > 0) {
      if (absl::Status status = body(int64_t{0}, count); !status.ok()) return status;
    }
    return GetReadyChain();
  }
  const int64_t size = (count + ranges - 1) / ranges;
  auto state = std::make_shared<internal::ParallelForState<Body>>(std::move(body),
                                                                  static_cast<int>(ranges));
  AsyncValueRef<Chain> done = state->done.CopyRef();
  for (int64_t range = 1; range < ranges; ++range) {
    const int64_t begin = range * size;
    const int64_t end = std::min(count, begin + size);
    host->EnqueueParallelWork([state, begin, end] {
      state->Finish(begin < end ? state->body(begin, end) : absl::OkStatus());
    });
  }
  state->Finish(state->body(int64_t{0}, std::min(count, size)));
  return done;
}

}  // namespace bef

#endif  // BEF_HOST_PARALLEL_FOR_H_
