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
#include "lib/executor/invocation.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
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
                            const ExecutionContext& context, const FastPathPolicy& policy) {
    size_t size = Size(plan->info);
    // Small invocations (loop bodies, calls) reuse per-thread free blocks.
    void* memory = internal::AllocateValueMemory(size);
    return new (memory) Invocation(program, plan, context, policy);
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
             const ExecutionContext& context, const FastPathPolicy& policy)
      : program_(program),
        plan_(plan),
        info_(plan->info),
        size_(Size(plan->info)),
        context_(&context),
        binding_template_(&program->kernel_binding()),
        attribute_pool_(binding_template_->attribute_pool),
        policy_(policy) {
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
  // or the policy refuses (the request is cancelled, budgeted or traced).
  bool RunDirectKernel(ReadyQueue& queue, uint32_t kernel,
                       const ExecutionPlan::DirectStep& step);
  void RunFrameKernel(ReadyQueue& queue, uint32_t kernel);
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
  // Which fast paths this execution may take (fast_path_policy.h).
  const FastPathPolicy policy_;
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
  if (!policy_.DirectKernelsAllowed()) [[unlikely]] return false;
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
    if (policy_.traced()) [[unlikely]] {
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

}  // namespace

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
