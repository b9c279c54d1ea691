// The dataflow executor for async BEF functions (executor-semantics.md §3-5).
//
// One Invocation per execution: a single allocation holding the register
// file (one AsyncValue* per register, holding as many references as the
// register has uses) and the ready counts. The pseudo kernel publishes the
// arguments; publishing a value walks its producer's used-by list in the
// BEF image and decrements each user's ready count; users that reach zero go
// on a ready queue and run inline (LIFO within the current stream), kernels
// of other streams are enqueued to the work queue per stream. A published
// value that is not yet available defers its users with AndThen.
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
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <type_traits>
#include <memory>
#include <new>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_frame.h"
#include "bef/host/tracing.h"
#include "bef/support/string_view.h"
#include "lib/executor/functions.h"

namespace bef {
namespace {

// Nesting of function executions on this thread: deeper calls are posted to
// the work queue, so recursion through tfrt.call / tfrt.if never grows the
// stack without bound.
constexpr int kMaxExecutionNesting = 32;
thread_local int execution_nesting = 0;

// Nesting of AndThen continuations on this thread (TFRT posts past 100).
constexpr int kMaxContinuationNesting = 100;
thread_local int continuation_nesting = 0;

class Invocation;
// The invocation whose kernel runs on this thread (for remaining_uses).
thread_local Invocation* current_invocation = nullptr;

// A LIFO stack of kernel indices: inline storage for the usual depths, one
// branch per push and none per pop (the hot loop of the executor).
class KernelStack {
 public:
  KernelStack() = default;
  KernelStack(const KernelStack&) = delete;
  KernelStack& operator=(const KernelStack&) = delete;
  ~KernelStack() {
    if (data_ != inline_) delete[] data_;
  }
  bool empty() const { return size_ == 0; }
  [[gnu::always_inline]] void push_back(uint32_t kernel) {
    if (size_ == capacity_) [[unlikely]] Grow();
    data_[size_++] = kernel;
  }
  [[gnu::always_inline]] uint32_t pop_back() { return data_[--size_]; }
  template <typename Iterator>
  void assign(Iterator begin, Iterator end) {
    size_ = 0;
    for (; begin != end; ++begin) push_back(*begin);
  }

 private:
  [[gnu::noinline]] void Grow() {
    uint32_t* grown = new uint32_t[capacity_ * 2];
    std::memcpy(grown, data_, sizeof(uint32_t) * size_);
    if (data_ != inline_) delete[] data_;
    data_ = grown;
    capacity_ *= 2;
  }
  static constexpr uint32_t kInline = 32;
  uint32_t size_ = 0;
  uint32_t capacity_ = kInline;
  uint32_t* data_ = inline_;
  uint32_t inline_[kInline];
};

// The kernels ready to run in one processing loop (§5.1).
struct ReadyQueue {
  explicit ReadyQueue(uint32_t stream) : stream(stream) {}
  uint32_t stream;
  KernelStack inline_kernels;
  std::vector<uint32_t> outline_kernels;
};

class Invocation {
 public:
  static Invocation* Create(const BefProgram* program, const ExecutionPlan* plan,
                            const ExecutionContext& context) {
    size_t size = Size(plan->info);
    // Small invocations (loop bodies, calls) reuse per-thread free blocks.
    void* memory = internal::AllocateValueMemory(size);
    return new (memory) Invocation(program, plan, context);
  }

  void Start(std::span<AsyncValue* const> arguments,
             std::span<RCReference<AsyncValue>> results);

  // KernelBinding::remaining_uses of the kernel running on this thread.
  static uint32_t RemainingUses(const void* executor, size_t index) {
    // `executor` is the kernel; the invocation is found through the
    // thread's current one.
    const auto* running = static_cast<const KernelInfo*>(executor);
    const Invocation* invocation = current_invocation;
    uint32_t reg = running->arguments()[index];
    // A borrowed argument: the caller's reference stands for the
    // register's, so the value is shared even at its last use.
    return invocation->registers_[reg].remaining_uses.load(std::memory_order_relaxed) +
           (invocation->IsBorrowedArgument(reg) ? 1 : 0);
  }

 private:
  Invocation(const BefProgram* program, const ExecutionPlan* plan,
             const ExecutionContext& context)
      : program_(program),
        plan_(plan),
        info_(plan->info),
        size_(Size(plan->info)),
        context_(&context),
        binding_template_(&program->kernel_binding()),
        attribute_pool_(binding_template_->attribute_pool) {
    // What every kernel's binding shares (the program's); RunKernel adds
    // the kernel's part.
    const FunctionInfo* info = info_;
    registers_ = reinterpret_cast<Register*>(this + 1);
    ready_counts_ = reinterpret_cast<std::atomic<uint32_t>*>(
        registers_ + info->num_registers);
    placeholder_results_ = reinterpret_cast<uint8_t*>(ready_counts_ + info->kernels.size());
    std::memset(placeholder_results_, 0, info->result_registers.size());
    // Registers start empty (all bytes zero) and the ready counts as the
    // loader computed them: bulk stores, not a constructor per element.
    static_assert(std::is_trivially_destructible_v<Register> &&
                  sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free);
    std::memset(static_cast<void*>(registers_), 0, sizeof(Register) * info->num_registers);
    std::memcpy(static_cast<void*>(ready_counts_), info->initial_ready_counts.data(),
                sizeof(uint32_t) * info->kernels.size());
  }
  ~Invocation() = default;

  // Layout: the invocation, the registers, the ready counts, the
  // placeholder marks.
  static size_t Size(const FunctionInfo* info) {
    return sizeof(Invocation) + sizeof(Register) * info->num_registers +
           sizeof(std::atomic<uint32_t>) * info->kernels.size() +
           info->result_registers.size();
  }

  void AddRef() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void DropRef() {
    // The last reference: no other thread can hold one (same reasoning as
    // AsyncValue::DropRef), so skip the atomic when it is ours alone.
    if (refs_.load(std::memory_order_acquire) == 1 ||
        refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // size_, not Size(info_): once a result is forwarded the caller may
      // destroy the program, and with it the FunctionInfo.
      size_t size = size_;
      this->~Invocation();
      internal::FreeValueMemory(this, size);
    }
  }

  [[gnu::always_inline]] void Enqueue(ReadyQueue& queue, uint32_t kernel,
                                      uint32_t stream) {
    if (stream == queue.stream) {
      queue.inline_kernels.push_back(kernel);
    } else {
      queue.outline_kernels.push_back(kernel);
    }
  }

  // Decrements a ready or use count; true when it reached zero.
  [[gnu::always_inline]] bool Decrement(std::atomic<uint32_t>& count) {
    if (concurrent_.load(std::memory_order_relaxed)) {
      return count.fetch_sub(1, std::memory_order_acq_rel) == 1;
    }
    uint32_t value = count.load(std::memory_order_relaxed) - 1;
    count.store(value, std::memory_order_relaxed);
    return value == 0;
  }
  // Called before anything lets another thread touch this invocation, and
  // before anything keeps it alive past Start: from then on it owns a copy
  // of the execution context (until then it borrows the caller's, saving
  // the request's two atomic reference-count updates per execution).
  // Results not produced yet get their placeholders here, still exclusive
  // (an exclusive execution produces every result before Start returns, so
  // it hands out the values themselves: no placeholder, no forwarding).
  void BecomeConcurrent() {
    if (concurrent_.load(std::memory_order_relaxed)) return;
    owned_context_.emplace(*context_);
    context_ = &*owned_context_;
    // Borrowed arguments still in use get the registers' references.
    for (uint32_t a = 0; a < info_->num_arguments; ++a) {
      Register& r = registers_[a];
      if (r.value != nullptr && r.remaining_uses.load(std::memory_order_relaxed) > 0) {
        r.value->AddRef();
      }
    }
    arguments_borrowed_ = false;
    CreateResultPlaceholders();
    concurrent_.store(true, std::memory_order_relaxed);
  }
  void CreateResultPlaceholders();
  // Hands out the results once the execution has run as far as it can on
  // this thread (see BecomeConcurrent).
  void TakeResults(std::span<RCReference<AsyncValue>> results);

  [[gnu::always_inline]] void DecrementReadyCount(ReadyQueue& queue,
                                                 uint32_t kernel) {
    // A kernel with one operand is decremented once: no count needed.
    const ExecutionPlan::Schedule& schedule = plan_->schedule[kernel];
    if (schedule.ready_count == 1 || Decrement(ready_counts_[kernel])) {
      Enqueue(queue, kernel, schedule.stream);
    }
  }

  // One use of a register by a kernel is over; the last drops its value
  // (unless the register only borrows it).
  [[gnu::always_inline]] void ReleaseUse(uint32_t reg) {
    Register& r = registers_[reg];
    if (Decrement(r.remaining_uses) && !IsBorrowedArgument(reg)) r.value->DropRef();
  }
  // Whether `reg` holds a function argument without a reference of its own:
  // while the invocation is exclusive, Start's caller keeps the arguments
  // alive, so their registers borrow them (two atomic reference-count
  // updates fewer per argument); BecomeConcurrent takes the references.
  bool IsBorrowedArgument(uint32_t reg) const {
    return reg < info_->num_arguments && arguments_borrowed_;
  }

  [[gnu::always_inline]] void DecrementUsers(ReadyQueue& queue, AsyncValue* value,
                                             const uint32_t* users, uint32_t count) {
    if (count == 0) return;
    if (value->IsAvailable()) [[likely]] {
      for (uint32_t i = 0; i < count; ++i) DecrementReadyCount(queue, users[i]);
      return;
    }
    DeferUsers(queue, value, users, count);
  }
  // Defers the users of an unavailable value until it is available.
  void DeferUsers(ReadyQueue& queue, AsyncValue* value, const uint32_t* users,
                  uint32_t count);
  // Stores `value` (one reference) in `reg` with as many references as the
  // register has uses, or forwards the result placeholder stored there.
  AsyncValue* Publish(uint32_t reg, RCReference<AsyncValue> value);
  void RunKernel(ReadyQueue& queue, uint32_t kernel);
  // Runs a kernel through its direct entry point; false (nothing done) when
  // the frame path must run it: an operand is an error or of another type,
  // or the request is cancelled, budgeted or traced.
  bool RunDirectKernel(ReadyQueue& queue, uint32_t kernel,
                       const ExecutionPlan::DirectStep& step);
  void RunFrameKernel(ReadyQueue& queue, uint32_t kernel);
  // Whether every kernel must run through its frame (request checks).
  bool NeedsFrames() const {
    RequestContext* request = context_->request_context();
    return request->has_kernel_budget() || request->GetCancelAsyncValue() != nullptr ||
           IsTracing();
  }
  // Runs the kernel inside a trace span (tracing.h).
  [[gnu::noinline]] void RunKernelTraced(const KernelInfo& kernel,
                                         AsyncKernelFrame* frame);
  void Process(ReadyQueue& queue);
  void ProcessQueue(ReadyQueue& queue);

  const BefProgram* program_;
  const ExecutionPlan* plan_;
  const FunctionInfo* info_;
  const size_t size_;  // of this allocation
  // The caller's context while the invocation is exclusive (Start is on
  // the stack), then owned_context_ (see BecomeConcurrent).
  const ExecutionContext* context_;
  std::optional<ExecutionContext> owned_context_;
  // A register: its value (one reference while kernel uses remain) and the
  // kernel uses still to come; or, when unboxed_producer is set, the
  // unboxed payload written by that direct kernel (execution_plan.h).
  struct Register {
    union {
      AsyncValue* value;
      alignas(8) unsigned char payload[kDirectResultSize];
    };
    std::atomic<uint32_t> remaining_uses;
    uint32_t unboxed_producer;  // a kernel index (> 0), or 0: `value`
  };
  // A new value holding an unboxed register's payload.
  AsyncValue* Box(const Register& r) const {
    return plan_->direct[r.unboxed_producer].box(r.payload);
  }
  // Uses of `reg` by kernels (register uses minus return uses).
  uint32_t KernelUses(uint32_t reg) const {
    uint32_t uses = info_->register_uses[reg];
    for (uint32_t result : info_->result_registers) uses -= result == reg;
    return uses;
  }

  // Keep-alive count: the running loop, pending continuations, queued tasks.
  std::atomic<uint32_t> refs_{1};
  std::atomic<bool> concurrent_{false};
  bool arguments_borrowed_ = true;  // see IsBorrowedArgument
  const KernelBinding* binding_template_;
  const uint8_t* attribute_pool_;
  Register* registers_;
  std::atomic<uint32_t>* ready_counts_;
  // Per function result: 1 when its register holds a placeholder created by
  // CreateResultPlaceholders.
  uint8_t* placeholder_results_;
};

AsyncValue* Invocation::Publish(uint32_t reg, RCReference<AsyncValue> value) {
  Register& r = registers_[reg];
  if (r.value != nullptr) {
    // A function result: forward the placeholder handed out at the start and
    // release the invocation's pin on it. Users read the placeholder.
    auto* placeholder = static_cast<IndirectAsyncValue*>(r.value);
    placeholder->ForwardTo(std::move(value));
    placeholder->DropRef();
    return placeholder;
  }
  uint32_t uses = info_->register_uses[reg];
  if (uses == 0) return nullptr;  // the reference is dropped here
  r.value = value.release();
  r.remaining_uses.store(uses, std::memory_order_relaxed);
  return r.value;
}

void Invocation::DeferUsers(ReadyQueue& queue, AsyncValue* value,
                            const uint32_t* users, uint32_t count) {
  // Defer the users until the value is available; the continuation keeps
  // the invocation alive and processes on a fresh queue of this stream.
  BecomeConcurrent();
  AddRef();
  uint32_t stream = queue.stream;
  value->AndThen([this, users, count, stream] {
    auto continuation = [this, users, count, stream] {
      ReadyQueue ready(stream);
      for (uint32_t i = 0; i < count; ++i) DecrementReadyCount(ready, users[i]);
      Process(ready);
      DropRef();
    };
    if (continuation_nesting >= kMaxContinuationNesting) {
      context_->host()->EnqueueWork(std::move(continuation));
      return;
    }
    ++continuation_nesting;
    continuation();
    --continuation_nesting;
  });
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
      uint32_t kernel_uses = KernelUses(reg);
      uint32_t return_uses = info_->register_uses[reg] - kernel_uses;
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
      uint32_t uses = info_->register_uses[a];
      if (uses > 0) {
        // The register's reference (see IsBorrowedArgument).
        if (!arguments_borrowed_) argument->AddRef();
        r.value = argument;
        r.remaining_uses.store(uses, std::memory_order_relaxed);
      }
      published = argument;
    }
    DecrementUsers(queue, published, used_by, count);
    used_by += count;
  }
  Process(queue);
  TakeResults(results);
  DropRef();
}

void Invocation::Process(ReadyQueue& queue) {
  Invocation* previous = current_invocation;
  current_invocation = this;
  ProcessQueue(queue);
  current_invocation = previous;
}

void Invocation::ProcessQueue(ReadyQueue& queue) {
  while (true) {
    if (queue.inline_kernels.empty()) {
      if (queue.outline_kernels.empty()) return;
      // Switch to the stream of the first outline kernel.
      queue.stream = plan_->schedule[queue.outline_kernels.front()].stream;
      auto& outline = queue.outline_kernels;
      auto moved = std::stable_partition(
          outline.begin(), outline.end(),
          [&](uint32_t k) { return plan_->schedule[k].stream != queue.stream; });
      queue.inline_kernels.assign(moved, outline.end());
      outline.erase(moved, outline.end());
    }
    if (!queue.outline_kernels.empty()) {
      // One work-queue task per other stream, in ascending stream order.
      auto& outline = queue.outline_kernels;
      std::stable_sort(outline.begin(), outline.end(), [&](uint32_t a, uint32_t b) {
        return plan_->schedule[a].stream < plan_->schedule[b].stream;
      });
      for (size_t begin = 0; begin < outline.size();) {
        uint32_t stream = plan_->schedule[outline[begin]].stream;
        size_t end = begin;
        while (end < outline.size() && plan_->schedule[outline[end]].stream == stream) ++end;
        BecomeConcurrent();
        AddRef();
        std::vector<uint32_t> group(outline.begin() + begin, outline.begin() + end);
        context_->host()->EnqueueWork([this, stream, group = std::move(group)] {
          ReadyQueue ready(stream);
          ready.inline_kernels.assign(group.begin(), group.end());
          Process(ready);
          DropRef();
        });
        begin = end;
      }
      outline.clear();
    }
    RunKernel(queue, queue.inline_kernels.pop_back());
  }
}

void Invocation::RunKernel(ReadyQueue& queue, uint32_t k) {
  const ExecutionPlan::DirectStep& step = plan_->direct[k];
  if (step.run != nullptr && RunDirectKernel(queue, k, step)) return;
  RunFrameKernel(queue, k);
}

bool Invocation::RunDirectKernel(ReadyQueue& queue, uint32_t k,
                                 const ExecutionPlan::DirectStep& step) {
  if (NeedsFrames()) [[unlikely]] return false;
  const ExecutionPlan::DirectOperand* operands = plan_->operands.data() + step.first_operand;
  const uint32_t num_operands = step.num_operands;
  const void* payloads[kMaxDirectArguments];
  for (uint32_t i = 0; i < num_operands; ++i) {
    Register& r = registers_[operands[i].reg];
    if (r.unboxed_producer != 0) {
      payloads[i] = r.payload;
      continue;
    }
    AsyncValue* value = r.value;
    if (value->IsError()) [[unlikely]] return false;
    if (operands[i].type != kAnyOperandType && value->type_id() != operands[i].type)
        [[unlikely]] {
      return false;
    }
    payloads[i] = value->ScalarPayload();
  }

  // An unboxed result is written into its register, any other beside it.
  alignas(8) unsigned char boxed_payload[kDirectResultSize];
  Register& result = registers_[step.result_register];
  unsigned char* payload = step.unboxed_result ? result.payload : boxed_payload;
  step.run(payloads, attribute_pool_, step.attribute_offsets, payload);
  for (uint32_t i = 0; i < num_operands; ++i) {
    uint32_t reg = operands[i].reg;
    if (registers_[reg].unboxed_producer == 0) ReleaseUse(reg);
  }
  if (step.unboxed_result) {
    result.unboxed_producer = k;
    // Published before the users' ready counts drop (release ordering of
    // the decrement, once concurrent).
    for (uint32_t u = 0; u < step.num_users; ++u) DecrementReadyCount(queue, step.users[u]);
    return true;
  }
  // Read before publishing: a forwarded function result may let the
  // caller destroy the program (and with it the plan).
  const uint32_t* users = step.users;
  const uint32_t num_users = step.num_users;
  AsyncValue* published = Publish(step.result_register, TakeRef(step.box(payload)));
  if (published != nullptr) DecrementUsers(queue, published, users, num_users);
  return true;
}

void Invocation::RunFrameKernel(ReadyQueue& queue, uint32_t k) {
  const KernelInfo& kernel = info_->kernels[k];
  // Spans into the record, taken before anything is published (see below).
  const std::span<const uint32_t> argument_registers = kernel.arguments();
  const std::span<const uint32_t> attribute_offsets = kernel.attributes();
  const std::span<const uint32_t> function_indices = kernel.functions();
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
  RCReference<AsyncValue> inline_results[kInlineResults];
  std::unique_ptr<RCReference<AsyncValue>[]> heap_results;
  RCReference<AsyncValue>* results = inline_results;
  if (num_results > kInlineResults) {
    heap_results.reset(new RCReference<AsyncValue>[num_results]);
    results = heap_results.get();
  }

  AsyncValue* error = nullptr;
  for (uint32_t i = 0; i < num_arguments; ++i) {
    const Register& r = registers_[argument_registers[i]];
    // An unboxed payload is boxed for the call (dropped below).
    AsyncValue* value = r.unboxed_producer == 0 ? r.value : Box(r);
    arguments[i] = value;
    if (value->IsError()) error = value;  // the last error operand wins
  }
  RequestContext* request = context_->request_context();
  if (request->has_kernel_budget()) [[unlikely]] request->ConsumeKernelBudget();
  if (error == nullptr) error = request->GetCancelAsyncValue();

  if (error == nullptr) [[likely]] {
    KernelBinding binding = *binding_template_;
    binding.attribute_offsets = attribute_offsets.data();
    binding.num_attributes = static_cast<uint32_t>(attribute_offsets.size());
    binding.function_indices = function_indices.data();
    binding.num_functions = static_cast<uint32_t>(function_indices.size());
    binding.executor = &kernel;
    AsyncKernelFrame frame(context_, binding, {arguments, num_arguments},
                           {results, num_results},
                           Location{&program_->file(), kernel.location()});
    if (IsTracing()) [[unlikely]] {
      RunKernelTraced(kernel, &frame);
    } else {
      kernel.async_implementation(&frame);
    }
    for (uint32_t i = 0; i < num_results; ++i) {
      if (!results[i]) [[unlikely]] {
        results[i] = MakeErrorAsyncValueRef(absl::InternalError(absl::StrCat(
            "kernel '", ToAbsl(program_->file().kernel_name(kernel.code())),
            "' did not set result ", i)));
      }
    }
  } else {
    for (uint32_t i = 0; i < num_results; ++i) results[i] = FormRef(error);
  }

  // Release the operands (a value whose last user just ran is destroyed
  // here), then publish the results.
  for (uint32_t i = 0; i < num_arguments; ++i) {
    uint32_t reg = argument_registers[i];
    if (registers_[reg].unboxed_producer == 0) {
      ReleaseUse(reg);
    } else {
      arguments[i]->DropRef();
    }
  }
  for (uint32_t i = 0; i < num_results; ++i) {
    // Read from the image before publishing: a forwarded function result
    // may let the caller destroy the program.
    uint32_t users = used_by_counts[i];
    AsyncValue* published = Publish(result_registers[i], std::move(results[i]));
    if (published != nullptr) DecrementUsers(queue, published, used_by, users);
    used_by += users;
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

// ---- Straight-line execution (execution_plan.h).

// A register of a straight-line execution: the payload only.
struct PayloadRegister {
  alignas(8) unsigned char bytes[kDirectResultSize];
};

// Registers of straight-line executions too large for the stack, reused
// by the thread's next one (straight-line executions never nest: direct
// kernels call nothing).
PayloadRegister* ScratchRegisters(size_t count) {
  thread_local std::unique_ptr<PayloadRegister[]> scratch;
  thread_local size_t capacity = 0;
  if (capacity < count) {
    scratch.reset(new PayloadRegister[count]);
    capacity = count;
  }
  return scratch.get();
}

// How many kernels run between two looks at the request's cancellation.
constexpr size_t kCancellationInterval = 64;
// Levels of at least this many kernels are split between the work queue's
// threads, in chunks of kParallelChunk kernels.
constexpr uint32_t kParallelChunk = 1024;
constexpr uint32_t kParallelLevel = 4 * kParallelChunk;

// Runs the steps of a straight-line plan on one set of registers. A local
// copy keeps these pointers in machine registers across the kernels' calls
// (through the plan they would be reloaded after every call).
struct LineCursor {
  LineCursor(const ExecutionPlan& plan, PayloadRegister* registers,
             const uint8_t* attribute_pool)
      : steps(plan.line.data()),
        operands(plan.line_operands.data()),
        attribute_pool(attribute_pool),
        registers(registers) {}

  // Runs the kernel at position `at` of the line.
  [[gnu::always_inline]] void Run(uint32_t at) const {
    const ExecutionPlan::LineStep& step = steps[at];
    const uint32_t* operand_registers = operands + step.first_operand;
    const void* payloads[kMaxDirectArguments];
    switch (step.num_operands) {  // most kernels read one or two
      case 2:
        payloads[1] = registers[operand_registers[1]].bytes;
        [[fallthrough]];
      case 1:
        payloads[0] = registers[operand_registers[0]].bytes;
        [[fallthrough]];
      case 0:
        break;
      default:
        for (uint32_t i = 0; i < step.num_operands; ++i) {
          payloads[i] = registers[operand_registers[i]].bytes;
        }
    }
    step.run(payloads, attribute_pool, step.attribute_offsets,
             registers[step.result_register].bytes);
  }
  // Runs line[begin, end).
  [[gnu::always_inline]] void Run(uint32_t begin, uint32_t end) const {
    for (uint32_t at = begin; at < end; ++at) Run(at);
  }

  const ExecutionPlan::LineStep* steps;
  const uint32_t* operands;
  const uint8_t* attribute_pool;
  PayloadRegister* registers;
};

// The wide levels of one straight-line run, shared with helper tasks on the
// work queue's other threads. The running thread publishes one level at a
// time in `claim` (level << 32 | next chunk); every thread claims chunks
// with a compare-and-swap on it, so a chunk is only ever claimed in the
// level it belongs to, and the running thread moves on only when all of a
// level's chunks are done. A helper touches the registers only inside a
// claimed chunk, hence only while the running thread waits for it; between
// levels it spins (briefly) for the next one instead of going back to sleep,
// so one wake-up serves the whole run. It co-owns this object.
struct ParallelRun : std::enable_shared_from_this<ParallelRun> {
  const ExecutionPlan* plan;
  PayloadRegister* registers;
  const uint8_t* attribute_pool;
  std::atomic<uint64_t> claim{UINT64_MAX};  // no level yet
  std::atomic<uint32_t> done_chunks{0};
  std::atomic<bool> finished{false};
  std::atomic<int> idle_helpers{0};  // helpers waiting for a level

  static uint32_t NumChunks(const ExecutionPlan& plan, uint32_t level) {
    return (plan.level_begin[level + 1] - plan.level_begin[level] + kParallelChunk - 1) /
           kParallelChunk;
  }
  void RunChunk(uint32_t level, uint32_t chunk) {
    uint32_t first = plan->level_begin[level] + chunk * kParallelChunk;
    uint32_t last = std::min(plan->level_begin[level + 1], first + kParallelChunk);
    LineCursor(*plan, registers, attribute_pool).Run(first, last);
    // Publishes the chunk's registers to the running thread.
    done_chunks.fetch_add(1, std::memory_order_release);
  }
  // Claims and runs chunks of the published level until none is left;
  // false when there was no level to work on.
  bool ClaimChunks() {
    bool worked = false;
    uint64_t current = claim.load(std::memory_order_acquire);
    while (current != UINT64_MAX) {
      uint32_t level = static_cast<uint32_t>(current >> 32);
      uint32_t chunk = static_cast<uint32_t>(current);
      if (chunk >= NumChunks(*plan, level)) break;
      if (claim.compare_exchange_weak(current, current + 1, std::memory_order_acq_rel)) {
        RunChunk(level, chunk);
        worked = true;
        current = claim.load(std::memory_order_acquire);
      }
    }
    return worked;
  }
  // A helper task: works on levels as they come, gives up after a while
  // without one.
  void Help() {
    auto idle_since = std::chrono::steady_clock::now();
    while (!finished.load(std::memory_order_acquire)) {
      if (ClaimChunks()) {
        idle_since = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - idle_since >
                 std::chrono::microseconds(200)) {
        break;
      } else {
        std::this_thread::yield();
      }
    }
    idle_helpers.fetch_sub(1, std::memory_order_relaxed);
  }
  // The running thread: publishes `level`, works on it, waits for the
  // chunks other threads claimed.
  void RunLevel(uint32_t level, HostContext* host) {
    done_chunks.store(0, std::memory_order_relaxed);
    claim.store(uint64_t{level} << 32, std::memory_order_release);
    // Helpers that gave up are replaced (as many as the queue has threads).
    while (idle_helpers.load(std::memory_order_relaxed) < host->GetNumWorkerThreads() - 1) {
      idle_helpers.fetch_add(1, std::memory_order_relaxed);
      host->EnqueueWork([self = shared_from_this()] { self->Help(); });
    }
    ClaimChunks();
    const uint32_t num_chunks = NumChunks(*plan, level);
    while (done_chunks.load(std::memory_order_acquire) < num_chunks) {
      std::this_thread::yield();
    }
  }
};

// Whether a straight-line run may start: the arguments are available and
// of the payload types the kernels read, and the request is neither
// cancelled nor traced. Otherwise the dataflow executor runs the function.
[[gnu::always_inline]] inline bool StraightLineMayStart(const ExecutionPlan& plan,
                                                       RequestContext* request,
                                                       std::span<AsyncValue* const> arguments) {
  if (request->GetCancelAsyncValue() != nullptr || IsTracing() ||
      arguments.size() != plan.info->num_arguments) [[unlikely]] {
    return false;
  }
  for (uint32_t a : plan.typed_arguments) {
    if (!arguments[a]->IsConcrete() || arguments[a]->type_id() != plan.argument_types[a]) {
      return false;
    }
  }
  return true;
}

// Charges the request's kernel budget, if any, for `runs` runs of every
// kernel up front; false, charging nothing, when that could exhaust it (the
// dataflow path then stops at the exact kernel).
[[gnu::always_inline]] inline bool ChargeStraightLineBudget(const ExecutionPlan& plan,
                                                           RequestContext* request,
                                                           int64_t runs) {
  return !request->has_kernel_budget() ||
         request->TryConsumeKernelBudget(runs * static_cast<int64_t>(plan.line.size()));
}

// The payload registers of one straight-line run: on the stack when few,
// else the thread's scratch registers.
class StraightLineRegisters {
 public:
  explicit StraightLineRegisters(uint32_t count)
      : registers_(count <= kInline ? inline_ : ScratchRegisters(count)) {}
  StraightLineRegisters(const StraightLineRegisters&) = delete;
  StraightLineRegisters& operator=(const StraightLineRegisters&) = delete;

  PayloadRegister* get() const { return registers_; }

  // Copies the payloads of the arguments read as payloads into their
  // registers. A direct operand's payload is at most kDirectResultSize
  // bytes, and the value object extends at least that far past its header.
  void LoadArguments(const ExecutionPlan& plan, std::span<AsyncValue* const> arguments) {
    for (uint32_t a : plan.typed_arguments) {
      std::memcpy(registers_[a].bytes, arguments[a]->ScalarPayload(), kDirectResultSize);
    }
  }

 private:
  static constexpr uint32_t kInline = 32;
  PayloadRegister inline_[kInline];
  PayloadRegister* registers_;
};

// Runs line[begin, stop) on this thread; returns the position of the first
// kernel not run (stop, unless a cancellation stopped it). Cancellation is
// looked at before every kCancellationInterval kernels but the first (the
// caller looked just before).
uint32_t RunLineRange(const LineCursor cursor, uint32_t begin, uint32_t stop,
                      RequestContext* request) {
  for (uint32_t block = begin; block < stop; block += kCancellationInterval) {
    if (block != begin && request->GetCancelAsyncValue() != nullptr) [[unlikely]] {
      return block;
    }
    cursor.Run(block, std::min<uint32_t>(stop, block + kCancellationInterval));
  }
  return stop;
}

// One run of a whole line of `num_kernels` steps (in a repeated run):
// false, part run, on a cancellation, looked at before the run and every
// kCancellationInterval kernels.
[[gnu::always_inline]] inline bool RunLineOnce(const LineCursor& cursor, uint32_t num_kernels,
                                               RequestContext* request) {
  if (request->GetCancelAsyncValue() != nullptr) [[unlikely]] return false;
  if (num_kernels <= kCancellationInterval) [[likely]] {
    cursor.Run(0, num_kernels);
    return true;
  }
  return RunLineRange(cursor, 0, num_kernels, request) == num_kernels;
}

// Runs the line level by level; a wide level is split between the work
// queue's threads. Cancellation is looked at before every level and, in a
// level run on this thread, every kCancellationInterval kernels. Returns as
// RunLineRange.
[[gnu::noinline]] uint32_t RunLevelsInParallel(const ExecutionPlan& plan,
                                               PayloadRegister* registers,
                                               const uint8_t* attribute_pool,
                                               RequestContext* request, HostContext* host) {
  auto parallel = std::make_shared<ParallelRun>();
  parallel->plan = &plan;
  parallel->registers = registers;
  parallel->attribute_pool = attribute_pool;
  const LineCursor cursor(plan, registers, attribute_pool);
  uint32_t end = static_cast<uint32_t>(plan.line.size());
  for (uint32_t level = 0; level + 1 < plan.level_begin.size(); ++level) {
    uint32_t begin = plan.level_begin[level];
    uint32_t stop = plan.level_begin[level + 1];
    if (request->GetCancelAsyncValue() != nullptr) {  // before every level
      end = begin;
      break;
    }
    if (stop - begin >= kParallelLevel) {
      parallel->RunLevel(level, host);
    } else if (uint32_t ran_to = RunLineRange(cursor, begin, stop, request); ran_to != stop) {
      end = ran_to;
      break;
    }
  }
  parallel->finished.store(true, std::memory_order_release);
  return end;
}

// The results of a straight-line run that stopped at position `end` of the
// line, or returns an argument or a register twice.
[[gnu::noinline]] void SetStraightLineResults(const ExecutionPlan& plan, uint32_t end,
                                              const PayloadRegister* registers,
                                              RequestContext* request,
                                              std::span<AsyncValue* const> arguments,
                                              std::span<RCReference<AsyncValue>> results) {
  const FunctionInfo& info = *plan.info;
  for (size_t i = 0; i < results.size(); ++i) {
    uint32_t reg = info.result_registers[i];
    uint32_t producer = plan.result_producers[i];
    uint32_t position = plan.result_positions[i];
    uint32_t same = plan.first_result_of_register[i];
    if (same < i) {
      results[i] = results[same];
    } else if (producer == 0) {
      results[i] = FormRef(arguments[reg]);
    } else if (position >= end) {
      results[i] = FormRef(request->GetCancelAsyncValue());
    } else {
      results[i] = TakeRef(plan.direct[producer].box(registers[reg].bytes));
    }
  }
}

// Runs a straight-line function; false, with nothing done, when the
// dataflow executor must run it (StraightLineMayStart, or the request's
// kernel budget would run out on the way).
// A cancellation noticed on the way makes the results of the kernels not
// run yet the cancellation's error, as the dataflow executor does.
bool RunStraightLine(const BefProgram& program, const ExecutionPlan& plan,
                     const ExecutionContext& context, std::span<AsyncValue* const> arguments,
                     std::span<RCReference<AsyncValue>> results) {
  RequestContext* request = context.request_context();
  if (!StraightLineMayStart(plan, request, arguments)) return false;
  if (!ChargeStraightLineBudget(plan, request, 1)) return false;
  StraightLineRegisters storage(plan.info->num_registers);
  PayloadRegister* registers = storage.get();
  storage.LoadArguments(plan, arguments);
  const uint8_t* attribute_pool = program.kernel_binding().attribute_pool;
  const uint32_t num_kernels = static_cast<uint32_t>(plan.line.size());
  uint32_t end = num_kernels;  // the position in plan.line of the first kernel not run
  if (num_kernels <= kCancellationInterval) {
    LineCursor(plan, registers, attribute_pool).Run(0, num_kernels);
  } else if (plan.widest_level < kParallelLevel || context.host()->GetNumWorkerThreads() < 2) {
    end = RunLineRange(LineCursor(plan, registers, attribute_pool), 0, num_kernels, request);
  } else {
    end = RunLevelsInParallel(plan, registers, attribute_pool, request, context.host());
  }
  if (plan.results_boxed_directly && end == num_kernels) [[likely]] {
    const uint32_t* result_registers = plan.info->result_registers.data();
    for (size_t i = 0; i < results.size(); ++i) {
      results[i] = TakeRef(plan.result_boxers[i](registers[result_registers[i]].bytes));
    }
  } else {
    SetStraightLineResults(plan, end, registers, request, arguments, results);
  }
  return true;
}

// BefFunction::ExecuteRepeated for a loop-carried straight-line plan: the
// loop values stay payloads in the argument registers between runs. A loop
// value is, per position, either still an argument's value (`origins`, a
// result returning an argument unchanged) or the payload of a kernel's
// result, boxed at the end by that kernel (`boxers`). Same conditions as
// RunStraightLine, the budget charged for all runs up front; cancellation
// is looked at before every run and every kCancellationInterval kernels,
// and makes every result its error.
bool RunRepeatedStraightLine(const BefProgram& program, const ExecutionPlan& plan,
                             const ExecutionContext& context, int32_t count,
                             std::span<AsyncValue* const> arguments,
                             std::span<RCReference<AsyncValue>> results) {
  RequestContext* request = context.request_context();
  if (!StraightLineMayStart(plan, request, arguments)) return false;
  const FunctionInfo& info = *plan.info;
  if (!ChargeStraightLineBudget(plan, request, count)) return false;
  StraightLineRegisters storage(info.num_registers);
  PayloadRegister* registers = storage.get();
  storage.LoadArguments(plan, arguments);
  const uint32_t num_values = info.num_arguments;
  const uint32_t* result_registers = info.result_registers.data();
  const uint32_t* producers = plan.result_producers.data();
  const uint8_t* attribute_pool = program.kernel_binding().attribute_pool;
  const uint32_t num_kernels = static_cast<uint32_t>(plan.line.size());
  // On a cancellation every result is its error.
  auto cancel_results = [&] {
    for (auto& result : results) result = FormRef(request->GetCancelAsyncValue());
    return true;
  };
  const LineCursor cursor(plan, registers, attribute_pool);
  bool returns_an_argument = false;
  for (uint32_t i = 0; i < num_values; ++i) returns_an_argument |= producers[i] == 0;
  if (!returns_an_argument) {
    // Every loop value is a kernel's result, in a register other than the
    // arguments': copied straight into argument i.
    for (int32_t run = 0; run < count; ++run) {
      if (!RunLineOnce(cursor, num_kernels, request)) [[unlikely]] return cancel_results();
      for (uint32_t i = 0; i < num_values; ++i) registers[i] = registers[result_registers[i]];
    }
    for (uint32_t i = 0; i < num_values; ++i) {
      results[i] = TakeRef(plan.direct[producers[i]].box(registers[i].bytes));
    }
    return true;
  }
  // Per loop value: the argument value it still is (a result returning an
  // argument unchanged), or null once a kernel produced it, then boxed at
  // the end by `boxers[i]`.
  std::vector<AsyncValue*> origins(arguments.begin(), arguments.end());
  std::vector<uint32_t> boxers(num_values, 0);
  std::vector<PayloadRegister> next_payloads(num_values);
  std::vector<AsyncValue*> next_origins(num_values);
  std::vector<uint32_t> next_boxers(num_values);
  for (int32_t run = 0; run < count; ++run) {
    if (!RunLineOnce(cursor, num_kernels, request)) [[unlikely]] return cancel_results();
    for (uint32_t i = 0; i < num_values; ++i) {
      uint32_t reg = result_registers[i];
      next_payloads[i] = registers[reg];
      next_origins[i] = producers[i] == 0 ? origins[reg] : nullptr;
      next_boxers[i] = producers[i] == 0 ? boxers[reg] : producers[i];
    }
    for (uint32_t i = 0; i < num_values; ++i) registers[i] = next_payloads[i];
    origins.swap(next_origins);
    boxers.swap(next_boxers);
  }
  for (uint32_t i = 0; i < num_values; ++i) {
    results[i] = origins[i] != nullptr ? FormRef(origins[i])
                                       : TakeRef(plan.direct[boxers[i]].box(registers[i].bytes));
  }
  return true;
}

}  // namespace

uint32_t RemainingUsesInRunningInvocation(const void* executor, size_t index) {
  return Invocation::RemainingUses(executor, index);
}

absl::StatusOr<const ExecutionPlan*> BefFunction::Plan() const {
  absl::StatusOr<const FunctionInfo*> inflated = program_->file().GetFunctionInfo(index_);
  if (!inflated.ok()) return inflated.status();
  // Executions racing to be first may each build one; the first stored wins.
  auto plan = std::make_unique<ExecutionPlan>(**inflated);
  const ExecutionPlan* expected = nullptr;
  if (plan_.compare_exchange_strong(expected, plan.get(), std::memory_order_acq_rel)) {
    return plan.release();
  }
  return expected;
}

bool BefFunction::ExecuteRepeated(const ExecutionContext& context, int32_t count,
                                  std::span<AsyncValue* const> arguments,
                                  std::span<RCReference<AsyncValue>> results) const {
  const ExecutionPlan* plan = plan_.load(std::memory_order_acquire);
  if (plan == nullptr) {
    absl::StatusOr<const ExecutionPlan*> planned = Plan();
    if (!planned.ok()) return false;  // Execute reports it
    plan = *planned;
  }
  if (!plan->straight_line || !plan->loop_carried) return false;
  return RunRepeatedStraightLine(*program_, *plan, context, count, arguments, results);
}

void BefFunction::Execute(const ExecutionContext& context,
                          std::span<AsyncValue* const> arguments,
                          std::span<RCReference<AsyncValue>> results) const {
  const ExecutionPlan* plan = plan_.load(std::memory_order_acquire);
  if (plan == nullptr) [[unlikely]] {
    absl::StatusOr<const ExecutionPlan*> planned = Plan();
    if (!planned.ok()) {
      // A malformed record is found when the function first runs; it is
      // reported like a load error (at every execution).
      context.host()->EmitError({std::nullopt, planned.status()});
      RCReference<AsyncValue> error = MakeErrorAsyncValueRef(planned.status());
      for (auto& result : results) result = error;
      return;
    }
    plan = *planned;
  }
  if (plan->straight_line && RunStraightLine(*program_, *plan, context, arguments, results)) {
    return;
  }
  if (execution_nesting >= kMaxExecutionNesting) {
    // Too deep on this thread: run later from the work queue, with
    // placeholders for the results now.
    std::vector<RCReference<AsyncValue>> argument_refs = CopyRefs(arguments);
    std::vector<RCReference<IndirectAsyncValue>> placeholders;
    for (auto& result : results) {
      placeholders.push_back(MakeIndirectAsyncValue());
      result = placeholders.back();
    }
    context.host()->EnqueueWork(
        [this, context, argument_refs = std::move(argument_refs),
         placeholders = std::move(placeholders)]() mutable {
          std::vector<AsyncValue*> argument_values;
          for (auto& argument : argument_refs) argument_values.push_back(argument.get());
          std::vector<RCReference<AsyncValue>> values(placeholders.size());
          Execute(context, argument_values, values);
          for (size_t i = 0; i < values.size(); ++i) {
            placeholders[i]->ForwardTo(std::move(values[i]));
          }
        });
    return;
  }
  ++execution_nesting;
  if (IsTracing()) [[unlikely]] {
    TraceSpan span("function", name().empty() ? "<anonymous function>" : name());
    Invocation::Create(program_, plan, context)->Start(arguments, results);
  } else {
    Invocation::Create(program_, plan, context)->Start(arguments, results);
  }
  --execution_nesting;
}

}  // namespace bef
