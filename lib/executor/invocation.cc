// The dataflow executor for async BEF functions (docs/executor-semantics.md §3-5).
//
// One Invocation per execution: a single allocation holding the register
// file (one AsyncValue* per register, holding as many references as the
// register has uses), the ready counts and the payload registers of the
// segments. The pseudo kernel publishes the arguments; publishing a value
// walks its producer's used-by list in the BEF image and decrements each
// user's ready count; users that reach zero go on a ready queue and run
// inline (LIFO within the current stream), kernels of other streams are
// enqueued to the work queue per stream. A published value that is not yet
// available defers its users with AndThen. A segment (execution_plan.h)
// runs when its head is ready: its kernels as one straight line on payload
// registers, then what the dataflow path would do as each of them ends
// (RunSegment, segment_runner.cc); its other kernels keep no ready counts.
// The executor's rooms and what they share: invocation_internal.h.
//
// Costs per kernel (docs/performance.md): no locks, no allocation besides
// the result value, and no atomic read-modify-write while the invocation is
// *exclusive* -- touched only by the thread that started it. A register
// holds one reference to its value and counts its remaining uses in the
// frame, so operands cost no reference-count traffic; ready counts and use
// counts are plain decrements. The invocation becomes *concurrent* (for
// good) the moment another thread could touch it: when a continuation is
// registered on an unavailable value or a stream task is enqueued; from then
// on both counts use atomic decrements.
#include "lib/executor/invocation.h"

#include <memory>
#include <span>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bef/host/tracing.h"
#include "bef/support/string_view.h"
#include "lib/executor/functions.h"
#include "lib/executor/invocation_internal.h"

namespace bef {
namespace invocation_internal {

constinit thread_local int continuation_nesting = 0;
constinit thread_local Invocation* current_invocation = nullptr;

AsyncValue* Invocation::Publish(uint32_t reg, RCReference<AsyncValue> value) {
  Register& r = registers_[reg];
  if (r.value != nullptr) {
    // A function result: forward the placeholder handed out at the start and
    // release the invocation's pin on it. Users read the placeholder.
    BEF_DEBUG_CHECK(r.value->IsIndirect() && r.value->IsUnavailable(),
                    "a register published twice, or a value where a result's placeholder "
                    "should be");
    auto* placeholder = static_cast<IndirectAsyncValue*>(r.value);
    placeholder->ForwardTo(std::move(value));
    placeholder->DropRef();
    return placeholder;
  }
  uint32_t uses = plan_->value_uses[reg];
  if (uses == 0) return nullptr;  // the reference is dropped here
  r.value = value.release();
  r.remaining_uses.store(uses, std::memory_order_relaxed);
  return r.value;
}

Invocation::Deferral* Invocation::DeferralBlock() {
  Deferral* block = deferrals_.load(std::memory_order_acquire);
  if (block != nullptr) [[likely]] return block;
  // Uninitialized: a slot is written when its register defers.
  const size_t size = sizeof(Deferral) * deferral_slots_;
  Deferral* fresh = static_cast<Deferral*>(internal::AllocateValueMemory(size));
  if (deferrals_.compare_exchange_strong(block, fresh, std::memory_order_acq_rel,
                                         std::memory_order_acquire)) {
    return fresh;
  }
  internal::FreeValueMemory(fresh, size);  // another thread's came first
  return block;
}

void Invocation::DeferUsers(ReadyQueue& queue, uint32_t reg, AsyncValue* value,
                            const uint32_t* users, uint32_t count) {
  // Defer the users until the value is available; the continuation keeps
  // the invocation alive and processes on a fresh queue of this stream.
  const uint32_t stream = queue.stream;
  const uint32_t slot = plan_->deferral_slot[reg];
  if (slot != ExecutionPlan::kNoDeferralSlot) [[likely]] {
    BecomeConcurrent();
    Deferral* deferral = ::new (&DeferralBlock()[slot]) Deferral;
    deferral->run_and_delete = &ResumeDeferral;
    deferral->invocation = this;
    deferral->users = users;
    deferral->count = count;
    deferral->stream = stream;
    AddRef();  // dropped when the users have run
    value->AddWaiter(deferral);
    return;
  }
  WhenAvailable(value, [this, users, count, stream] {
    ReadyQueue ready(stream);
    for (uint32_t i = 0; i < count; ++i) DecrementReadyCount(ready, users[i]);
    Process(ready);
  });
}

void Invocation::ResumeDeferral(internal::WaiterNode* node) {
  const Deferral& deferral = *static_cast<Deferral*>(node);
  Invocation* invocation = deferral.invocation;
  invocation->RunNested([invocation, &deferral] { invocation->RunDeferral(deferral); });
}

void Invocation::RunDeferral(const Deferral& deferral) {
  ReadyQueue ready(deferral.stream);
  for (uint32_t i = 0; i < deferral.count; ++i) DecrementReadyCount(ready, deferral.users[i]);
  Process(ready);
  DropRef();  // may free the deferral block with the invocation
}

void Invocation::CreateResultPlaceholders() {
  // A placeholder per result register not yet produced, holding a reference
  // per return use, one for the register when kernels use it, and the
  // invocation's pin (released when it is forwarded).
  const auto& result_registers = info_->result_registers;
  for (size_t i = 0; i < result_registers.size(); ++i) {
    uint32_t reg = result_registers[i];
    Register& r = registers_[reg];
    if (r.value == nullptr) {
      IndirectAsyncValue* placeholder = MakeIndirectAsyncValue().release();
      uint32_t kernel_uses = plan_->result_kernel_uses[i];
      uint32_t return_uses = plan_->value_uses[reg] - kernel_uses;
      placeholder->AddRef(return_uses + (kernel_uses > 0 ? 1 : 0));
      r.value = placeholder;
      r.remaining_uses.store(kernel_uses, std::memory_order_relaxed);
      placeholder_results_[i] = 1;
    } else {
      // The same register returned again after a placeholder was made for
      // its first result.
      placeholder_results_[i] = placeholder_results_[plan_->first_result_of_register[i]];
    }
  }
}

void Invocation::TakeResults(std::span<RCReference<AsyncValue>> results) {
  for (size_t i = 0; i < results.size(); ++i) {
    Register& r = registers_[info_->result_registers[i]];
    AsyncValue* value = r.value;
    if (placeholder_results_[i]) {
      results[i] = TakeRef(value);  // one of the references for return uses
    } else if (!concurrent_.load(std::memory_order_relaxed)) {
      // The register's remaining uses are the return uses: the last one
      // takes over the register's reference (a borrowed argument has none).
      bool last = Decrement(r.remaining_uses);
      results[i] = last && !IsBorrowedArgument(info_->result_registers[i]) ? TakeRef(value)
                                                                          : FormRef(value);
    } else {
      // Produced before the execution became concurrent: kernels on other
      // threads may still be releasing their uses of the register.
      results[i] = FormRef(value);
      if (Decrement(r.remaining_uses)) value->DropRef();
    }
  }
}

void Invocation::Start(std::span<AsyncValue* const> arguments,
                       std::span<RCReference<AsyncValue>> results) {
  // The pseudo kernel: zero-operand kernels become ready, then the
  // arguments are published.
  const KernelInfo& pseudo = info_->kernels[0];
  ReadyQueue queue(pseudo.stream);
  const uint32_t* used_by = pseudo.used_by();
  auto counts = pseudo.used_by_counts();
  for (uint32_t i = 0; i < counts[0]; ++i) DecrementReadyCount(queue, used_by[i]);
  used_by += counts[0];
  for (uint32_t a = 0; a < arguments.size(); ++a) {
    uint32_t count = counts[a + 1];
    AsyncValue* argument = arguments[a];
    Register& r = registers_[a];
    AsyncValue* published;
    if (r.value != nullptr) {
      auto* placeholder = static_cast<IndirectAsyncValue*>(r.value);
      placeholder->ForwardTo(FormRef(argument));
      placeholder->DropRef();
      published = placeholder;
    } else {
      uint32_t uses = plan_->value_uses[a];
      if (uses > 0) {
        // The register's reference (see IsBorrowedArgument).
        if (!arguments_borrowed_) argument->AddRef();
        r.value = argument;
        r.remaining_uses.store(uses, std::memory_order_relaxed);
      }
      published = argument;
    }
    DecrementUsers(queue, a, published, used_by, count);
    used_by += count;
  }
  Process(queue);
  TakeResults(results);
  DropRef();
}

// ---- A segment one by one: its kernels through their frames, from where
// the straight line could not take it (segment_runner.cc hands it on).

void Invocation::SegmentAfterCall(ReadyQueue& queue, uint32_t s, uint32_t position,
                                  uint32_t next_export, CallOutcome outcome) {
  FlushSteps(queue);
  const ExecutionPlan::Segment& segment = plan_->segments[s];
  // Kernels up to `position` ran on the straight line, the call included.
  for (uint32_t before = segment.begin; before <= position; ++before) {
    ReleaseKernelInputs(s, before);
  }
  auto run = std::make_unique<SegmentRun>();
  run->segment = s;
  run->position = position + 1;
  run->next_export = next_export;
  // The call's results, as its frame would have made them: a payload it
  // wrote, a value it gave, else the error it reported (reported at its
  // location once, as AsyncKernelFrame::ReportError does) or, reporting
  // none, that it did not set the result.
  const KernelInfo& kernel = info_->kernels[plan_->segment_kernels[position]];
  const std::span<const uint32_t> result_registers = kernel.results();
  const Location location{&program_->file(), kernel.location()};
  RCReference<AsyncValue> error;
  if (!outcome.error.ok()) {
    context_->host()->EmitError(MakeDiagnostic(location, outcome.error));
  }
  for (uint32_t i = 0; i < result_registers.size(); ++i) {
    const uint32_t reg = result_registers[i];
    RCReference<AsyncValue>& value = run->values[reg];
    if ((outcome.valued >> i) & 1) {
      value = std::move(outcome.values[i]);
    } else if ((outcome.emplaced >> i) & 1) {
      value = TakeRef(plan_->register_boxers[reg](payloads_[reg].bytes));
    } else if (!outcome.error.ok()) {
      if (!error) error = MakeErrorAsyncValueRef(outcome.error, location);
      value = error;
    } else {
      value = MakeErrorAsyncValueRef(absl::InternalError(
          absl::StrCat("kernel '", ToAbsl(program_->file().kernel_name(kernel.code())),
                       "' did not set result ", i)));
    }
  }
  SegmentOneByOne(queue, std::move(run));
}

void Invocation::SegmentFrom(ReadyQueue& queue, uint32_t s, uint32_t position,
                             uint32_t next_export) {
  // Its kernels run through their frames, which may enqueue work.
  FlushSteps(queue);
  // Kernels before `position` ran on the straight line.
  const ExecutionPlan::Segment& segment = plan_->segments[s];
  for (uint32_t before = segment.begin; before < position; ++before) {
    ReleaseKernelInputs(s, before);
  }
  auto run = std::make_unique<SegmentRun>();
  run->segment = s;
  run->position = position;
  run->next_export = next_export;
  SegmentOneByOne(queue, std::move(run));
}

void Invocation::ReleaseKernelInputs(uint32_t segment, uint32_t position) {
  const KernelInfo& kernel = info_->kernels[plan_->segment_kernels[position]];
  for (uint32_t reg : kernel.arguments()) {
    if (plan_->register_segment[reg] != segment && registers_[reg].value != nullptr) {
      ReleaseUse(reg);
    }
  }
}

AsyncValue* Invocation::SegmentValue(SegmentRun& run, uint32_t reg) {
  if (plan_->register_segment[reg] != run.segment) {
    AsyncValue* value = registers_[reg].value;
    if (value != nullptr) return value;  // held for the segment's uses
  }
  auto [it, inserted] = run.values.try_emplace(reg);
  if (inserted) {
    // A payload: another segment's, or one this segment's straight line
    // wrote before the one-by-one run began.
    it->second = TakeRef(plan_->register_boxers[reg](payloads_[reg].bytes));
  }
  return it->second.get();
}

void Invocation::ExportOneByOne(ReadyQueue& queue, SegmentRun& run, uint32_t end) {
  // Its results may now be values only (RunSegment reads payload-only
  // inputs' registers from here on). Set before the users are released,
  // which publishes it to the thread that runs them.
  if (!segment_values_.load(std::memory_order_relaxed)) {
    segment_values_.store(true, std::memory_order_relaxed);
  }
  const ExecutionPlan::Segment& segment = plan_->segments[run.segment];
  const uint32_t exports_end = segment.first_export + segment.num_exports;
  for (; run.next_export < exports_end; ++run.next_export) {
    const ExecutionPlan::SegmentExport out = plan_->segment_exports[run.next_export];
    if (out.position >= end) break;
    const uint32_t* targets = plan_->segment_targets.data() + out.first_target;
    // The kernel before it ran (and sent its other streams' kernels off).
    if (out.position != segment.begin && !queue.outline_kernels.empty()) FlushOutline(queue);
    AsyncValue* published = Publish(out.reg, FormRef(SegmentValue(run, out.reg)));
    if (published != nullptr) {
      DecrementUsers(queue, out.reg, published, targets, out.num_targets);
    }
  }
}

void Invocation::SegmentOneByOne(ReadyQueue& queue, std::unique_ptr<SegmentRun> run) {
  const ExecutionPlan::Segment& segment = plan_->segments[run->segment];
  constexpr uint32_t kInlineArguments = 16;
  constexpr uint32_t kInlineResults = 8;
  for (; run->position < segment.end; ++run->position) {
    ExportOneByOne(queue, *run, run->position);
    if (run->position != segment.begin && !queue.outline_kernels.empty()) {
      FlushOutline(queue);
    }
    const KernelInfo& kernel = info_->kernels[plan_->segment_kernels[run->position]];
    const std::span<const uint32_t> result_registers = kernel.results();
    absl::InlinedVector<AsyncValue*, kInlineArguments> arguments;
    for (uint32_t reg : kernel.arguments()) {
      AsyncValue* value = SegmentValue(*run, reg);
      if (!value->IsAvailable()) [[unlikely]] {
        // A call's result not ready yet (its callee was posted to the work
        // queue): resume here when it is.
        uint32_t stream = queue.stream;
        SegmentRun* waiting = run.release();
        WhenAvailable(value, [this, waiting, stream] {
          ReadyQueue ready(stream);
          SegmentOneByOne(ready, std::unique_ptr<SegmentRun>(waiting));
          Process(ready);
        });
        return;
      }
      arguments.push_back(value);
    }
    absl::InlinedVector<RCReference<AsyncValue>, kInlineResults> results(
        result_registers.size());
    RunThroughFrame(kernel, arguments, {results.data(), results.size()});
    ReleaseKernelInputs(run->segment, run->position);
    for (size_t i = 0; i < results.size(); ++i) {
      run->values[result_registers[i]] = std::move(results[i]);
    }
  }
  ExportOneByOne(queue, *run, segment.end);
}

// ---- Frame kernels.

void Invocation::RunFrameKernel(ReadyQueue& queue, uint32_t k) {
  const KernelInfo& kernel = info_->kernels[k];
  // Spans into the record, taken before anything is published (see below).
  const std::span<const uint32_t> argument_registers = kernel.arguments();
  const std::span<const uint32_t> result_registers = kernel.results();
  const std::span<const uint32_t> used_by_counts = kernel.used_by_counts();
  const uint32_t* used_by = kernel.used_by();
  const uint32_t num_arguments = static_cast<uint32_t>(argument_registers.size());
  const uint32_t num_results = static_cast<uint32_t>(result_registers.size());

  // Operand and result arrays live on the stack for the usual sizes.
  constexpr uint32_t kInlineArguments = 16;
  constexpr uint32_t kInlineResults = 8;
  AsyncValue* inline_arguments[kInlineArguments];
  std::unique_ptr<AsyncValue*[]> heap_arguments;
  AsyncValue** arguments = inline_arguments;
  if (num_arguments > kInlineArguments) {
    heap_arguments.reset(new AsyncValue*[num_arguments]);
    arguments = heap_arguments.get();
  }
  // Result slots: null references, as many as there are results (each one
  // a pointer: set with stores, not a constructor per inline slot).
  // Published results are moved from (null): the inline slots need no
  // destructor.
  alignas(RCReference<AsyncValue>) unsigned char
      inline_results[kInlineResults * sizeof(RCReference<AsyncValue>)];
  std::unique_ptr<RCReference<AsyncValue>[]> heap_results;
  RCReference<AsyncValue>* results = reinterpret_cast<RCReference<AsyncValue>*>(inline_results);
  if (num_results > kInlineResults) [[unlikely]] {
    heap_results.reset(new RCReference<AsyncValue>[num_results]);
    results = heap_results.get();
  } else {
    for (uint32_t i = 0; i < num_results; ++i) ::new (&results[i]) RCReference<AsyncValue>();
  }
  for (uint32_t i = 0; i < num_arguments; ++i) {
    arguments[i] = registers_[argument_registers[i]].value;
    BEF_DEBUG_CHECK(arguments[i] != nullptr, "a frame kernel's operand has no value");
  }
  RunThroughFrame(kernel, {arguments, num_arguments}, {results, num_results});

  // Release the operands (a value whose last user just ran is destroyed
  // here), then publish the results.
  for (uint32_t i = 0; i < num_arguments; ++i) ReleaseUse(argument_registers[i]);
  for (uint32_t i = 0; i < num_results; ++i) {
    // Read from the image before publishing: a forwarded function result
    // may let the caller destroy the program.
    const uint32_t users = used_by_counts[i];
    const uint32_t reg = result_registers[i];
    AsyncValue* published = Publish(reg, std::move(results[i]));
    if (published != nullptr) DecrementUsers(queue, reg, published, used_by, users);
    used_by += users;
  }
}

void Invocation::RunThroughFrame(const KernelInfo& kernel,
                                 std::span<AsyncValue* const> arguments,
                                 std::span<RCReference<AsyncValue>> results) {
  AsyncValue* error = nullptr;
  for (AsyncValue* value : arguments) {
    if (value->IsError()) error = value;  // the last error operand wins
  }
  RequestContext* request = context_->request_context();
  if (request->has_kernel_budget()) [[unlikely]] request->ConsumeKernelBudget();
  if (error == nullptr) error = request->GetCancelAsyncValue();

  if (error != nullptr) [[unlikely]] {
    for (auto& result : results) result = FormRef(error);
    return;
  }
  const std::span<const uint32_t> attribute_offsets = kernel.attributes();
  const std::span<const uint32_t> function_indices = kernel.functions();
  KernelBinding binding = *binding_template_;
  binding.attribute_offsets = attribute_offsets.data();
  binding.num_attributes = static_cast<uint32_t>(attribute_offsets.size());
  binding.function_indices = function_indices.data();
  binding.num_functions = static_cast<uint32_t>(function_indices.size());
  binding.executor = &kernel;
  AsyncKernelFrame frame(context_, binding, arguments, results,
                         Location{&program_->file(), kernel.location()});
  if (policy_.traced()) [[unlikely]] {
    RunKernelTraced(kernel, &frame);
  } else {
    kernel.async_implementation(&frame);
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i]) [[unlikely]] {
      results[i] = MakeErrorAsyncValueRef(absl::InternalError(absl::StrCat(
          "kernel '", ToAbsl(program_->file().kernel_name(kernel.code())),
          "' did not set result ", i)));
    }
  }
}

void Invocation::RunKernelTraced(const KernelInfo& kernel, AsyncKernelFrame* frame) {
  const BefFile& file = program_->file();
  DecodedLocation location = file.DecodeLocation(kernel.location());
  std::string where = location.is_file_location()
                          ? absl::StrCat(location.filename, ":", location.line, ":",
                                         location.column)
                          : location.description;
  const BefFunctionEntry& function = file.function(info_->index);
  TraceSpan span("kernel", file.kernel_name(kernel.code()),
                 TraceArgs({{"function", function.name}, {"location", where}}));
  kernel.async_implementation(frame);
}

}  // namespace invocation_internal

using invocation_internal::Invocation;

uint32_t RemainingUsesInRunningInvocation(const void* executor, size_t index) {
  return Invocation::RemainingUses(executor, index);
}

void RunInvocation(const BefProgram* program, const ExecutionPlan* plan,
                   const ExecutionContext& context, const FastPathPolicy& policy,
                   std::span<AsyncValue* const> arguments,
                   std::span<RCReference<AsyncValue>> results) {
  Invocation::Create(program, plan, context, policy)->Start(arguments, results);
}

}  // namespace bef
