// The deferred step runner of an execution (private to lib/executor): the
// room of the segment runner that runs a segment's async call steps, their
// deferred steps from work-queue tasks, and resumes the segment after each
// (execution_plan.h "Async call steps", docs/executor-semantics.md §14.4).
//
// A segment reaching an async call step (a kernel that may reach the work
// queue, known by its signature) stops there and calls the kernel
// (RunAsyncCall), with what it hands the work queue kept in a CapturedWork
// (host_context.h): one piece of work or one task filling its one result
// becomes a deferred step, which joins the processing loop's pending steps
// (AddDeferredStep); they go to the work queue as one task right before
// anything else is enqueued or the loop ends (FlushSteps, EnqueueSteps):
// where their own tasks would have gone. A work small enough waits in its
// result's register, and the capture block stays with the loop for the
// next call. The task (Run) runs each step, then its segment from the next
// kernel on, then the steps those reached, for as long as the queue would
// run their task next on this thread anyway. Anything else a kernel does
// goes to the queue as its tasks would have, and its results are made of
// what it did.
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

// A deferred step: an async call step's work or task, and where its
// segment resumes after it (DeferredStepRunner::Run).
struct DeferredResume {
  // `async_call`: which result the work or task fills (bits 0-7), the
  // results the kernel wrote before it returned (bits 8-15), and this flag:
  // the work waits in that result's payload register (its bytes, as
  // EnqueueWork made them: CapturedWork::work_fits_register) and `run` runs
  // it there. Otherwise the step owns `captured`.
  static constexpr uint32_t kWorkInRegister = 1u << 30;

  uint32_t segment = 0;
  uint32_t position = 0;  // of the step
  uint32_t next_export = 0;
  uint32_t deferred = 0;  // the step's index in segment_deferred
  uint32_t stream = 0;
  uint32_t async_call = 0;
  union {
    // What the kernel left for the work queue, owned by the step until its
    // task runs it. Out of line (a value-memory block): a task of steps
    // must stay small enough for TaskFunction's inline storage.
    internal::CapturedWork* captured = nullptr;
    internal::CapturedWork::Run run;  // kWorkInRegister
  };
};
static_assert(sizeof(DeferredResume) == 32, "a batch of them is a value-memory block");
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


// Frees a capture block whose work ran or went to the work queue, or a
// processing loop's spare one (ReadyQueue::spare_capture): a value of
// EnqueueWork in it was never published and holds nothing.
inline void FreeCaptureBlock(internal::CapturedWork* captured) {
  captured->~CapturedWork();
  internal::FreeValueMemory(captured, sizeof(internal::CapturedWork));
}

class DeferredStepRunner {
 public:
  explicit DeferredStepRunner(Invocation* invocation) : invocation_(invocation) {}
  DeferredStepRunner(const DeferredStepRunner&) = delete;
  DeferredStepRunner& operator=(const DeferredStepRunner&) = delete;

  // Enqueues the loop's pending deferred steps: before anything else is
  // enqueued or anything runs that might enqueue.
  [[gnu::always_inline]] inline void FlushSteps(ReadyQueue& queue);
  // Enqueues one task for `steps` (left empty).
  void EnqueueSteps(DeferredSteps& steps);
  // Runs the async call step at `position` (the segment's next deferred
  // position, its exports before it done): the kernel now, its work or first
  // task as a deferred step with the kernel's users after it.
  [[gnu::always_inline]] inline void RunAsyncCall(ReadyQueue& queue, uint32_t segment,
                                                  uint32_t position, uint32_t next_export,
                                                  uint32_t next_deferred);

 private:
  // Adds a deferred step, the next kernel of a segment, to the loop's
  // pending steps.
  [[gnu::always_inline]] inline void AddDeferredStep(ReadyQueue& queue,
                                                     const DeferredResume& step);
  // The task of consecutive deferred steps: runs each (RunCapturedStep), then its segment
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
  // The async call step's own step (`async_call`: DeferredResume's word;
  // the block it owns, or with kWorkInRegister the work's `run`).
  [[gnu::always_inline]] inline void AddAsyncCallStep(ReadyQueue& queue, uint32_t s, uint32_t at,
                                                      uint32_t next_export,
                                                      uint32_t next_deferred,
                                                      uint32_t async_call,
                                                      internal::CapturedWork* captured,
                                                      internal::CapturedWork::Run run = nullptr);
  // The kernel's work and tasks to the work queue, as they would have gone
  // outside the executor (the block then freed, or the value's own memory).
  void EnqueueCaptured(internal::CapturedWork& captured);
  // A deferred step: the kernel's work or task, then its users.
  [[gnu::always_inline]] inline void RunCapturedStep(ReadyQueue& ready,
                                                     const DeferredResume& resume);
  // A deferred step of a task the kernel enqueued, filling its result
  // (`payload`'s register, of type `result_type`), then its users.
  [[gnu::always_inline]] inline void RunCapturedTask(ReadyQueue& ready,
                                                     const DeferredResume& resume,
                                                     uint16_t result_type, void* payload);
  // The rest of an async call step whose work ran (`error`: how it failed,
  // or null) where segments may not, or failed.
  [[gnu::noinline]] void FinishWorkStep(ReadyQueue& ready, const DeferredResume& resume,
                                        absl::Status* error);
  // The rest of an async call step whose work failed or whose value cannot
  // be loaded into its register, or that runs where segments may not.
  [[gnu::noinline]] void FinishCapturedStep(ReadyQueue& ready, const DeferredResume& resume,
                                            CallOutcome outcome);

  Invocation* const invocation_;
};

}  // namespace bef::invocation_internal

#endif  // BEF_LIB_EXECUTOR_DEFERRED_STEP_RUNNER_H_
