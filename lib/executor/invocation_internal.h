// The parts of one execution of the dataflow executor (private to
// lib/executor): the Invocation and what its rooms share.
//
//   invocation.cc       the invocation and its values: the register file,
//                       publishing values and counting users down,
//                       deferrals, results and their placeholders, frame
//                       kernels, a segment one by one through frames, and
//                       the entry points;
//   segment_runner.cc   the processing loop (ready kernels, other streams'
//                       tasks) and the segment runner (execution_plan.h): a
//                       segment's kernels on payload registers, its exports,
//                       call steps and their outcomes;
//   deferred_step_runner.cc (.h)  a room of its own: deferred and async call
//                       steps and the segments' resumption after them from
//                       tasks (docs/executor-semantics.md §14.4), a class
//                       that reaches the invocation only through the section
//                       "The deferred step runner's side" below.
//
// The segment runner reaches the rest through Publish and the used-by walk
// of an export (ExportStraight), BecomeConcurrent / AddRef / DropRef (a task
// of its own), WhenAvailable (a call's value not available yet),
// RunFrameKernel, SegmentFrom and SegmentAfterCall (a kernel or a segment
// the straight line cannot take), and the deferred step runner through
// RunAsyncCall and FlushSteps. The rest reaches it through
// Process (a processing loop) and FlushSteps (pending deferred steps). The
// members each room alone uses are always inlined where their one caller is.
#ifndef BEF_LIB_EXECUTOR_INVOCATION_INTERNAL_H_
#define BEF_LIB_EXECUTOR_INVOCATION_INTERNAL_H_

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "bef/async/async_value_ref.h"
#include "bef/executor/bef_program.h"
#include "bef/host/execution_context.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_frame.h"
#include "bef/support/debug_check.h"
#include "lib/executor/deferred_step_runner.h"
#include "lib/executor/execution_plan.h"
#include "lib/executor/fast_path_policy.h"
#include "lib/executor/line_cursor.h"

namespace bef::invocation_internal {

// Nesting of AndThen continuations on this thread (TFRT posts past 100).
constexpr int kMaxContinuationNesting = 100;
extern constinit thread_local int continuation_nesting;

class Invocation;
// The invocation whose kernel runs on this thread (for remaining_uses).
extern constinit thread_local Invocation* current_invocation;

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
  // they run when it ends (DeferredStepRunner::Run).
  DeferredSteps own_steps;
  DeferredSteps* steps = &own_steps;
  // The capture block of this loop's async call steps
  // (DeferredStepRunner::RunAsyncCall), reused from one to the next while
  // their work moves to its result's register: no block per call.
  internal::CapturedWork* spare_capture = nullptr;

  ReadyQueue(const ReadyQueue&) = delete;
  ReadyQueue& operator=(const ReadyQueue&) = delete;
  ~ReadyQueue() {
    if (spare_capture != nullptr) [[unlikely]] FreeCaptureBlock(spare_capture);
  }
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

  // ---- The deferred step runner's side (deferred_step_runner.h): all it
  // may use of the invocation.
  const ExecutionPlan* plan() const { return plan_; }
  PayloadRegister* payloads() const { return payloads_; }
  const FastPathPolicy& policy() const { return policy_; }
  const ExecutionContext* context() const { return context_; }
  const BefProgram* program() const { return program_; }
  const uint8_t* attribute_pool() const { return attribute_pool_; }
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
  // Runs segment `segment` on the straight line from `position` (the
  // kernels before it ran, their exports done before `next_export`) to
  // its next deferred step, segment_deferred[next_deferred], or its end;
  // does their exports, then adds the deferred step to the loop's pending
  // steps (DeferredStepRunner) or, at the end, releases the segment's inputs.
  void ContinueSegment(ReadyQueue& queue, uint32_t segment, uint32_t position,
                       uint32_t next_export, uint32_t next_deferred);
  // A cursor over the segments' lines and this execution's payloads.
  LineCursor SegmentCursor() const {
    return LineCursor(plan_->segmented, payloads_, attribute_pool_);
  }
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
  // Sends the outline kernels to the work queue, one task per stream in
  // ascending stream order (§5.1, step 2); on a queue that supports task
  // runs (work_queue.h), one run of those tasks.
  void FlushOutline(ReadyQueue& queue);
  // ProcessQueue for the deferred steps' loop, whose queue's steps go to the
  // loop's own list: nothing to do when no kernel is ready (a chain of
  // async kernels, whose next step the resumed segment reached itself).
  [[gnu::always_inline]] void ProcessReady(ReadyQueue& queue) {
    BEF_DEBUG_CHECK(queue.own_steps.empty(), "a deferred steps' queue with steps of its own");
    if (!queue.inline_kernels.empty() || !queue.outline_kernels.empty()) ProcessQueue(queue);
  }

 private:
  Invocation(const BefProgram* program, const ExecutionPlan* plan, const ExecutionContext& context,
             const FastPathPolicy& policy)
      : program_(program),
        plan_(plan),
        schedule_(plan->ScheduleFor(context.host()->work_queue().HasComputeThreads())),
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
    shared_registers_ = reinterpret_cast<uint32_t*>(payloads_ + plan->segmented.registers);
    if (num_shared_registers_ > 0) {
      std::memcpy(shared_registers_, plan->shared_registers.data(),
                  sizeof(uint32_t) * num_shared_registers_);
    }
    placeholder_results_ = reinterpret_cast<uint8_t*>(shared_registers_ + num_shared_registers_);
    std::memset(placeholder_results_, 0, info->result_registers.size());
    // Registers start empty (all bytes zero) and the ready counts as the
    // loader computed them: bulk stores, not a constructor per element,
    // and only of the registers and counts the execution may read
    // (ExecutionPlan::registers_to_clear, ready_counts_to_set).
    static_assert(std::is_trivially_destructible_v<Register> &&
                  sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free);
#ifndef NDEBUG
    // Debug builds: what is not set up is garbage that fails loudly when
    // read (a value pointer no allocation has, counts near overflow).
    std::memset(static_cast<void*>(registers_), 0xA5, sizeof(Register) * info->num_registers);
    std::memset(static_cast<void*>(ready_counts_), 0xA5, sizeof(uint32_t) * info->kernels.size());
#endif
    for (const ExecutionPlan::IndexRange& range : plan->registers_to_clear) {
      std::memset(static_cast<void*>(registers_ + range.begin), 0,
                  sizeof(Register) * (range.end - range.begin));
    }
    for (const ExecutionPlan::IndexRange& range : plan->ready_counts_to_set) {
      std::memcpy(static_cast<void*>(ready_counts_ + range.begin),
                  plan->initial_ready_counts.data() + range.begin,
                  sizeof(uint32_t) * (range.end - range.begin));
    }
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
           sizeof(PayloadRegister) * plan->segmented.registers +
           sizeof(uint32_t) * plan->shared_registers.size() + info->result_registers.size();
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
  void CreateResultPlaceholders();
  // Hands out the results once the execution has run as far as it can on
  // this thread (see BecomeConcurrent).
  void TakeResults(std::span<RCReference<AsyncValue>> results);

  // One of `kernel`'s operands arrived: a step toward its node.
  [[gnu::always_inline]] void DecrementReadyCount(ReadyQueue& queue,
                                                 uint32_t kernel) {
    // A kernel with one operand is decremented once: no count needed. A
    // segment's kernel after its head runs with the head, counted by none.
    const ExecutionPlan::Schedule& schedule = schedule_[kernel];
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
  [[gnu::always_inline]] inline void RunKernel(ReadyQueue& queue, uint32_t kernel);
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
  [[gnu::always_inline]] inline void RunSegment(ReadyQueue& queue, uint32_t segment);
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
  [[gnu::always_inline]] inline uint32_t RunSegmentBlocks(
      const LineCursor& cursor, const ExecutionPlan::Segment& segment,
      uint32_t from, uint32_t end);
  // Whether the step at `position` of the segments' line is an async call
  // step (a call step of a kernel that may enqueue work; its position is
  // in segment_deferred).
  bool IsAsyncCall(uint32_t position) const {
    return plan_->segmented.steps[position].kind == ExecutionPlan::StepKind::kAsyncCall;
  }
  // The loop's pending deferred steps to the work queue: before anything
  // else is enqueued or anything runs that might enqueue.
  [[gnu::always_inline]] void FlushSteps(ReadyQueue& queue) { deferred_steps_.FlushSteps(queue); }
  // Does the exports from `next_export` on of the kernels before `end`;
  // returns the first export not done.
  [[gnu::always_inline]] uint32_t ExportStraight(ReadyQueue& queue,
                                                 const ExecutionPlan::Segment& segment,
                                                 uint32_t next_export, uint32_t end);
  // Does the exports of the kernels before `end` not done yet: what the
  // dataflow path does when they end.
  void ExportOneByOne(ReadyQueue& queue, SegmentRun& run, uint32_t end);
  // The segment's uses of its inputs are over.
  [[gnu::always_inline]] void ReleaseSegmentInputs(const ExecutionPlan::Segment& segment);
  // Kernel `position`'s uses of values from outside its segment are over.
  void ReleaseKernelInputs(uint32_t segment, uint32_t position);
  // The task run of FlushOutline: the streams of block[begin, end) (sorted
  // by stream) one after another, each as its own task would run.
  void RunStreams(std::shared_ptr<const uint32_t[]> block, uint32_t begin, uint32_t end);
  // Kernels in a block the tasks of a flush share.
  static std::shared_ptr<const uint32_t[]> ShareKernels(std::span<const uint32_t> kernels);
  // The end of the group of kernels[begin, end) (sorted by stream) on
  // kernels[begin]'s stream.
  uint32_t StreamGroupEnd(const uint32_t* kernels, uint32_t begin, uint32_t end) const;
  // Runs the kernel inside a trace span (tracing.h).
  [[gnu::noinline]] void RunKernelTraced(const KernelInfo& kernel,
                                         AsyncKernelFrame* frame);
  void Process(ReadyQueue& queue);
  void ProcessQueue(ReadyQueue& queue);

  const BefProgram* program_;
  const ExecutionPlan* plan_;
  // The plan's schedule for this invocation's queue (ExecutionPlan::
  // ScheduleFor).
  const ExecutionPlan::Schedule* schedule_;
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

  std::atomic<bool> concurrent_{false};
  bool arguments_borrowed_ = true;  // see IsBorrowedArgument
  const KernelBinding* binding_template_;
  const uint8_t* attribute_pool_;
  // Which fast paths this execution may take (fast_path_policy.h).
  const FastPathPolicy policy_;
  // Whether a segment has exported its results one by one (ExportOneByOne):
  // from then on a payload-only segment input (ExecutionPlan::SegmentInput)
  // may hold a value. Written once at most, read by every segment.
  std::atomic<bool> segment_values_{false};
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
  // The segments' deferred and async call steps.
  DeferredStepRunner deferred_steps_{this};
  // The keep-alive count (the running loop, pending continuations, queued
  // tasks; AddRef / DropRef) on a cache line of its own.
  // Every thread that adds or finishes a task of the invocation writes it,
  // while every segment reads the fields above (plan_, policy_,
  // registers_, ...) and the argument registers that follow the object in
  // its allocation (the fan-out's shared operands). On one line with them,
  // each task's count made the other thread fetch that line again for the
  // next kernel it ran: the async fan-out on mstd:2 spent most of its time
  // on those loads (docs/performance.md, "Two threads and one cache line").
  // Padding, not alignas: the object sits at whatever alignment
  // AllocateValueMemory gives (16), so a cache line's width of bytes on
  // each side is what keeps the count apart.
  static constexpr size_t kCacheLine = 64;
  char before_keep_alive_[kCacheLine];
  std::atomic<uint32_t> refs_{1};
  char after_keep_alive_[kCacheLine - sizeof(std::atomic<uint32_t>)];
};

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

}  // namespace bef::invocation_internal

// The deferred step runner's inline members, which need the Invocation.
#include "lib/executor/deferred_step_runner_inl.h"

#endif  // BEF_LIB_EXECUTOR_INVOCATION_INTERNAL_H_
