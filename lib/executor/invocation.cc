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
// (RunSegment); its other kernels keep no ready counts.
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
#include <bit>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_frame.h"
#include "bef/host/tracing.h"
#include "bef/support/debug_check.h"
#include "bef/support/string_view.h"
#include "lib/executor/functions.h"
#include "lib/executor/line_cursor.h"

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

// Where a segment resumes after a deferred step (RunDeferredSteps).
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

// What a call step did instead of writing each result's payload (a copy
// of line_direct_call's, which the next call on the thread reuses).
struct CallOutcome {
  absl::Status error;
  uint32_t emplaced = 0;
  uint32_t valued = 0;
  RCReference<AsyncValue> values[kMaxDirectResults];
};

// The kernels ready to run in one processing loop (§5.1).
struct ReadyQueue {
  explicit ReadyQueue(uint32_t stream) : stream(stream) {}
  uint32_t stream;
  KernelStack inline_kernels;
  // Inline storage for the usual few (no heap block per processing loop).
  absl::InlinedVector<uint32_t, 16> outline_kernels;
  // The deferred steps this loop reached and has not enqueued: its own, or
  // (in the task running deferred steps) the task's, which decides where
  // they run when it ends (RunDeferredSteps).
  DeferredSteps own_steps;
  DeferredSteps* steps = &own_steps;
};

class Invocation {
 public:
  static Invocation* Create(const BefProgram* program, const ExecutionPlan* plan,
                            const ExecutionContext& context, const FastPathPolicy& policy) {
    plan->EnsureSegments();
    size_t size = Size(plan);
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
        size_(Size(plan)),
        context_(&context),
        binding_template_(&program->kernel_binding()),
        attribute_pool_(binding_template_->attribute_pool),
        policy_(policy),
        num_arguments_(plan->info->num_arguments),
        num_shared_registers_(static_cast<uint32_t>(plan->shared_registers.size())),
        deferral_slots_(plan->deferral_slots) {
    // What every kernel's binding shares (the program's); RunKernel adds
    // the kernel's part.
    const FunctionInfo* info = info_;
    registers_ = reinterpret_cast<Register*>(this + 1);
    ready_counts_ = reinterpret_cast<std::atomic<uint32_t>*>(
        registers_ + info->num_registers);
    payloads_ = reinterpret_cast<PayloadRegister*>(ready_counts_ +
                                                   ((info->kernels.size() + 1) & ~size_t{1}));
    shared_registers_ = reinterpret_cast<uint32_t*>(payloads_ + plan->segment_registers);
    if (num_shared_registers_ > 0) {
      std::memcpy(shared_registers_, plan->shared_registers.data(),
                  sizeof(uint32_t) * num_shared_registers_);
    }
    placeholder_results_ = reinterpret_cast<uint8_t*>(shared_registers_ + num_shared_registers_);
    std::memset(placeholder_results_, 0, info->result_registers.size());
    // Registers start empty (all bytes zero) and the ready counts as the
    // loader computed them: bulk stores, not a constructor per element.
    static_assert(std::is_trivially_destructible_v<Register> &&
                  sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free);
    std::memset(static_cast<void*>(registers_), 0, sizeof(Register) * info->num_registers);
    std::memcpy(static_cast<void*>(ready_counts_), plan->initial_ready_counts.data(),
                sizeof(uint32_t) * info->kernels.size());
  }
  // Drops the values of shared registers (ExecutionPlan::shared_registers),
  // which hold their reference to the end. Reads only the invocation's own
  // memory: the program may be gone by now (see DropRef).
  ~Invocation() {
    for (uint32_t i = 0; i < num_shared_registers_; ++i) {
      const uint32_t reg = shared_registers_[i];
      AsyncValue* value = registers_[reg].value;
      if (value != nullptr && !IsBorrowedArgument(reg)) value->DropRef();
    }
    if (Deferral* block = deferrals_.load(std::memory_order_acquire); block != nullptr) {
      internal::FreeValueMemory(block, sizeof(Deferral) * deferral_slots_);
    }
  }

  // Layout: the invocation, the registers, the ready counts (4-byte
  // aligned: an even count keeps what follows 8-byte aligned), the
  // segments' payload registers, the placeholder marks.
  static size_t Size(const ExecutionPlan* plan) {
    const FunctionInfo* info = plan->info;
    return sizeof(Invocation) + sizeof(Register) * info->num_registers +
           sizeof(std::atomic<uint32_t>) * ((info->kernels.size() + 1) & ~size_t{1}) +
           sizeof(PayloadRegister) * plan->segment_registers +
           sizeof(uint32_t) * plan->shared_registers.size() + info->result_registers.size();
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
  [[gnu::always_inline]] bool Decrement(std::atomic<uint32_t>& count, uint32_t by = 1) {
    if (concurrent_.load(std::memory_order_relaxed)) {
      uint32_t before = count.fetch_sub(by, std::memory_order_acq_rel);
      BEF_DEBUG_CHECK(before >= by, "a ready or use count dropped below zero");
      return before == by;
    }
    // Exclusive: only the thread that started the invocation touches it.
    BEF_DEBUG_CHECK(std::this_thread::get_id() == starting_thread_,
                    "an exclusive invocation's count touched by another thread");
    uint32_t before = count.load(std::memory_order_relaxed);
    BEF_DEBUG_CHECK(before >= by, "a ready or use count dropped below zero");
    count.store(before - by, std::memory_order_relaxed);
    return before == by;
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

  // One of `kernel`'s operands arrived: a step toward its node.
  [[gnu::always_inline]] void DecrementReadyCount(ReadyQueue& queue,
                                                 uint32_t kernel) {
    // A kernel with one operand is decremented once: no count needed. A
    // segment's kernel after its head runs with the head, counted by none.
    const ExecutionPlan::Schedule& schedule = plan_->schedule[kernel];
    if (schedule.counted == ExecutionPlan::kNotCounted) return;
    if (schedule.ready_count == 1 || Decrement(ready_counts_[kernel])) {
      Enqueue(queue, kernel, schedule.stream);
    }
  }

  // `uses` uses of a register by kernels are over; the last drops its value
  // (unless the register only borrows it). A shared register's value stays
  // to the end of the invocation: its uses are not counted down, so kernels
  // on several threads never contend for its count.
  [[gnu::always_inline]] void ReleaseUse(uint32_t reg, uint32_t uses = 1) {
    if (plan_->shared_register[reg]) return;
    Register& r = registers_[reg];
    if (Decrement(r.remaining_uses, uses) && !IsBorrowedArgument(reg)) r.value->DropRef();
  }
  // Whether `reg` holds a function argument without a reference of its own:
  // while the invocation is exclusive, Start's caller keeps the arguments
  // alive, so their registers borrow them (two atomic reference-count
  // updates fewer per argument); BecomeConcurrent takes the references.
  bool IsBorrowedArgument(uint32_t reg) const {
    return reg < num_arguments_ && arguments_borrowed_;
  }

  // `value` was published in register `reg`: its users take a step, now
  // or when it is available.
  [[gnu::always_inline]] void DecrementUsers(ReadyQueue& queue, uint32_t reg,
                                             AsyncValue* value, const uint32_t* users,
                                             uint32_t count) {
    if (count == 0) return;
    if (value->IsAvailable()) [[likely]] {
      for (uint32_t i = 0; i < count; ++i) DecrementReadyCount(queue, users[i]);
      return;
    }
    DeferUsers(queue, reg, value, users, count);
  }
  // Defers the users of an unavailable value until it is available.
  void DeferUsers(ReadyQueue& queue, uint32_t reg, AsyncValue* value,
                  const uint32_t* users, uint32_t count);
  // The waiter deferring the users of one register (at most one per
  // register and execution): kept in the invocation's deferral block, so a
  // deferred kernel costs no allocation (ExecutionPlan::deferral_slot).
  struct Deferral : internal::WaiterNode {
    Invocation* invocation;
    const uint32_t* users;
    uint32_t count;
    uint32_t stream;
  };
  // The WaiterNode entry of a Deferral: runs its users, or posts them past
  // kMaxContinuationNesting nested continuations.
  static void ResumeDeferral(internal::WaiterNode* node);
  void RunDeferral(const Deferral& deferral);
  // Runs `continuation` when `value` is available: inline, or from the work
  // queue past kMaxContinuationNesting nested continuations.
  template <typename Continuation>
  void WhenAvailable(AsyncValue* value, Continuation continuation);
  // Runs `task` now, or from the work queue when kMaxContinuationNesting
  // continuations are already nested on this thread (so a long chain of
  // values made available inline cannot exhaust the stack).
  template <typename Task>
  void RunNested(Task task);
  // Stores `value` (one reference) in `reg` with as many references as the
  // register has uses, or forwards the result placeholder stored there.
  AsyncValue* Publish(uint32_t reg, RCReference<AsyncValue> value);
  // Runs a node: a segment, or a kernel through its frame.
  void RunKernel(ReadyQueue& queue, uint32_t kernel);
  void RunFrameKernel(ReadyQueue& queue, uint32_t kernel);
  // Runs `kernel` on `arguments` (available values) through its frame
  // (§3.3): an error operand, a cancelled request or an exhausted budget
  // make every result an error without running it.
  void RunThroughFrame(const KernelInfo& kernel, std::span<AsyncValue* const> arguments,
                       std::span<RCReference<AsyncValue>> results);

  // ---- Segments (execution_plan.h).
  // A segment run one kernel at a time (SegmentOneByOne): the next kernel
  // to run (in plan_->segment_kernels), the next export to do (in
  // plan_->segment_exports), and the values of the segment's registers.
  struct SegmentRun {
    uint32_t segment;
    uint32_t position;
    uint32_t next_export;
    absl::flat_hash_map<uint32_t, RCReference<AsyncValue>> values;
  };
  // Runs segment `segment`, whose inputs have all arrived: on the straight
  // line when its inputs are payloads of the types its kernels read and the
  // policy allows direct kernels, else (or from where a cancellation
  // stopped the line) one by one.
  void RunSegment(ReadyQueue& queue, uint32_t segment);
  // Runs the segment's kernels from run->position on through their frames
  // (what the dataflow path does kernel by kernel); waits, resuming on a
  // continuation, where an operand is not available yet.
  void SegmentOneByOne(ReadyQueue& queue, std::unique_ptr<SegmentRun> run);
  // Register `reg` as a value for a one-by-one run (boxing a payload).
  AsyncValue* SegmentValue(SegmentRun& run, uint32_t reg);
  // Runs the segment's line[from, end) in blocks: at most
  // kCancellationInterval kernels between two looks at cancellation, and a
  // try step ends its block. Returns the position of the first kernel not
  // run (`end`, unless a cancellation or a failure stopped it there).
  uint32_t RunSegmentBlocks(const LineCursor& cursor, const ExecutionPlan::Segment& segment,
                            uint32_t from, uint32_t end);
  // Runs segment `segment` on the straight line from `position` (the
  // kernels before it ran, their exports done before `next_export`) to
  // its next deferred step, segment_deferred[next_deferred], or its end;
  // does their exports, then adds the deferred step to the loop's pending
  // steps (RunDeferredSteps) or, at the end, releases the segment's inputs.
  void ContinueSegment(ReadyQueue& queue, uint32_t segment, uint32_t position,
                       uint32_t next_export, uint32_t next_deferred);
  // The task of consecutive deferred steps: runs each, then its segment
  // from the next kernel on; then the steps those reached, and so on,
  // while the work queue would run their task next here anyway.
  void RunDeferredSteps(DeferredSteps steps);
  // Enqueues one task for `steps` (left empty).
  void EnqueueSteps(DeferredSteps& steps);
  // Adds the deferred step that is the next kernel of a segment to the
  // loop's pending steps.
  [[gnu::always_inline]] void AddDeferredStep(ReadyQueue& queue, const DeferredResume& step);
  // Whether the step at `position` of the segments' line is an async call
  // step (a call step of a kernel that may enqueue work; its position is
  // in segment_deferred).
  bool IsAsyncCall(uint32_t position) const {
    return plan_->segment_line[position].kind == ExecutionPlan::StepKind::kAsyncCall;
  }
  // Runs the async call step at `position` (the segment's next deferred
  // position, its exports before it done): the kernel now, the first task it
  // enqueues as a deferred step of its own with the kernel's users after it.
  void RunAsyncCall(ReadyQueue& queue, uint32_t segment, uint32_t position,
                    uint32_t next_export, uint32_t next_deferred);
  // The rest of an async call step whose kernel did anything but hand back
  // one value its one piece of work fills: `captured`'s work and tasks go to
  // the work queue, its results are made of what it did (`complete`: every
  // result's payload in its register).
  [[gnu::noinline]] void FinishAsyncCallSlowly(ReadyQueue& queue, uint32_t s, uint32_t at,
                                               uint32_t next_export, uint32_t next_deferred,
                                               bool complete, internal::CapturedWork* captured);
  static void SetCapturedResult(internal::CapturedWork& captured, uint32_t valued_result,
                                uint32_t emplaced);
  void AddCapturedStep(ReadyQueue& queue, uint32_t s, uint32_t at, uint32_t next_export,
                       uint32_t next_deferred, internal::CapturedWork* captured);
  void EnqueueCaptured(internal::CapturedWork& captured);
  static void FreeCaptured(internal::CapturedWork* captured);
  void RunCapturedStep(ReadyQueue& ready, const DeferredResume& resume);
  // The rest of an async call step whose work failed or whose value cannot
  // be loaded into its register, or that runs where segments may not.
  [[gnu::noinline]] void FinishCapturedStep(ReadyQueue& ready, const DeferredResume& resume,
                                            CallOutcome outcome);
  // Enqueues the loop's pending deferred steps: before anything else is
  // enqueued or anything runs that might enqueue.
  [[gnu::always_inline]] void FlushSteps(ReadyQueue& queue) {
    if (!queue.steps->empty()) [[unlikely]] EnqueueSteps(*queue.steps);
  }
  // A cursor over the segments' lines and this execution's payloads.
  LineCursor SegmentCursor() const {
    return LineCursor(plan_->segment_line.data(), plan_->segment_operands.data(),
                      attribute_pool_, payloads_);
  }
  // Does the exports from `next_export` on of the kernels before `end`;
  // returns the first export not done.
  [[gnu::always_inline]] uint32_t ExportStraight(ReadyQueue& queue,
                                                 const ExecutionPlan::Segment& segment,
                                                 uint32_t next_export, uint32_t end);
  // Runs the segment's kernels from `position` on one by one (the ones
  // before it ran on the straight line, their exports done before
  // `next_export`).
  void SegmentFrom(ReadyQueue& queue, uint32_t segment, uint32_t position,
                   uint32_t next_export);
  // What the call step that just ran on this thread did instead of writing
  // every result's payload (line_direct_call, reset for the next call).
  static CallOutcome TakeCallOutcome();
  // After the call step at `position` did not end with its results'
  // payloads in their registers: true when its results are now payloads
  // (values it gave, available, loaded into their registers: the segment
  // goes on after it); false when the segment was handed on: suspended
  // until a value it gave is available (then resumed here), or, an error or
  // a value the line cannot hold among them, the kernels after it one by one
  // (SegmentAfterCall).
  bool FinishCall(ReadyQueue& queue, uint32_t segment, uint32_t position, uint32_t next_export,
                  uint32_t next_deferred, CallOutcome outcome);
  // The call's results made of `outcome`, as its frame would have made them;
  // then the kernels after it one by one.
  void SegmentAfterCall(ReadyQueue& queue, uint32_t segment, uint32_t position,
                        uint32_t next_export, CallOutcome outcome);
  // Does the exports of the kernels before `end` not done yet: what the
  // dataflow path does when they end.
  void ExportOneByOne(ReadyQueue& queue, SegmentRun& run, uint32_t end);
  // The segment's uses of its inputs are over.
  [[gnu::always_inline]] void ReleaseSegmentInputs(const ExecutionPlan::Segment& segment);
  // Kernel `position`'s uses of values from outside its segment are over.
  void ReleaseKernelInputs(uint32_t segment, uint32_t position);
  // Sends the outline kernels to the work queue, one task per stream in
  // ascending stream order (§5.1, step 2).
  void FlushOutline(ReadyQueue& queue);
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
  // kernel uses still to come. Null while a segment's payload, which
  // segments read from payloads_, is all there is (execution_plan.h).
  // `payload`: whether the value's payload was loaded into the register's
  // payload (kPayloadAbsent, kPayloadLoading, kPayloadLoaded; see
  // LoadInputPayload). In the padding: registers start all zero.
  struct Register {
    AsyncValue* value;
    std::atomic<uint32_t> remaining_uses;
    std::atomic<uint8_t> payload;
  };
  static constexpr uint8_t kPayloadAbsent = 0, kPayloadLoading = 1, kPayloadLoaded = 2;
  // Loads the payload of register `reg`'s value (available, of the type the
  // segment reads) into its payload register, once per execution: segments
  // on several threads may read the same argument or frame kernel's result,
  // and one segment's kernels (a deferred step's task) may still read the
  // payload register while another segment starts, so it is written once
  // and never again (the first to claim it writes; the others wait for that
  // write, a copy of 8 bytes).
  [[gnu::always_inline]] void LoadInputPayload(uint32_t reg, const AsyncValue* value,
                                               bool by_reference) {
    std::atomic<uint8_t>& state = registers_[reg].payload;
    if (state.load(std::memory_order_acquire) == kPayloadLoaded) return;
    if (concurrent_.load(std::memory_order_relaxed)) {
      uint8_t expected = kPayloadAbsent;
      if (!state.compare_exchange_strong(expected, kPayloadLoading,
                                         std::memory_order_acquire)) {
        while (state.load(std::memory_order_acquire) != kPayloadLoaded) {
          std::this_thread::yield();
        }
        return;
      }
    }
    if (by_reference) {
      // The payload's address (the value lives until the inputs are
      // released, when the segment ends).
      const void* payload = value->ScalarPayload();
      std::memcpy(payloads_[reg].bytes, &payload, sizeof(payload));
    } else {
      // A direct operand's payload is at most kDirectResultSize bytes, and
      // the value object extends at least that far past its header.
      std::memcpy(payloads_[reg].bytes, value->ScalarPayload(), kDirectResultSize);
    }
    state.store(kPayloadLoaded, std::memory_order_release);
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
  // The segments' payload registers (uninitialized; a segment writes a
  // register before anything reads it).
  PayloadRegister* payloads_;
  // Copied from the plan, for the destructor.
  const uint32_t num_arguments_;
  const uint32_t num_shared_registers_;
  uint32_t* shared_registers_;
  // The deferral block (plan_->deferral_slots), allocated by the first
  // deferral; freed with the invocation. Frame kernels of several streams
  // may defer at once on several threads: the first block stored wins.
  std::atomic<Deferral*> deferrals_{nullptr};
  Deferral* DeferralBlock();
  const uint32_t deferral_slots_;
#ifndef NDEBUG
  const std::thread::id starting_thread_ = std::this_thread::get_id();
#endif
  // Per function result: 1 when its register holds a placeholder created by
  // CreateResultPlaceholders.
  uint8_t* placeholder_results_;
};

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

template <typename Task>
void Invocation::RunNested(Task task) {
  if (continuation_nesting >= kMaxContinuationNesting) [[unlikely]] {
    context_->host()->EnqueueWork(std::move(task));
    return;
  }
  ++continuation_nesting;
  task();
  --continuation_nesting;
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

template <typename Continuation>
void Invocation::WhenAvailable(AsyncValue* value, Continuation continuation) {
  BecomeConcurrent();
  AddRef();  // dropped when the continuation has run
  value->AndThen([this, continuation = std::move(continuation)]() mutable {
    RunNested([this, continuation = std::move(continuation)]() mutable {
      continuation();
      DropRef();
    });
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
        if (!queue.own_steps.empty()) EnqueueSteps(queue.own_steps);
        return;
      }
      // Switch to the stream of the first outline kernel: its kernels
      // become the inline ones, the others stay outline, both in order (one
      // pass, no temporary buffer).
      queue.stream = plan_->schedule[queue.outline_kernels.front()].stream;
      auto& outline = queue.outline_kernels;
      size_t kept = 0;
      for (uint32_t k : outline) {
        if (plan_->schedule[k].stream == queue.stream) {
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
      uint32_t stream = plan_->schedule[kernel].stream;
      size_t j = i;
      for (; j > 0 && stream < plan_->schedule[outline[j - 1]].stream; --j) {
        outline[j] = outline[j - 1];
      }
      outline[j] = kernel;
    }
  } else {
    // A value with users on many streams (a fan-out: thousands): a
    // counting sort by stream, stable, in two passes.
    uint32_t max_stream = 0;
    for (uint32_t kernel : outline) {
      max_stream = std::max(max_stream, plan_->schedule[kernel].stream);
    }
    std::vector<uint32_t> order(outline.begin(), outline.end());
    if (max_stream <= 8 * outline.size()) {
      std::vector<uint32_t> starts(size_t{max_stream} + 2, 0);
      for (uint32_t kernel : order) ++starts[plan_->schedule[kernel].stream + 1];
      for (size_t i = 1; i < starts.size(); ++i) starts[i] += starts[i - 1];
      for (uint32_t kernel : order) outline[starts[plan_->schedule[kernel].stream]++] = kernel;
    } else {
      // Sparse stream numbers: sort (stream, position) keys, which keeps
      // each stream's order without a merge sort's buffer.
      std::vector<uint64_t> keys(outline.size());
      for (size_t i = 0; i < outline.size(); ++i) {
        keys[i] = uint64_t{plan_->schedule[outline[i]].stream} << 32 | i;
      }
      std::sort(keys.begin(), keys.end());
      for (size_t i = 0; i < keys.size(); ++i) outline[i] = order[keys[i] & 0xFFFFFFFF];
    }
  }
  // The kernels of the groups of several, in one block the tasks share.
  std::shared_ptr<const uint32_t[]> block;
  for (size_t begin = 0; begin < outline.size();) {
    uint32_t stream = plan_->schedule[outline[begin]].stream;
    size_t end = begin;
    while (end < outline.size() && plan_->schedule[outline[end]].stream == stream) ++end;
    BecomeConcurrent();
    AddRef();
    if (end - begin == 1) {
      // One kernel (the usual stream's share): nothing to allocate for it.
      context_->host()->EnqueueWork([this, stream, kernel = outline[begin]] {
        ReadyQueue ready(stream);
        ready.inline_kernels.push_back(kernel);
        Process(ready);
        DropRef();
      });
    } else {
      if (block == nullptr) {
        auto copy = std::make_shared<uint32_t[]>(outline.size());
        std::copy(outline.begin(), outline.end(), copy.get());
        block = std::move(copy);
      }
      const uint32_t first = static_cast<uint32_t>(begin), last = static_cast<uint32_t>(end);
      context_->host()->EnqueueWork([this, stream, block, first, last] {
        ReadyQueue ready(stream);
        ready.inline_kernels.assign(block.get() + first, block.get() + last);
        Process(ready);
        DropRef();
      });
    }
    begin = end;
  }
  outline.clear();
}

void Invocation::RunKernel(ReadyQueue& queue, uint32_t k) {
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

void Invocation::RunSegment(ReadyQueue& queue, uint32_t s) {
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
  for (uint32_t i = 0; i < segment.num_inputs && straight; ++i) {
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
  if (segment.num_deferred != 0 &&
      plan_->segment_deferred[segment.first_deferred] == segment.begin &&
      !IsAsyncCall(segment.begin)) {
    // The head is a deferred step (an async kernel of a fan-out): nothing
    // runs or is exported before it.
    AddDeferredStep(queue, DeferredResume{s, segment.begin, segment.first_export,
                                          segment.first_deferred, queue.stream});
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
    if (!line_call_incomplete) {
      // A cancellation or a failing kernel: the rest one by one.
      SegmentFrom(queue, s, reached, next_export);
      return;
    }
    // A call step that did not write every result's payload: its results
    // are made of what it did, and the segment goes on after it, now or
    // when a value it gave is available, or one by one.
    line_call_incomplete = false;
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
  if (IsAsyncCall(stop)) {
    RunAsyncCall(queue, s, stop, next_export, next_deferred);
    return;
  }
  AddDeferredStep(queue, DeferredResume{s, stop, next_export, next_deferred, queue.stream});
}

void Invocation::RunAsyncCall(ReadyQueue& queue, uint32_t s, uint32_t at, uint32_t next_export,
                              uint32_t next_deferred) {
  // What the dataflow path does before it runs a kernel: other streams'
  // ready kernels go to the work queue (the deferred steps reached stay
  // pending: the kernel's task joins them, where it would have gone).
  if (!queue.outline_kernels.empty()) FlushOutline(queue);
  if (!policy_.DirectKernelsAllowed()) [[unlikely]] {
    SegmentFrom(queue, s, at, next_export);
    return;
  }
  const ExecutionPlan::LineStep& line_step = plan_->segment_line[at];
  const ExecutionPlan::TryStep& step = line_step.try_step();
  const KernelInfo& kernel = info_->kernels[plan_->segment_kernels[at]];
  auto* captured = ::new (internal::AllocateValueMemory(sizeof(internal::CapturedWork)))
      internal::CapturedWork(context_->host(), Location{&program_->file(), kernel.location()});
  // The kernel's `call` straight from here (not through RunTryStep, the
  // line's trampoline: the runner is already where a failure is handled).
  const void* operands[kMaxDirectArguments];
  const uint32_t* const operand_registers =
      plan_->segment_operands.data() + line_step.first_operand;
  BEF_DEBUG_CHECK(line_step.num_operands <= kMaxDirectArguments,
                  "an async call step with more operands than a direct call takes");
  for (uint32_t i = 0; i < line_step.num_operands; ++i) {
    operands[i] = payloads_[operand_registers[i]].bytes;
  }
  void* results[kMaxDirectResults];
  for (uint32_t i = 0; i < step.num_results; ++i) results[i] = payloads_[step.results[i]].bytes;
  DirectCall& call = line_direct_call;
  BEF_DEBUG_CHECK(call.valued == 0 && call.ok(), "an async call step after an unread call");
  call.host = context_->host();
  call.context = context_;
  call.emplaced = 0;
  // (A kernel that runs an execution of its own on this thread leaves the
  // capture as it found it.)
  internal::CapturedWork* const outer = std::exchange(internal::captured_work, captured);
  const bool complete =
      step.call(operands, attribute_pool_, step.attribute_offsets, results, call);
  internal::captured_work = outer;
  const uint32_t all = (1u << step.num_results) - 1;
  if (!complete && call.ok() && call.valued != 0 && (call.valued & (call.valued - 1)) == 0 &&
      (call.emplaced | call.valued) == all) [[likely]] {
    // The usual async kernel: one result given as a value, completed by
    // the one piece of work it enqueued.
    const uint32_t valued_result = static_cast<uint32_t>(std::countr_zero(call.valued));
    AsyncValue* const value = call.values[valued_result];
    if (captured->HasWork() && captured->num_tasks == 0 && value == captured->Value() &&
        value->NumRef() == 2 && value->IsPristine() &&
        captured->payload_type == step.result_types[valued_result]) [[likely]] {
      // EnqueueWork's value, handed back untouched: both its references
      // are the executor's, and the work writes the result's register.
      SetCapturedResult(*captured, valued_result, call.emplaced);
      call.valued = 0;
      call.values[valued_result] = nullptr;
      AddCapturedStep(queue, s, at, next_export, next_deferred, captured);
      return;
    }
    if (!captured->HasWork() && captured->num_tasks == 1) {
      // One task the kernel enqueued itself, filling the value.
      SetCapturedResult(*captured, valued_result, call.emplaced);
      captured->task_result = value;  // the kernel's reference
      call.valued = 0;
      call.values[valued_result] = nullptr;
      AddCapturedStep(queue, s, at, next_export, next_deferred, captured);
      return;
    }
  }
  FinishAsyncCallSlowly(queue, s, at, next_export, next_deferred, complete, captured);
}

void Invocation::FinishAsyncCallSlowly(ReadyQueue& queue, uint32_t s, uint32_t at,
                                       uint32_t next_export, uint32_t next_deferred,
                                       bool complete, internal::CapturedWork* captured) {
  CallOutcome outcome;
  if (!complete) outcome = TakeCallOutcome();
  // Otherwise its work goes where its own tasks would have gone, in order,
  // and its results are made of what it did.
  if (captured->HasWork() || captured->num_tasks != 0) FlushSteps(queue);
  EnqueueCaptured(*captured);
  if (complete ||
      FinishCall(queue, s, at, next_export, next_deferred + 1, std::move(outcome))) {
    ContinueSegment(queue, s, at + 1, next_export, next_deferred + 1);
  }
}

// The result an async call step's work or task fills, and the results the
// kernel wrote before it returned: kept in the block's executor word.
void Invocation::SetCapturedResult(internal::CapturedWork& captured, uint32_t valued_result,
                                   uint32_t emplaced) {
  static_assert(kMaxDirectResults <= 8);
  captured.executor_word = valued_result | (emplaced << 8);
}

inline void Invocation::AddCapturedStep(ReadyQueue& queue, uint32_t s, uint32_t at,
                                 uint32_t next_export, uint32_t next_deferred,
                                 internal::CapturedWork* captured) {
  DeferredResume resume{s, at, next_export, next_deferred, queue.stream};
  resume.captured = captured;
  AddDeferredStep(queue, resume);
}

void Invocation::EnqueueCaptured(internal::CapturedWork& captured) {
  HostContext* const host = context_->host();
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
          : complete(captured.complete), destroy(captured.destroy), work(captured.work),
            value(captured.Value()), location(captured.location) {}
      CompleteTask(const CompleteTask&) = delete;
      CompleteTask(CompleteTask&& other) noexcept
          : complete(other.complete), destroy(other.destroy), work(other.work),
            value(std::exchange(other.value, nullptr)), location(other.location) {}
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
  captured.~CapturedWork();
  internal::FreeValueMemory(&captured, sizeof(internal::CapturedWork));
}

void Invocation::FreeCaptured(internal::CapturedWork* captured) {
  // Its work ran (or it had none); a value of EnqueueWork in it was never
  // published and holds nothing.
  captured->~CapturedWork();
  internal::FreeValueMemory(captured, sizeof(internal::CapturedWork));
}

inline void Invocation::AddDeferredStep(ReadyQueue& queue, const DeferredResume& step) {
  // The deferred step is the next kernel to run: first the other streams'
  // ready kernels go to the work queue, then its task (with the steps
  // reached before it, if nothing was enqueued in between).
  if (!queue.outline_kernels.empty()) FlushOutline(queue);
  DeferredSteps& steps = *queue.steps;
  if (steps.empty()) {
    steps.push_back(step);  // inline: no allocation
    return;
  }
  // A second step: room for a task's worth at once (one heap block).
  if (steps.size() == 1) [[unlikely]] steps.reserve(kMaxDeferredStepsPerTask);
  steps.push_back(step);
  if (steps.size() == kMaxDeferredStepsPerTask) [[unlikely]] EnqueueSteps(steps);
}

void Invocation::EnqueueSteps(DeferredSteps& steps) {
  BecomeConcurrent();
  AddRef();  // dropped when the task has run
  context_->host()->EnqueueWork(
      [this, steps = std::move(steps)]() mutable { RunDeferredSteps(std::move(steps)); });
  steps.clear();
}

void Invocation::RunDeferredSteps(DeferredSteps steps) {
  Invocation* previous = current_invocation;
  current_invocation = this;
  const LineCursor cursor = SegmentCursor();
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
      if (resume.captured != nullptr) {
        RunCapturedStep(ready, resume);
        ProcessQueue(ready);
        continue;
      }
      // The step itself: its operands are the segment's payloads, written
      // before its task was enqueued.
      cursor.Run(resume.position);
      if (policy_.DirectKernelsAllowed()) [[likely]] {
        ContinueSegment(ready, resume.segment, resume.position + 1, resume.next_export,
                        resume.deferred + 1);
      } else {
        // Cancelled, budgeted or traced since the segment began: its
        // exports and the kernels after it one by one.
        SegmentFrom(ready, resume.segment, resume.position + 1, resume.next_export);
      }
      ProcessQueue(ready);
    }
    if (next->empty()) break;
    // The steps reached were the last acts. When their task would be the
    // next one the queue runs, here, with nothing queued before it (a chain
    // of async kernels), run them now: the same order, no trip through the
    // queue, no keep-alive count per step.
    if (!context_->host()->work_queue().NextToRunHere()) {
      EnqueueSteps(*next);
      break;
    }
    running->clear();
    std::swap(running, next);
  }
  current_invocation = previous;
  DropRef();
}

void Invocation::RunCapturedStep(ReadyQueue& ready, const DeferredResume& resume) {
  // An async call step: the kernel's work or task, then its users.
  internal::CapturedWork* captured = resume.captured;
  const auto& step = plan_->segment_line[resume.position].try_step();
  const uint32_t valued_result = captured->executor_word & 0xff;
  const uint32_t emplaced = captured->executor_word >> 8;
  if (captured->HasWork()) {
    void* const payload = payloads_[step.results[valued_result]].bytes;
    absl::Status* error = captured->run(captured->work, payload);
    if (error == nullptr && policy_.DirectKernelsAllowed()) [[likely]] {
      FreeCaptured(captured);
      ContinueSegment(ready, resume.segment, resume.position + 1, resume.next_export,
                      resume.deferred + 1);
      return;
    }
    CallOutcome outcome;
    outcome.emplaced = emplaced;
    if (error == nullptr) {
      outcome.emplaced |= 1u << valued_result;
    } else {
      // As EnqueueWork's value would have been: an error at the kernel's
      // location.
      outcome.valued = 1u << valued_result;
      outcome.values[valued_result] =
          MakeErrorAsyncValueRef(std::move(*error), captured->location);
      delete error;
    }
    FreeCaptured(captured);
    FinishCapturedStep(ready, resume, std::move(outcome));
    return;
  }
  captured->first_task();
  AsyncValue* const value = std::exchange(captured->task_result, nullptr);
  FreeCaptured(captured);
  if (value->IsConcrete() && value->type_id() == step.result_types[valued_result] &&
      policy_.DirectKernelsAllowed()) [[likely]] {
    // Completed by its task, as usual: its payload, and on.
    std::memcpy(payloads_[step.results[valued_result]].bytes, value->ScalarPayload(),
                kDirectResultSize);
    value->DropRef();
    ContinueSegment(ready, resume.segment, resume.position + 1, resume.next_export,
                    resume.deferred + 1);
    return;
  }
  CallOutcome outcome;
  outcome.emplaced = emplaced;
  outcome.valued = 1u << valued_result;
  outcome.values[valued_result] = TakeRef(value);
  FinishCapturedStep(ready, resume, std::move(outcome));
}

void Invocation::FinishCapturedStep(ReadyQueue& ready, const DeferredResume& resume,
                                    CallOutcome outcome) {
  if (policy_.DirectKernelsAllowed()) [[likely]] {
    if (FinishCall(ready, resume.segment, resume.position, resume.next_export,
                   resume.deferred + 1, std::move(outcome))) {
      ContinueSegment(ready, resume.segment, resume.position + 1, resume.next_export,
                      resume.deferred + 1);
    }
  } else {
    SegmentAfterCall(ready, resume.segment, resume.position, resume.next_export,
                     std::move(outcome));
  }
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
  DirectCall& call = line_direct_call;
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
  const auto& step = plan_->segment_line[position].try_step();
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

uint32_t Invocation::RunSegmentBlocks(const LineCursor& cursor,
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
  line_direct_call.host = context_->host();  // for its call steps, on this thread
  while (position < end) {
    if (position != segment.begin && policy_.cancelled()) [[unlikely]] return position;
    const uint32_t stop = std::min<uint32_t>(end, position + kCancellationInterval);
    for (; position < stop; ++position) {
      cursor.Run(position);
      if (line_kernel_failed) [[unlikely]] {
        // The step failed: the runner hands it on (a try step to its frame,
        // a call step's results made of what it did).
        line_kernel_failed = false;
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
