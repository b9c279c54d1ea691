// Splitting one kernel's work over the host's work-queue threads: a
// fork-join, as oneDNN's and ONNX Runtime's thread pools run a layer.
//
//   BEF_RETURN_IF_ERROR(ParallelFor(host, rows, /*min_block=*/64,
//       [&](int64_t begin, int64_t end) -> absl::Status {
//         ... rows [begin, end) ...
//       }));
//   return Chain();  // every row is written
//
// ParallelFor calls body(begin, end) on disjoint ranges that cover [0,
// count): at most one range per work-queue thread and none shorter than
// min_block (so a small kernel is one call, with no task and no
// allocation). It returns when every range has run, with the first error
// a range returned: the kernel is synchronous, its outputs written on
// return, and what follows it runs on the calling thread.
//
// Kernels splitting at the same time share the threads: a split that begins
// while K others are running takes at most threads / (K + 1) ranges, so two
// requests served at once on `mstd:2` (bef_serve's I/O threads each running
// a model) run their layers whole, each on its own core, instead of four
// threads taking turns on two cores and waiting on each other's halves.
//
// The calling thread runs the first range itself and offers the others to
// the queue as parallel work (HostContext::EnqueueParallelWork), so a
// kernel on `mstd:2` uses both threads and no thread pool but the
// executor's. Ranges are *claimed*: a queue thread that starts one of
// these tasks claims the next unclaimed range, and the caller, its own
// range done, claims and runs every range no thread has started. So a
// split never costs more than the work itself when the other threads are
// busy or asleep (the caller does it all, the tasks find nothing left),
// and the caller waits only for ranges another thread is running -- spin,
// then yield -- never for a task still in the queue. The range a thread
// gets is stable from run to run when the other thread is free (the caller
// the first, the other the second): each keeps its share of a layer's
// weights in its own cache.
//
// The body is called only while ParallelFor runs (a task that finds no
// range left does not touch it), so it may capture by reference.
#ifndef BEF_HOST_PARALLEL_FOR_H_
#define BEF_HOST_PARALLEL_FOR_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "bef/host/host_context.h"

namespace bef {

namespace internal {

// What the caller and the queue's tasks share: the next range to claim and
// how many have run. On the heap: a task may start after ParallelFor has
// returned (and then finds no range to claim).
struct ParallelForRanges {
  ParallelForRanges(int64_t count, int64_t ranges)
      : count(count), size((count + ranges - 1) / ranges), ranges(ranges) {}

  // Claims and runs ranges until none is left.
  template <typename Body>
  void RunClaimed(Body& body) {
    while (true) {
      const int64_t range = next.fetch_add(1, std::memory_order_relaxed);
      if (range >= ranges) return;
      const int64_t begin = range * size;
      const int64_t end = std::min(count, begin + size);
      absl::Status status = begin < end ? body(begin, end) : absl::OkStatus();
      if (!status.ok() && !failed.exchange(true, std::memory_order_acq_rel)) {
        error = std::move(status);  // only the first failure writes it
      }
      finished.fetch_add(1, std::memory_order_release);
    }
  }

  // Waits for the ranges other threads claimed (each is running).
  void AwaitFinished() const {
    for (int spins = 0; finished.load(std::memory_order_acquire) < ranges; ++spins) {
      if (spins < 4096) {
        __builtin_ia32_pause();
      } else {
        std::this_thread::yield();
      }
    }
  }

  const int64_t count;
  const int64_t size;
  const int64_t ranges;
  std::atomic<int64_t> next{0};
  alignas(64) std::atomic<int64_t> finished{0};
  std::atomic<bool> failed{false};
  absl::Status error;
};

}  // namespace internal

template <typename Body>
absl::Status ParallelFor(HostContext* host, int64_t count, int64_t min_block, Body&& body) {
  const int64_t threads = std::max(host->GetNumWorkerThreads(), 1);
  int64_t ranges = std::clamp<int64_t>(count / std::max<int64_t>(min_block, 1), 1, threads);
  if (ranges == 1) {
    return count > 0 ? body(int64_t{0}, count) : absl::OkStatus();
  }
  // This split's share of the threads.
  struct Split {
    explicit Split(HostContext* host) : host(host), others(host->BeginSplit()) {}
    ~Split() { host->EndSplit(); }
    HostContext* const host;
    const int others;
  } split(host);
  ranges = std::min(ranges, std::max<int64_t>(threads / (split.others + 1), 1));
  if (ranges == 1) return body(int64_t{0}, count);
  auto shared = std::make_shared<internal::ParallelForRanges>(count, ranges);
  // The body stays here: a task reaches it only through a claimed range,
  // and this call returns after every claimed range has finished.
  auto* const body_here = &body;
  for (int64_t range = 1; range < ranges; ++range) {
    host->EnqueueParallelWork([shared, body_here] { shared->RunClaimed(*body_here); });
  }
  shared->RunClaimed(body);
  shared->AwaitFinished();
  if (shared->failed.load(std::memory_order_acquire)) return std::move(shared->error);
  return absl::OkStatus();
}

}  // namespace bef

#endif  // BEF_HOST_PARALLEL_FOR_H_
