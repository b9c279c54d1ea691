// The deferred step runner of an execution (private to lib/executor): the
// room of the segment runner that runs a segment's deferred and async call
// steps from work-queue tasks and resumes the segment after each
// (execution_plan.h "Deferred steps" and "Async call steps",
// docs/executor-semantics.md §14.4).
//
// A segment reaching a deferred step (a kernel with a deferred direct entry
// point) or an async call step (a kernel that may reach the work queue)
// stops there; the step joins the processing loop's pending steps
// (AddDeferredStep), which go to the work queue as one task right before
// anything else is enqueued or the loop ends (FlushSteps, EnqueueSteps):
// where their own tasks would have gone. The task (Run) runs each step,
// then its segment from the next kernel on, then the steps those reached,
// for as long as the queue would run their task next on this thread anyway.
// An async call step's kernel runs when the segment reaches it
// (RunAsyncCall), with what it hands the work queue kept in a CapturedWork
// (host_context.h): one piece of work or one task filling its one result
// becomes a step of its own; anything else goes to the queue as the
// kernel's tasks would have, and its results are made of what it did.
//
// The runner reaches its invocation only through the interface the
// Invocation declares for it (invocation_internal.h, "The deferred step
// runner's side"): the plan, the payload registers, the attribute pool, the
// policy, the context and the program; ContinueSegment, FinishCall and
// TakeCallOutcome (a segment on after a step); SegmentFrom and
// SegmentAfterCall (the kernels after a step one by one); FlushOutline and
// ProcessReady (the processing loop); and BecomeConcurrent, AddRef and
// DropRef (a task of its own).
#ifndef BEF_LIB_EXECUTOR_DEFERRED_STEP_RUNNER_H_
#define BEF_LIB_EXECUTOR_DEFERRED_STEP_RUNNER_H_

#include <cstddef>
#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "bef/async/async_value.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_registry.h"

namespace bef::invocation_internal {

class Invocation;
struct ReadyQueue;
struct CallOutcome;

// Where a segment resumes after a deferred step (DeferredStepRunner::Run).
struct DeferredResume {
  uint32_t segment = 0;
  uint32_t position = 0;  // of the step
  uint32_t next_export = 0;
  uint32_t deferred = 0;  // the step's index in segment_deferred
  uint32_t stream = 0;
  // An async call step (RunAsyncCall): what its kernel left for the work
  // queue, owned by the step until its task runs it; null for a deferred
  // step. Out of line (a value-memory block): a task of steps must stay
  // small enough for TaskFunction's inline storage.
  internal::CapturedWork* captured = nullptr;
};
// The memory of a batch of deferred steps: value memory (per-thread free
// lists with cross-thread batches, async_value.h). A fan-out keeps hundreds
// of batches in flight at once, more than malloc's per-thread cache holds
// (7 blocks a size): from malloc every batch cost its slow path, about 700
// instructions for the allocation and the free (callgrind, async_fanout).
template <typename T>
struct ValueMemoryAllocator {
  using value_type = T;
  ValueMemoryAllocator() = default;
  template <typename U>
  ValueMemoryAllocator(const ValueMemoryAllocator<U>&) {}  // NOLINT: rebinding
  T* allocate(size_t count) {
    return static_cast<T*>(internal::AllocateValueMemory(count * sizeof(T)));
  }
  void deallocate(T* pointer, size_t count) {
    internal::FreeValueMemory(pointer, count * sizeof(T));
  }
  friend bool operator==(const ValueMemoryAllocator&, const ValueMemoryAllocator&) {
    return true;
  }
};
// Deferred steps reached one after another and not enqueued yet. Their
// tasks would be consecutive in the work queue, so one task runs them in
// order (§14.4): they go to the work queue together right before the
// thread enqueues anything else or runs anything that might, or when the
// processing loop ends, which is where their own tasks would have gone.
// One inline: a lone step costs no allocation.
using DeferredSteps =
    absl::InlinedVector<DeferredResume, 1, ValueMemoryAllocator<DeferredResume>>;
// The most deferred steps one task runs: the rest go in the next task, so
// on a queue of several threads a long fan-out still spreads out. 32 steps
// (1,024 bytes) are value memory's largest size class; a larger block
// would come from malloc.
constexpr size_t kMaxDeferredStepsPerTask = 32;
static_assert(sizeof(DeferredResume) * kMaxDeferredStepsPerTask <=
              internal::kValueGranule * internal::kValueSizeClasses);
static_assert(alignof(DeferredResume) <= internal::kValueGranule);


class DeferredStepRunner {
 public:
  explicit DeferredStepRunner(Invocation* invocation) : invocation_(invocation) {}
  DeferredStepRunner(const DeferredStepRunner&) = delete;
  DeferredStepRunner& operator=(const DeferredStepRunner&) = delete;

  // Adds the deferred step that is the next kernel of a segment to the
  // loop's pending steps.
  [[gnu::always_inline]] inline void AddDeferredStep(ReadyQueue& queue,
                                                     const DeferredResume& step);
  // Enqueues the loop's pending deferred steps: before anything else is
  // enqueued or anything runs that might enqueue.
  [[gnu::always_inline]] inline void FlushSteps(ReadyQueue& queue);
  // Enqueues one task for `steps` (left empty).
  void EnqueueSteps(DeferredSteps& steps);
  // Runs the async call step at `position` (the segment's next deferred
  // position, its exports before it done): the kernel now, the first task it
  // enqueues as a deferred step of its own with the kernel's users after it.
  [[gnu::always_inline]] inline void RunAsyncCall(ReadyQueue& queue, uint32_t segment,
                                                  uint32_t position, uint32_t next_export,
                                                  uint32_t next_deferred);

 private:
  // The task of consecutive deferred steps: runs each, then its segment
  // from the next kernel on; then the steps those reached, and so on,
  // while the work queue would run their task next here anyway.
  void Run(DeferredSteps steps);
  // The rest of an async call step whose kernel did anything but hand back
  // one value its one piece of work fills: `captured`'s work and tasks go to
  // the work queue, its results are made of what it did (`complete`: every
  // result's payload in its register).
  [[gnu::noinline]] void FinishAsyncCallSlowly(ReadyQueue& queue, uint32_t s, uint32_t at,
                                               uint32_t next_export, uint32_t next_deferred,
                                               bool complete, internal::CapturedWork* captured);
  // The result an async call step's work or task fills, and the results the
  // kernel wrote before it returned: kept in the block's executor word.
  static inline void SetCapturedResult(internal::CapturedWork& captured,
                                       uint32_t valued_result, uint32_t emplaced);
  [[gnu::always_inline]] inline void AddCapturedStep(ReadyQueue& queue, uint32_t s, uint32_t at,
                                                     uint32_t next_export,
                                                     uint32_t next_deferred,
                                                     internal::CapturedWork* captured);
  // The kernel's work and tasks to the work queue, as they would have gone
  // outside the executor (the block then freed, or the value's own memory).
  void EnqueueCaptured(internal::CapturedWork& captured);
  [[gnu::always_inline]] static inline void FreeCaptured(internal::CapturedWork* captured);
  // An async call step's own step: the kernel's work or task, then its users.
  [[gnu::always_inline]] inline void RunCapturedStep(ReadyQueue& ready,
                                                     const DeferredResume& resume);
  // The rest of an async call step whose work failed or whose value cannot
  // be loaded into its register, or that runs where segments may not.
  [[gnu::noinline]] void FinishCapturedStep(ReadyQueue& ready, const DeferredResume& resume,
                                            CallOutcome outcome);

  Invocation* const invocation_;
};

}  // namespace bef::invocation_internal

#endif  // BEF_LIB_EXECUTOR_DEFERRED_STEP_RUNNER_H_
