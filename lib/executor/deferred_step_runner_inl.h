// The deferred step runner's inline members (deferred_step_runner.h): the
// ones the segment runner calls at every deferred or async call step, kept
// where it can inline them. Included by invocation_internal.h, after the
// Invocation whose interface they use.
#ifndef BEF_LIB_EXECUTOR_DEFERRED_STEP_RUNNER_INL_H_
#define BEF_LIB_EXECUTOR_DEFERRED_STEP_RUNNER_INL_H_

#include <bit>
#include <cstring>
#include <new>
#include <utility>

#include "lib/executor/invocation_internal.h"

namespace bef::invocation_internal {

inline void DeferredStepRunner::FlushSteps(ReadyQueue& queue) {
  if (!queue.steps->empty()) [[unlikely]] EnqueueSteps(*queue.steps);
}

inline void DeferredStepRunner::AddDeferredStep(ReadyQueue& queue, const DeferredResume& step) {
  // The deferred step is the next kernel to run: first the other streams'
  // ready kernels go to the work queue, then its task (with the steps
  // reached before it, if nothing was enqueued in between).
  if (!queue.outline_kernels.empty()) invocation_->FlushOutline(queue);
  DeferredSteps& steps = *queue.steps;
  // A second step: room for a task's worth at once (one heap block); the
  // first is inline (no allocation).
  if (steps.size() == 1) [[unlikely]] steps.reserve(kMaxDeferredStepsPerTask);
  // The fields stored into the vector's slot one by one: `step` is the
  // caller's object, just built by 4- and 8-byte stores, and push_back
  // copied it with 16-byte loads the store buffer cannot serve (a stall
  // per step; docs/performance.md, "Loads the store buffer can serve").
  DeferredResume& slot = steps.emplace_back();
  slot.segment = step.segment;
  slot.position = step.position;
  slot.next_export = step.next_export;
  slot.deferred = step.deferred;
  slot.stream = step.stream;
  slot.async_call = step.async_call;
  slot.captured = step.captured;
  if (steps.size() == kMaxDeferredStepsPerTask) [[unlikely]] EnqueueSteps(steps);
}

inline void DeferredStepRunner::RunAsyncCall(ReadyQueue& queue, uint32_t s, uint32_t at,
                                             uint32_t next_export, uint32_t next_deferred) {
  Invocation& invocation = *invocation_;
  // What the dataflow path does before it runs a kernel: other streams'
  // ready kernels go to the work queue (the deferred steps reached stay
  // pending: the kernel's task joins them, where it would have gone).
  if (!queue.outline_kernels.empty()) invocation.FlushOutline(queue);
  if (!invocation.policy().DirectKernelsAllowed()) [[unlikely]] {
    invocation.SegmentFrom(queue, s, at, next_export);
    return;
  }
  const ExecutionPlan::LineStep& line_step = invocation.plan()->segmented.steps[at];
  const ExecutionPlan::TryStep& step = line_step.linked_try_step();
  HostContext* const host = invocation.context()->host();
  const Location location{&invocation.program()->file(), step.location};
  // The loop's spare block, or a new one; whoever keeps it afterwards
  // takes it from the loop.
  internal::CapturedWork* captured = std::exchange(queue.spare_capture, nullptr);
  if (captured != nullptr) [[likely]] {
    captured->Reuse(host, location);
  } else {
    captured = ::new (internal::AllocateValueMemory(sizeof(internal::CapturedWork)))
        internal::CapturedWork(host, location);
  }
  // The kernel's `call` straight from here (not through RunTryStep, the
  // line's trampoline: the runner is already where a failure is handled).
  const void* operands[kMaxDirectArguments];
  invocation.SegmentCursor().Operands(line_step, operands);
  void* results[kMaxDirectResults];
  for (uint32_t i = 0; i < step.num_results; ++i)
    results[i] = invocation.payloads()[step.results[i]].bytes;
  DirectCall& call = internal::line_direct_call;
  BEF_DEBUG_CHECK(call.valued == 0 && call.ok(), "an async call step after an unread call");
  call.host = host;
  call.context = invocation.context();
  call.emplaced = 0;
  // (A kernel that runs an execution of its own on this thread leaves the
  // capture as it found it.)
  internal::CapturedWork* const outer = std::exchange(internal::captured_work, captured);
  const bool complete =
      step.call(operands, invocation.attribute_pool(), step.attribute_offsets, results, call);
  internal::captured_work = outer;
  const uint32_t all = (1u << step.num_results) - 1;
  if (!complete && call.ok() && call.valued != 0 && (call.valued & (call.valued - 1)) == 0 &&
      (call.emplaced | call.valued) == all) [[likely]] {
    // The usual async kernel: one result given as a value, completed by
    // the one piece of work it enqueued.
    const uint32_t valued_result = static_cast<uint32_t>(std::countr_zero(call.valued));
    AsyncValue* const value = call.values[valued_result];
    // EnqueueWork's value handed back untouched (both its references are
    // the executor's, and the work writes the result's register), or one
    // task the kernel enqueued itself, filling the value.
    static_assert(kMaxDirectResults <= 8);
    const uint32_t async_call = valued_result | static_cast<uint32_t>(call.emplaced << 8);
    if (captured->HasWork() && captured->num_tasks == 0 && value == captured->Value() &&
        value->NumRef() == 2 && value->IsPristine() &&
        value->type_id() == step.result_types[valued_result]) [[likely]] {
      call.valued = 0;
      call.values[valued_result] = nullptr;
      if (captured->work_fits_register) [[likely]] {
        // The work waits in its result's register (nothing reads it before
        // the step has run); the block is the loop's again.
        std::memcpy(results[valued_result], captured->work, kDirectResultSize);
        queue.spare_capture = captured;
        AddAsyncCallStep(queue, s, at, next_export, next_deferred,
                         async_call | DeferredResume::kWorkInRegister, nullptr, captured->run);
        return;
      }
      AddAsyncCallStep(queue, s, at, next_export, next_deferred, async_call, captured);
      return;
    }
    if (!captured->HasWork() && captured->num_tasks == 1) [[likely]] {
      captured->task_result = value;  // the kernel's reference
      call.valued = 0;
      call.values[valued_result] = nullptr;
      AddAsyncCallStep(queue, s, at, next_export, next_deferred, async_call, captured);
      return;
    }
  }
  FinishAsyncCallSlowly(queue, s, at, next_export, next_deferred, complete, captured);
}

inline void DeferredStepRunner::AddAsyncCallStep(ReadyQueue& queue, uint32_t s, uint32_t at,
                                                 uint32_t next_export, uint32_t next_deferred,
                                                 uint32_t async_call,
                                                 internal::CapturedWork* captured,
                                                 internal::CapturedWork::Run run) {
  DeferredResume resume{s, at, next_export, next_deferred, queue.stream, async_call};
  if (async_call & DeferredResume::kWorkInRegister) {
    resume.run = run;
  } else {
    resume.captured = captured;
  }
  AddDeferredStep(queue, resume);
}

}  // namespace bef::invocation_internal

#endif  // BEF_LIB_EXECUTOR_DEFERRED_STEP_RUNNER_INL_H_
