// The processing loop and the segment runner of the dataflow executor
// (invocation_internal.h): ready kernels run inline, other streams' go to
// the work queue; a segment's kernels run as one straight line on payload
// registers when its head is ready, then what the dataflow path would do
// as each of them ends (exports, in used-by order); call steps and what
// their kernels did instead of writing payloads (execution_plan.h,
// docs/executor-semantics.md §14). A deferred or async call step stops the
// segment: the deferred step runner (deferred_step_runner.h) runs it from a
// task and resumes the segment after it. What the straight line cannot take
// goes one by one (invocation.cc).
#include <cstring>
#include <memory>
#include <utility>

#include "bef/host/async_dispatch.h"
#include "bef/support/string_view.h"
#include "lib/executor/invocation_internal.h"

namespace bef::invocation_internal {

void Invocation::Process(ReadyQueue& queue) {
  Invocation* previous = current_invocation;
  current_invocation = this;
  ProcessQueue(queue);
  current_invocation = previous;
}

void Invocation::ProcessQueue(ReadyQueue& queue) {
  while (true) {
    if (queue.inline_kernels.empty()) {
      if (queue.outline_kernels.empty()) {
        if (!queue.own_steps.empty()) deferred_steps_.EnqueueSteps(queue.own_steps);
        return;
      }
      // Switch to the stream of the first outline kernel: its kernels
      // become the inline ones, the others stay outline, both in order (one
      // pass, no temporary buffer).
      queue.stream = schedule_[queue.outline_kernels.front()].stream;
      auto& outline = queue.outline_kernels;
      size_t kept = 0;
      for (uint32_t k : outline) {
        if (schedule_[k].stream == queue.stream) {
          queue.inline_kernels.push_back(k);
        } else {
          outline[kept++] = k;
        }
      }
      outline.resize(kept);
    }
    if (!queue.outline_kernels.empty()) FlushOutline(queue);
    RunKernel(queue, queue.inline_kernels.pop_back());
  }
}

void Invocation::FlushOutline(ReadyQueue& queue) {
  // The deferred steps reached before, then one work-queue task per other
  // stream, in ascending stream order; each stream's kernels in the order
  // they became ready.
  FlushSteps(queue);
  auto& outline = queue.outline_kernels;
  if (outline.size() <= 32) {
    // Usually one kernel, or a few: an insertion sort in place.
    for (size_t i = 1; i < outline.size(); ++i) {
      uint32_t kernel = outline[i];
      uint32_t stream = schedule_[kernel].stream;
      size_t j = i;
      for (; j > 0 && stream < schedule_[outline[j - 1]].stream; --j) {
        outline[j] = outline[j - 1];
      }
      outline[j] = kernel;
    }
  } else {
    // A value with users on many streams (a fan-out: thousands): a
    // counting sort by stream, stable, in two passes.
    uint32_t max_stream = 0;
    for (uint32_t kernel : outline) {
      max_stream = std::max(max_stream, schedule_[kernel].stream);
    }
    std::vector<uint32_t> order(outline.begin(), outline.end());
    if (max_stream <= 8 * outline.size()) {
      std::vector<uint32_t> starts(size_t{max_stream} + 2, 0);
      for (uint32_t kernel : order) ++starts[schedule_[kernel].stream + 1];
      for (size_t i = 1; i < starts.size(); ++i) starts[i] += starts[i - 1];
      for (uint32_t kernel : order) outline[starts[schedule_[kernel].stream]++] = kernel;
    } else {
      // Sparse stream numbers: sort (stream, position) keys, which keeps
      // each stream's order without a merge sort's buffer.
      std::vector<uint64_t> keys(outline.size());
      for (size_t i = 0; i < outline.size(); ++i) {
        keys[i] = uint64_t{schedule_[outline[i]].stream} << 32 | i;
      }
      std::sort(keys.begin(), keys.end());
      for (size_t i = 0; i < keys.size(); ++i) outline[i] = order[keys[i] & 0xFFFFFFFF];
    }
  }
  HostContext* const host = context_->host();
  if (outline.size() > 1 && schedule_[outline.front()].stream != schedule_[outline.back()].stream &&
      !policy_.traced() && host->work_queue().SupportsTaskRuns()) {
    // A queue of one thread: the streams' tasks, one after another in the
    // queue, as one task run (RunStreams).
    BecomeConcurrent();
    AddRef();  // the run's, dropped when its last part has run
    host->EnqueueWork([this, block = ShareKernels(outline),
                       end = static_cast<uint32_t>(outline.size())] {
      RunStreams(block, 0, end);
    });
    outline.clear();
    return;
  }
  // The kernels of the groups of several, in one block the tasks share.
  std::shared_ptr<const uint32_t[]> block;
  const uint32_t size = static_cast<uint32_t>(outline.size());
  for (uint32_t begin = 0; begin < size;) {
    const uint32_t stream = schedule_[outline[begin]].stream;
    const uint32_t end = StreamGroupEnd(outline.data(), begin, size);
    BecomeConcurrent();
    AddRef();
    if (end - begin == 1) {
      // One kernel (the usual stream's share): nothing to allocate for it.
      host->EnqueueWork([this, stream, kernel = outline[begin]] {
        ReadyQueue ready(stream);
        ready.inline_kernels.push_back(kernel);
        Process(ready);
        DropRef();
      });
    } else {
      if (block == nullptr) block = ShareKernels(outline);
      host->EnqueueWork([this, stream, block, begin, end] {
        ReadyQueue ready(stream);
        ready.inline_kernels.assign(block.get() + begin, block.get() + end);
        Process(ready);
        DropRef();
      });
    }
    begin = end;
  }
  outline.clear();
}

std::shared_ptr<const uint32_t[]> Invocation::ShareKernels(std::span<const uint32_t> kernels) {
  auto copy = std::make_shared<uint32_t[]>(kernels.size());
  std::copy(kernels.begin(), kernels.end(), copy.get());
  return copy;
}

uint32_t Invocation::StreamGroupEnd(const uint32_t* kernels, uint32_t begin, uint32_t end) const {
  const uint32_t stream = schedule_[kernels[begin]].stream;
  uint32_t group_end = begin + 1;
  while (group_end < end && schedule_[kernels[group_end]].stream == stream) ++group_end;
  return group_end;
}

void Invocation::RunStreams(std::shared_ptr<const uint32_t[]> block, uint32_t begin,
                            uint32_t end) {
  // Each stream's kernels as its own task would run them. The deferred
  // steps they reach stay pending from one stream to the next: their tasks
  // would have been consecutive unless a stream enqueued something else,
  // which sends them first (FlushSteps), so they share tasks as one loop's
  // steps do.
  ConcurrentWorkQueue& work_queue = context_->host()->work_queue();
  DeferredSteps steps;
  ReadyQueue ready(0);  // empty again after each stream's loop
  ready.steps = &steps;
  while (true) {
    const uint32_t stream_end = StreamGroupEnd(block.get(), begin, end);
    ready.stream = schedule_[block[begin]].stream;
    ready.inline_kernels.assign(block.get() + begin, block.get() + stream_end);
    Process(ready);
    begin = stream_end;
    if (begin == end) break;
    if (!work_queue.ContinueRun()) [[unlikely]] {
      // The queue stops before the next stream's task: the steps reached go
      // where their tasks were, the rest of the run where its next stream's
      // task was (ahead of them), with the run's keep-alive count.
      FlushSteps(ready);
      context_->host()->EnqueueWorkAhead(
          [this, block = std::move(block), begin, end] { RunStreams(block, begin, end); });
      return;
    }
  }
  FlushSteps(ready);
  DropRef();
}

inline void Invocation::RunKernel(ReadyQueue& queue, uint32_t k) {
  const uint32_t segment = plan_->head_of[k];
  if (segment != ExecutionPlan::kNoSegment) {
    RunSegment(queue, segment);
  } else {
    // The kernel may enqueue work (or make values available whose waiters
    // do): the deferred steps reached before it go first.
    FlushSteps(queue);
    RunFrameKernel(queue, k);
  }
}

inline void Invocation::RunSegment(ReadyQueue& queue, uint32_t s) {
  const ExecutionPlan::Segment& segment = plan_->segments[s];
  const ExecutionPlan::SegmentInput* inputs =
      plan_->segment_inputs.data() + segment.first_input;
  // Every input (an operand of the head) has arrived, as the head's ready
  // count says, and is available (DecrementUsers waits for that). Payloads
  // loaded before an input that sends the segment one by one stay unread.
  bool straight = policy_.DirectKernelsAllowed();
  // Whether an input with a use count holds a value (else there is nothing
  // to release: registers of segments' payloads get no value later).
  bool counted_values = false;
  // Unless a segment ran one by one, another segment's payload that is
  // never boxed has no value: its Register (cleared by the thread that
  // started the execution, maybe not this one) stays unread.
  const bool segment_values = segment_values_.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < segment.num_inputs && straight; ++i) {
    if (inputs[i].payload_only && !segment_values) continue;
    const AsyncValue* value = registers_[inputs[i].reg].value;
    if (value == nullptr) continue;  // another segment's payload
    BEF_DEBUG_CHECK(value->IsAvailable(), "a segment started before its inputs");
    counted_values |= i < segment.num_counted_inputs;
    const uint16_t type = inputs[i].type;
    straight = !value->IsError() && (type == kAnyOperandType || value->type_id() == type);
    if (straight && type != kAnyOperandType) {
      LoadInputPayload(inputs[i].reg, value, inputs[i].by_reference);
    }
  }
  if (!straight) [[unlikely]] {
    SegmentFrom(queue, s, segment.begin, segment.first_export);
    return;
  }
  if (segment.num_deferred == 0 && segment.num_checks == 0 &&
      segment.end - segment.begin <= kCancellationInterval) [[likely]] {
    const LineCursor cursor = SegmentCursor();
    cursor.Run(segment.begin, segment.end);
    if (counted_values) ReleaseSegmentInputs(segment);
    ExportStraight(queue, segment, segment.first_export, segment.end);
    return;
  }
  ContinueSegment(queue, s, segment.begin, segment.first_export, segment.first_deferred);
}

void Invocation::ContinueSegment(ReadyQueue& queue, uint32_t s, uint32_t position,
                                 uint32_t next_export, uint32_t next_deferred) {
  const ExecutionPlan::Segment& segment = plan_->segments[s];
  const uint32_t stop = next_deferred < segment.first_deferred + segment.num_deferred
                            ? plan_->segment_deferred[next_deferred]
                            : segment.end;
  uint32_t reached = position;
  while (position < stop) {
    reached = RunSegmentBlocks(SegmentCursor(), segment, position, stop);
    if (reached == stop) break;
    if (!internal::line_call_incomplete) {
      // A cancellation or a failing kernel: the rest one by one.
      SegmentFrom(queue, s, reached, next_export);
      return;
    }
    // A call step that did not write every result's payload: its results
    // are made of what it did, and the segment goes on after it, now or
    // when a value it gave is available, or one by one.
    internal::line_call_incomplete = false;
    if (!FinishCall(queue, s, reached, next_export, next_deferred, TakeCallOutcome())) return;
    position = reached = reached + 1;
  }
  if (stop == segment.end) {
    ReleaseSegmentInputs(segment);
    ExportStraight(queue, segment, next_export, stop);
    return;
  }
  if (next_export < segment.first_export + segment.num_exports &&
      plan_->segment_exports[next_export].position < stop) {
    next_export = ExportStraight(queue, segment, next_export, stop);
  }
  BEF_DEBUG_CHECK(IsAsyncCall(stop), "a segment stopped before a step that is no async call");
  deferred_steps_.RunAsyncCall(queue, s, stop, next_export, next_deferred);
}

inline uint32_t Invocation::ExportStraight(ReadyQueue& queue,
                                           const ExecutionPlan::Segment& segment,
                                           uint32_t next_export, uint32_t end) {
  // What the dataflow path does as each kernel ends: box what frame kernels
  // read or the function returns, decrement the users outside the segment;
  // before the next kernel runs, send other streams' ready kernels to the
  // work queue.
  const uint32_t exports_end = segment.first_export + segment.num_exports;
  const ExecutionPlan::SegmentExport* exports = plan_->segment_exports.data();
  uint32_t exporting = UINT32_MAX;
  for (; next_export < exports_end; ++next_export) {
    // Read before publishing: a forwarded function result may let the
    // caller destroy the program (and with it the plan).
    const ExecutionPlan::SegmentExport out = exports[next_export];
    if (out.position >= end) break;
    const uint32_t* targets = plan_->segment_targets.data() + out.first_target;
    if (out.position != exporting) {
      if (exporting != UINT32_MAX && !queue.outline_kernels.empty()) FlushOutline(queue);
      exporting = out.position;
    }
    if (out.needs_value) {
      // A function result's placeholder runs its waiters when forwarded.
      if (registers_[out.reg].value != nullptr) FlushSteps(queue);
      Publish(out.reg, TakeRef(plan_->register_boxers[out.reg](payloads_[out.reg].bytes)));
    }
    for (uint32_t t = 0; t < out.num_targets; ++t) DecrementReadyCount(queue, targets[t]);
  }
  return next_export;
}

CallOutcome Invocation::TakeCallOutcome() {
  DirectCall& call = internal::line_direct_call;
  CallOutcome outcome;
  if (call.error != nullptr) {
    outcome.error = std::move(*call.error);
    delete std::exchange(call.error, nullptr);
  }
  outcome.emplaced = call.emplaced;
  outcome.valued = std::exchange(call.valued, 0);
  for (uint32_t i = 0; i < kMaxDirectResults; ++i) {
    if ((outcome.valued >> i) & 1) outcome.values[i] = TakeRef(std::exchange(call.values[i], nullptr));
  }
  return outcome;
}

bool Invocation::FinishCall(ReadyQueue& queue, uint32_t s, uint32_t position,
                            uint32_t next_export, uint32_t next_deferred, CallOutcome outcome) {
  const auto& step = plan_->segmented.try_step(plan_->segmented.steps[position]);
  const uint32_t all = (1u << step.num_results) - 1;
  if (outcome.error.ok() && (outcome.emplaced | outcome.valued) == all) {
    // Results given as values (an async kernel's): wait for them, then load
    // their payloads and go on on the line, as the dataflow path runs the
    // kernels after it when the values are available.
    for (uint32_t i = 0; i < step.num_results; ++i) {
      if (!((outcome.valued >> i) & 1)) continue;
      AsyncValue* value = outcome.values[i].get();
      if (!value->IsAvailable()) {
        BecomeConcurrent();
        WhenAvailable(value, [this, s, position, next_export, next_deferred,
                              stream = queue.stream, outcome = std::move(outcome)]() mutable {
          ReadyQueue ready(stream);
          if (FinishCall(ready, s, position, next_export, next_deferred, std::move(outcome))) {
            ContinueSegment(ready, s, position + 1, next_export, next_deferred);
          }
          Process(ready);
        });
        return false;
      }
    }
    bool loadable = true;
    for (uint32_t i = 0; i < step.num_results; ++i) {
      if (!((outcome.valued >> i) & 1)) continue;
      const AsyncValue* value = outcome.values[i].get();
      loadable &= value->IsConcrete() && value->type_id() == step.result_types[i];
    }
    if (loadable) [[likely]] {
      for (uint32_t i = 0; i < step.num_results; ++i) {
        if (!((outcome.valued >> i) & 1)) continue;
        std::memcpy(payloads_[step.results[i]].bytes, outcome.values[i]->ScalarPayload(),
                    kDirectResultSize);
      }
      return true;
    }
  }
  SegmentAfterCall(queue, s, position, next_export, std::move(outcome));
  return false;
}

inline uint32_t Invocation::RunSegmentBlocks(const LineCursor& cursor,
                                      const ExecutionPlan::Segment& segment, uint32_t from,
                                      uint32_t end) {
  uint32_t position = from;
  if (segment.num_checks == 0) {
    while (position < end) {
      if (position != segment.begin && policy_.cancelled()) [[unlikely]] return position;
      const uint32_t stop = std::min<uint32_t>(end, position + kCancellationInterval);
      cursor.Run(position, stop);
      position = stop;
    }
    return position;
  }
  // Try and call steps: nothing runs after one fails (a call step's
  // effects must not be followed by its users' on a failure), so the flag
  // is looked at after every step.
  internal::line_direct_call.host = context_->host();  // for its call steps, on this thread
  while (position < end) {
    if (position != segment.begin && policy_.cancelled()) [[unlikely]] return position;
    const uint32_t stop = std::min<uint32_t>(end, position + kCancellationInterval);
    for (; position < stop; ++position) {
      cursor.Run(position);
      if (internal::line_kernel_failed) [[unlikely]] {
        // The step failed: the runner hands it on (a try step to its frame,
        // a call step's results made of what it did).
        internal::line_kernel_failed = false;
        return position;
      }
    }
  }
  return position;
}

inline void Invocation::ReleaseSegmentInputs(const ExecutionPlan::Segment& segment) {
  const ExecutionPlan::SegmentInput* inputs =
      plan_->segment_inputs.data() + segment.first_input;
  for (uint32_t i = 0; i < segment.num_counted_inputs; ++i) {
    // A value holds a reference for each of the segment's uses.
    if (registers_[inputs[i].reg].value != nullptr) ReleaseUse(inputs[i].reg, inputs[i].uses);
  }
}

}  // namespace bef::invocation_internal
