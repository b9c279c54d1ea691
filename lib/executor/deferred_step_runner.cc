// The deferred step runner (deferred_step_runner.h): async call steps,
// the tasks of deferred steps and the segments' resumption after them.
#include "lib/executor/deferred_step_runner.h"

#include <bit>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "bef/host/async_dispatch.h"
#include "lib/executor/invocation_internal.h"

namespace bef::invocation_internal {

void DeferredStepRunner::FinishAsyncCallSlowly(ReadyQueue& queue, uint32_t s, uint32_t at,
                                               uint32_t next_export, uint32_t next_deferred,
                                               bool complete, internal::CapturedWork* captured) {
  CallOutcome outcome;
  if (!complete) outcome = invocation_->TakeCallOutcome();
  // Otherwise its work goes where its own tasks would have gone, in order,
  // and its results are made of what it did.
  if (captured->HasWork() || captured->num_tasks != 0) {
    FlushSteps(queue);
    EnqueueCaptured(*captured);
  } else if (queue.spare_capture == nullptr) {
    // Nothing kept (a synchronous kernel that takes the host): the block is
    // the loop's again, for the next call.
    queue.spare_capture = captured;
  } else {
    FreeCaptureBlock(captured);
  }
  if (complete ||
      invocation_->FinishCall(queue, s, at, next_export, next_deferred + 1, std::move(outcome))) {
    invocation_->ContinueSegment(queue, s, at + 1, next_export, next_deferred + 1);
  }
}

void DeferredStepRunner::EnqueueCaptured(internal::CapturedWork& captured) {
  HostContext* const host = invocation_->context()->host();
  std::vector<TaskFunction>* more = captured.more_tasks;
  uint32_t task = 0;
  auto enqueue_tasks = [&](uint32_t end) {
    for (; task < end; ++task) {
      host->EnqueueWork(std::move(task == 0 ? captured.first_task : (*more)[task - 1]));
    }
  };
  if (captured.HasWork()) {
    enqueue_tasks(captured.tasks_before_work);
    // The work completes EnqueueWork's value from a task of its own, as it
    // would have outside the executor; the block is the value's memory
    // from here on (the task holds the executor's reference).
    struct CompleteTask {
      internal::CapturedWork::Complete complete;
      internal::CapturedWork::Destroy destroy;
      void* work;
      AsyncValue* value;
      Location location;
      CompleteTask(internal::CapturedWork& captured)
          : complete(captured.complete),
            destroy(captured.destroy),
            work(captured.work),
            value(captured.Value()),
            location(captured.location) {}
      CompleteTask(const CompleteTask&) = delete;
      CompleteTask(CompleteTask&& other) noexcept
          : complete(other.complete),
            destroy(other.destroy),
            work(other.work),
            value(std::exchange(other.value, nullptr)),
            location(other.location) {}
      ~CompleteTask() {
        if (value == nullptr) return;
        destroy(work);  // never run (the queue went away)
        value->DropRef();
      }
      void operator()() {
        complete(work, value, location);
        std::exchange(value, nullptr)->DropRef();
      }
    };
    // Once the task is enqueued it may run, complete the value and free
    // the block: the tasks enqueued after the work leave the block first.
    const uint32_t num_tasks = captured.num_tasks;
    TaskFunction first_after_work;
    if (task == 0 && num_tasks != 0) first_after_work = std::move(captured.first_task);
    std::unique_ptr<std::vector<TaskFunction>> more_after_work(
        std::exchange(captured.more_tasks, nullptr));
    CompleteTask complete_task(captured);
    captured.~CapturedWork();
    host->EnqueueWork(std::move(complete_task));
    for (; task < num_tasks; ++task) {
      host->EnqueueWork(std::move(task == 0 ? first_after_work : (*more_after_work)[task - 1]));
    }
    return;
  }
  enqueue_tasks(captured.num_tasks);
  FreeCaptureBlock(&captured);
}

void DeferredStepRunner::EnqueueSteps(DeferredSteps& steps) {
  invocation_->BecomeConcurrent();
  invocation_->AddRef();  // dropped when the task has run
  invocation_->context()->host()->EnqueueWork(
      [this, steps = std::move(steps)]() mutable { Run(std::move(steps)); });
  steps.clear();
}

void DeferredStepRunner::Run(DeferredSteps steps) {
  Invocation& invocation = *invocation_;
  Invocation* previous = current_invocation;
  current_invocation = &invocation;
  // The steps the running ones reach, in the order their tasks would have
  // been enqueued (anything else enqueued meanwhile sends them first).
  DeferredSteps reached;
  DeferredSteps* running = &steps;
  DeferredSteps* next = &reached;
  // One processing loop's queue for all of them: empty again after each.
  ReadyQueue ready(0);
  while (true) {
    ready.steps = next;
    for (DeferredResume& resume : *running) {
      ready.stream = resume.stream;
      RunCapturedStep(ready, resume);
      invocation.ProcessReady(ready);
    }
    if (next->empty()) break;
    // The steps reached were the last acts. When their task would be the
    // next one the queue runs, here, with nothing queued before it (a chain
    // of async kernels), run them now: the same order, no trip through the
    // queue, no keep-alive count per step.
    if (!invocation.context()->host()->work_queue().NextToRunHere()) {
      EnqueueSteps(*next);
      break;
    }
    running->clear();
    std::swap(running, next);
  }
  current_invocation = previous;
  invocation.DropRef();
}

void DeferredStepRunner::RunCapturedStep(ReadyQueue& ready, const DeferredResume& resume) {
  Invocation& invocation = *invocation_;
  // An async call step: the kernel's work or task, then its users.
  const auto& step = invocation.plan()->segmented.steps[resume.position].linked_try_step();
  const uint32_t valued_result = resume.async_call & 0xff;
  void* const payload = invocation.payloads()[step.results[valued_result]].bytes;
  absl::Status* error = nullptr;
  if (resume.async_call & DeferredResume::kWorkInRegister) {
    // The work's bytes are in the register it writes.
    error = resume.run(payload, payload);
  } else if (internal::CapturedWork* captured = resume.captured; captured->HasWork()) {
    error = captured->run(captured->work, payload);
    FreeCaptureBlock(captured);
  } else {
    RunCapturedTask(ready, resume, step.result_types[valued_result], payload);
    return;
  }
  if (error == nullptr && invocation.policy().DirectKernelsAllowed()) [[likely]] {
    invocation.ContinueSegment(ready, resume.segment, resume.position + 1, resume.next_export,
                               resume.deferred + 1);
    return;
  }
  FinishWorkStep(ready, resume, error);
}

void DeferredStepRunner::RunCapturedTask(ReadyQueue& ready, const DeferredResume& resume,
                                         uint16_t result_type, void* payload) {
  Invocation& invocation = *invocation_;
  internal::CapturedWork* captured = resume.captured;
  captured->first_task();
  AsyncValue* const value = std::exchange(captured->task_result, nullptr);
  FreeCaptureBlock(captured);
  if (value->IsConcrete() && value->type_id() == result_type &&
      invocation.policy().DirectKernelsAllowed()) [[likely]] {
    // Completed by its task, as usual: its payload, and on.
    std::memcpy(payload, value->ScalarPayload(), kDirectResultSize);
    value->DropRef();
    invocation.ContinueSegment(ready, resume.segment, resume.position + 1, resume.next_export,
                               resume.deferred + 1);
    return;
  }
  const uint32_t valued_result = resume.async_call & 0xff;
  CallOutcome outcome;
  outcome.emplaced = (resume.async_call >> 8) & 0xff;
  outcome.valued = 1u << valued_result;
  outcome.values[valued_result] = TakeRef(value);
  FinishCapturedStep(ready, resume, std::move(outcome));
}

void DeferredStepRunner::FinishWorkStep(ReadyQueue& ready, const DeferredResume& resume,
                                        absl::Status* error) {
  const uint32_t valued_result = resume.async_call & 0xff;
  CallOutcome outcome;
  outcome.emplaced = (resume.async_call >> 8) & 0xff;
  if (error == nullptr) {
    outcome.emplaced |= 1u << valued_result;
  } else {
    // As EnqueueWork's value would have been: an error at the kernel's
    // location.
    const auto& step = invocation_->plan()->segmented.steps[resume.position].linked_try_step();
    outcome.valued = 1u << valued_result;
    outcome.values[valued_result] = MakeErrorAsyncValueRef(
        std::move(*error), Location{&invocation_->program()->file(), step.location});
    delete error;
  }
  FinishCapturedStep(ready, resume, std::move(outcome));
}

void DeferredStepRunner::FinishCapturedStep(ReadyQueue& ready, const DeferredResume& resume,
                                            CallOutcome outcome) {
  if (invocation_->policy().DirectKernelsAllowed()) [[likely]] {
    if (invocation_->FinishCall(ready, resume.segment, resume.position, resume.next_export,
                                resume.deferred + 1, std::move(outcome))) {
      invocation_->ContinueSegment(ready, resume.segment, resume.position + 1, resume.next_export,
                                   resume.deferred + 1);
    }
  } else {
    invocation_->SegmentAfterCall(ready, resume.segment, resume.position, resume.next_export,
                                  std::move(outcome));
  }
}

}  // namespace bef::invocation_internal
