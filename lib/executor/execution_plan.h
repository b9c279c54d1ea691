// ExecutionPlan: what the dataflow executor precomputes for an async BEF
// function on its first execution, so the per-kernel work reads one compact
// entry instead of decoding the kernel record (private to the executor).
//
// - Schedule: per kernel, its initial ready count and stream, the words
//   read whenever one of its operands arrives.
// - Segments: kernels the straight line could run (direct, chain-only,
//   calls of straight-line functions) that the dataflow path would run
//   back to back run as one list of calls on payload registers. A segment
//   starts at a *head*, any such kernel; the next kernel joins when the
//   dataflow path runs it right after the last one (it is in the same
//   stream and is the last one's last used-by entry, so it is pushed last
//   and popped first) and each of its operands is the segment's own or one
//   of the head's (so it is ready by then). A segment then runs exactly
//   when its head would, and does what the dataflow path does at each of its
//   kernels (publish the results frame kernels read or the function
//   returns, decrement the users outside it, in used-by order, send other
//   streams' kernels to the work queue) in the same order: the observable
//   order of side effects is the dataflow path's, only cheaper. Kernels
//   after the head are never scheduled on their own (their schedule's `counted`
//   is kNotCounted). What a segment produces stays a payload for the
//   segments after it; a register a frame kernel reads or the function
//   returns is boxed into a value. Everything a segment cannot take on the
//   straight line (an error or a value of another type among its inputs, a
//   cancelled, budgeted or traced request) runs its kernels one by one
//   through their frames, with the results and errors of the dataflow path.
// - Async call steps: a kernel that may reach the work queue
//   (DirectKernel::may_enqueue: by its signature, it takes a HostContext*
//   or an ExecutionContext, or returns an AsyncValueRef) is a segment's
//   step too (kAsyncCall; its position is in segment_deferred). The
//   segment's runner stops before it, does the exports of the kernels
//   before it, sends other streams' ready kernels to the work queue (what
//   the dataflow path does before running it) and calls the kernel, keeping
//   what it hands the work queue (host_context.h, CapturedWork). The one
//   piece of work (EnqueueWork) or the one task filling its one result
//   becomes a *deferred step*: a task (shared by the steps a loop reaches
//   back to back) runs it into the result's payload register and resumes
//   the segment there, as the dataflow path resumes the kernel's users when
//   the task makes the value available: the same tasks in the same order,
//   with no value, frame, waiter or deferral per kernel. A segment resumed
//   in its task looks at the policy first (a request cancelled or given a
//   budget meanwhile continues one by one).
//
// - Straight line: a function whose kernels are all direct (kernels that
//   can fail or have several results included, as try steps at the top
//   level), chain-only (tfrt.new.chain, tfrt.merge.chains: nothing to do
//   where every value is available) or calls (below), on any streams
//   (streams only say where and when kernels run), each reading only
//   arguments and results of earlier kernels (as the payload types they
//   are; an argument of another payload type read by a pure kernel by
//   reference: its register holds the payload's address), runs as a loop
//   over its kernels with every register an unboxed payload -- no ready
//   counts, no queue, no values but the results (BefFunction::Execute takes
//   this path when the arguments are available and of the types read, the
//   request is not traced, and its kernel budget, if any, outlasts the
//   function). A run in which a try step fails is abandoned (its kernels
//   have no effect but their results) and the dataflow path runs the
//   function and reports the error (docs/executor-semantics.md §14.3).
// - Calls on the straight line: a function-call kernel (tfrt.call, tfrt.if,
//   tfrt.cond: KernelDefinition::function_call) whose callees are
//   themselves straight-line functions of the same file, small enough
//   (kMaxNestedKernels kernels with their own calls) and at most
//   kMaxCallNesting calls deep, is a step of the caller's line. Its
//   callees' kernels are planned as *nested lines* over the caller's
//   registers: a callee's arguments are the caller's operand registers, its
//   other registers a window of the caller's register file of its own (so
//   steps never share a register, even run in parallel), and the call
//   copies the chosen callee's result registers into its results. A
//   function with a tfrt.if step runs a number of kernels known only as
//   it runs: under a kernel budget it takes the dataflow path.
//
#ifndef BEF_LIB_EXECUTOR_EXECUTION_PLAN_H_
#define BEF_LIB_EXECUTOR_EXECUTION_PLAN_H_

#include <cstdint>
#include <mutex>
#include <vector>

#include "bef/host/kernel_registry.h"
#include "bef/loader/bef_file.h"
#include "bef/loader/function_info.h"
#include "bef/support/debug_check.h"

namespace bef {

struct ExecutionPlan {
  // A kernel's place in the dataflow schedule: its initial ready count,
  // stream, and whether ready counts are kept for it at all (`counted`:
  // the kernel itself; kNotCounted: a segment's kernel after its head).
  struct Schedule {
    uint32_t ready_count;
    uint32_t stream;
    uint32_t counted;
  };
  static constexpr uint32_t kNoSegment = UINT32_MAX;
  static constexpr uint32_t kNotCounted = UINT32_MAX;

  // `file` (may be null: no calls on the straight line) is where callees
  // of function-call kernels are found.
  ExecutionPlan(const FunctionInfo& info, const BefFile* file = nullptr);
  ExecutionPlan(const ExecutionPlan&) = delete;
  ExecutionPlan& operator=(const ExecutionPlan&) = delete;

  const FunctionInfo* info;
  std::vector<Schedule> schedule;  // per kernel
  // The schedule on a queue with threads of its own (HasComputeThreads),
  // where streams run side by side in no set order: as `schedule`, but a
  // kernel with no operands whose users are all on the entry's stream is
  // on the entry's stream too (execution_plan.cc's GatheredStream). Empty
  // when no kernel is. The single-threaded queue keeps the file's streams:
  // its order of kernels is TFRT's, which bef_executor's output shows.
  std::vector<Schedule> threaded_schedule;
  const Schedule* ScheduleFor(bool compute_threads) const {
    return compute_threads && !threaded_schedule.empty() ? threaded_schedule.data()
                                                         : schedule.data();
  }
  // Per kernel: the ready count an invocation starts with.
  std::vector<uint32_t> initial_ready_counts;
  // Per register: the references its value holds when published: one per
  // use by a kernel outside the producer's segment (a segment's own kernels
  // read the payload) and per return use. Per function result: the part of
  // that which kernels use (the rest is the return's).
  std::vector<uint32_t> value_uses;
  std::vector<uint32_t> result_kernel_uses;
  // Registers read by at least kSharedRegisterUses kernels outside their
  // producer's segment and not returned (shared_register: per register).
  // Their value keeps its reference to the end of the invocation instead of
  // counting down one use per kernel: a value many kernels read would
  // otherwise be one atomic count every kernel of a fan-out decrements,
  // from every thread. Their remaining uses stay above 1, so a kernel never
  // sees them as unique (docs/executor-semantics.md §3.5).
  std::vector<uint8_t> shared_register;
  std::vector<uint32_t> shared_registers;

  // Per function result: the first result returning the same register
  // (itself when no earlier one does). A register returned twice is one
  // value, handed out twice.
  std::vector<uint32_t> first_result_of_register;

  bool straight_line = false;
  // Straight line only. Per argument: the payload type kernels read it as
  // (kAnyOperandType: not read as a payload).
  std::vector<uint16_t> argument_types;
  // Straight line only: the arguments read as payloads (their types are
  // in argument_types), the ones a run has to check: scalars, copied into
  // their registers, and (reference_arguments) payloads pure kernels read
  // by reference (DirectKernel::reference_operands), whose registers hold
  // the payload's address.
  std::vector<uint32_t> typed_arguments;
  std::vector<uint32_t> reference_arguments;
  // Straight line only: arguments read without a payload type (chains, by
  // direct or chain-only kernels), which a run checks are available values
  // and not errors (the dataflow path would propagate an error).
  std::vector<uint32_t> available_arguments;
  // Per function result: the kernel defining its register (0: an argument)
  // and that kernel's position in `line`.
  std::vector<uint32_t> result_producers;
  std::vector<uint32_t> result_positions;
  // Straight line only: every result is a kernel's, and no register is
  // returned twice, so a completed run boxes result i straight from its
  // register with result_boxers[i] (the producer's DirectKernel::box; null
  // for a result returning an argument).
  bool results_boxed_directly = false;
  std::vector<AsyncValue* (*)(const void*)> result_boxers;
  // Straight line only: how many kernels a run runs (what the dataflow path
  // would charge a kernel budget), and whether that is known before the run
  // (false with a tfrt.if step).
  int64_t line_kernels = 0;
  bool line_kernels_known = true;
  // Straight line only: as many results as arguments plus one, the first
  // loop-carried as below, the last an i1 a kernel produces (a tfrt.while
  // body; BefFunction::ExecuteWhile).
  bool while_carried = false;
  // Straight line only: as many results as arguments, each of the payload
  // type its argument is read as (or the argument is not read as a
  // payload), so result i can be fed back as argument i without boxing
  // (tfrt.repeat.i32 bodies; BefFunction::ExecuteRepeated).
  bool loop_carried = false;
  // The kernels as compact steps (what a straight-line run streams
  // through; types were checked when planning); the straight line's, in
  // `straight` (below), are by dataflow level (a kernel's level is one more
  // than the deepest of its operands' producers; arguments are level 0),
  // in function order within a level: kernels of one level are
  // independent, so a wide level can be split between threads. Level l is
  // straight.steps[level_begin[l], level_begin[l + 1]).
  struct TryStep;
  struct NestedCall;
  // What a step is: its runners and the planner look at this, never at
  // which function `run` is.
  //   kKernel     a direct kernel's `run`, on its own attributes;
  //   kChainOnly  tfrt.new.chain / merge.chains (nothing to do);
  //   kTry        a kernel that can fail or has several results (TryStep:
  //               try_run), run by its own step entry point when its
  //               results are consecutive registers (own_entry:
  //               DirectKernel::run_step), else by RunTryStep;
  //   kCall       a call step of a segment (TryStep: call), run as kTry;
  //   kAsyncCall  a call step of a kernel that may reach the work queue
  //               (its position is in segment_deferred; the segment runner
  //               calls TryStep::call itself);
  //   kNestedCall, kNestedIf  a function call on the line (NestedCall).
  enum class StepKind : uint8_t {
    kKernel, kChainOnly, kTry, kCall, kAsyncCall, kNestedCall, kNestedIf
  };
  struct LineStep {
    void (*run)(const void* const* operands, const uint8_t* attribute_pool,
                const uint32_t* attribute_offsets, void* result) = nullptr;
    // The kernel's attributes (kKernel, and try steps run by
    // their own entry point), or what `run` reads instead once the plan is
    // final: the step's TryStep (kTry, kCall run by RunTryStep; kAsyncCall)
    // or NestedCall (kNestedCall, kNestedIf: nested_call() below).
    const uint32_t* attribute_offsets = nullptr;
    uint32_t result_register = 0;
    uint32_t first_operand = 0;
    // At most kMaxDirectArguments (a direct kernel's; a nested call's
    // step reads only its condition, if any).
    uint8_t num_operands = 0;
    StepKind kind = StepKind::kKernel;
    // A try step (kTry, kCall) whose `run` is the kernel's own step entry
    // point (DirectKernel::run_step), on the kernel's attributes.
    bool own_entry = false;
    // The index of the step's TryStep or NestedCall in its Line's vector
    // (Line::try_step; attribute_offsets points at it once the vectors are
    // final, unless own_entry).
    uint32_t detail = 0;

    bool is_try() const {
      return kind == StepKind::kTry || kind == StepKind::kCall || kind == StepKind::kAsyncCall;
    }
    bool is_nested_call() const {
      return kind == StepKind::kNestedCall || kind == StepKind::kNestedIf;
    }
    // The TryStep of a try step run by RunTryStep, or of an async call
    // step, once the plan is final (one load; Line::try_step for any try
    // step).
    const TryStep& linked_try_step() const;
    const NestedCall& nested_call() const;
  };
  static_assert(sizeof(LineStep) == 32, "a line step is half a cache line");
  // A function-call step of a line (its LineStep::run is RunNestedCall or
  // RunNestedIf, its attribute_offsets points at this, its result_register
  // is `result_register`, and it reads its condition, if any, as operand
  // 0). Callee b's kernels are its Line's nested_steps[begin[b], end[b]);
  // its results are nested_results[sources[b] + i], copied to the
  // registers nested_results[destinations + i].
  struct NestedCall {
    const LineStep* steps = nullptr;       // Line::nested_steps.data()
    const uint32_t* operands = nullptr;    // Line::nested_operands.data()
    const uint32_t* registers = nullptr;   // Line::nested_results.data()
    uint32_t result_register = 0;
    uint32_t num_results = 0;
    uint32_t begin[2] = {0, 0};
    uint32_t end[2] = {0, 0};
    uint32_t sources[2] = {0, 0};
    uint32_t destinations = 0;
  };
  // A step of a kernel that can fail or has several results (DirectKernel::
  // try_run): its LineStep::run is RunTryStep and its attribute_offsets
  // points at this; result_register (its first result's) anchors the
  // register file, results are the registers of its results.
  // A kernel with a call entry point (DirectKernel::call) is a try step of
  // a segment with `call` instead of try_run: when the call does not end
  // with every result's payload in its register, its runner makes the
  // results of what the kernel did (DirectCall) and goes on one by one.
  struct TryStep {
    bool (*try_run)(const void* const* operands, const uint8_t* attribute_pool,
                    const uint32_t* attribute_offsets, void* const* results) = nullptr;
    bool (*call)(const void* const* operands, const uint8_t* attribute_pool,
                 const uint32_t* attribute_offsets, void* const* results,
                 DirectCall& call_state) = nullptr;
    // Call steps: each result's payload type (a value the kernel gives of
    // that type, available, is loaded into the register).
    uint16_t result_types[kMaxDirectResults] = {};
    const uint32_t* attribute_offsets = nullptr;
    uint32_t result_register = 0;
    uint32_t num_results = 0;
    uint32_t results[kMaxDirectResults] = {};
    // The kernel's location (KernelRecord::location): where an async call
    // step's work reports its errors, read here beside the results rather
    // than from the kernel's record in the file at every call.
    uint32_t location = 0;
  };
  // A line: steps on one file of payload registers, with what they read.
  // The straight line (`straight`) and the segments (`segmented`) are each
  // one, built by the same planner (line_planner.h) and run by the same
  // cursor (line_cursor.h).
  //   steps            the steps, in the order they run (the straight
  //                    line: by level, below; segments: each segment's
  //                    kernels in a row);
  //   operands         step i reads registers operands[first_operand,
  //                    +num_operands);
  //   try_steps        its try and call steps' TrySteps. Nested lines
  //                    refuse kernels that can fail (they have no way to
  //                    stop at one): the straight line's are top-level steps
  //                    only. A straight-line run whose try step fails is
  //                    abandoned and the function runs on the dataflow path,
  //                    which reports the error: direct kernels have no
  //                    effect but their results, so the abandoned run is
  //                    unobservable (straight_line.cc);
  //   nested_calls, nested_steps, nested_operands, nested_results
  //                    its function-call steps and their callees' nested
  //                    lines (NestedCall);
  //   registers        the register file a run of it allocates: the
  //                    function's registers and the windows of the nested
  //                    lines.
  struct Line {
    std::vector<LineStep> steps;
    std::vector<uint32_t> operands;
    std::vector<TryStep> try_steps;
    std::vector<NestedCall> nested_calls;
    std::vector<LineStep> nested_steps;
    std::vector<uint32_t> nested_operands;
    std::vector<uint32_t> nested_results;
    uint32_t registers = 0;

    // The TryStep of a try, call or async call step of this line.
    const TryStep& try_step(const LineStep& step) const {
      BEF_DEBUG_CHECK(step.is_try() && step.detail < try_steps.size(),
                      "a step's TryStep asked of a step without one");
      return try_steps[step.detail];
    }
  };
  // Straight line only (empty otherwise).
  Line straight;
  bool line_has_try_steps = false;
  std::vector<uint32_t> level_begin;
  uint32_t widest_level = 0;  // kernels in the largest level

  // ---- Segments (see the top of this file).
  // Segment s runs segmented.steps[begin, end) on payload registers;
  // segment_kernels[begin, end) are the same kernels
  // by index (run one by one through their frames when the straight line
  // cannot take them).
  // num_checks: how many try steps (call steps included) it has; its
  // runner looks whether a step failed after each step when it has any.
  // segment_deferred[first_deferred, +num_deferred): the positions of its
  // deferred steps.
  struct Segment {
    uint32_t begin = 0;
    uint32_t end = 0;
    uint32_t num_checks = 0;
    uint32_t first_deferred = 0;
    uint32_t num_deferred = 0;
    uint32_t first_input = 0;
    uint32_t num_inputs = 0;
    // The first inputs, those with a use count to release: the others are
    // shared_registers (their values stay to the end).
    uint32_t num_counted_inputs = 0;
    uint32_t first_export = 0;
    uint32_t num_exports = 0;
  };
  // A register a segment reads but does not produce (an operand of its
  // head): `uses` operand uses by its kernels, read as payload `type`
  // (kAnyOperandType: not read as a payload, only waited for).
  // `by_reference`: read by reference (its payload register holds the
  // payload's address; DirectKernel::reference_operands).
  // `payload_only`: another segment's result that its segment never boxes
  // (no frame kernel reads it, the function does not return it): its
  // Register holds a value only if the producer ran one by one
  // (Invocation::segment_values_), so the runner need not read it.
  struct SegmentInput {
    uint32_t reg;
    uint32_t uses;
    uint16_t type;
    bool by_reference;
    bool payload_only;
  };
  // A register a segment's kernel at `position` (in segment_kernels)
  // produces and something outside the segment reads: the users to notify
  // (kernel indices, segment_targets[first_target, +n), in used-by order),
  // and whether it must be boxed (a frame kernel reads it or it is
  // returned; segments read payloads). In kernel order.
  struct SegmentExport {
    uint32_t reg;
    uint32_t first_target;
    uint32_t num_targets;
    uint32_t position;
    bool needs_value;
  };
  std::vector<Segment> segments;
  // Per kernel: the segment it heads, or kNoSegment.
  std::vector<uint32_t> head_of;
  // Per register: the segment producing it, or kNoSegment (arguments,
  // results of frame kernels); and for those, the producer's box.
  std::vector<uint32_t> register_segment;
  std::vector<AsyncValue* (*)(const void*)> register_boxers;
  // Per register: its deferral slot, or kNoDeferralSlot. A register whose
  // value may be published before it is available (an argument, a frame
  // kernel's result) has one: the invocation keeps the waiter that defers
  // its users there, so deferring a kernel allocates nothing
  // (invocation.cc, Deferral). Segment registers are published as payloads
  // boxed on the spot (available) and have none.
  static constexpr uint32_t kNoDeferralSlot = UINT32_MAX;
  std::vector<uint32_t> deferral_slot;
  uint32_t deferral_slots = 0;
  // The segments' steps, each segment's in a row.
  Line segmented;
  std::vector<uint32_t> segment_kernels;
  std::vector<uint32_t> segment_deferred;

  std::vector<SegmentInput> segment_inputs;
  std::vector<SegmentExport> segment_exports;
  std::vector<uint32_t> segment_targets;

  // What an invocation sets up (invocation_internal.h, Invocation's
  // constructor), as ranges [begin, end) of registers or kernels: the
  // registers that may ever hold a value or be read by a kernel outside
  // their producer's segment (arguments, frame kernels' results, registers
  // a segment exports or the function returns) start empty; the others are
  // a segment's own payloads, never read through their Register. The
  // kernels whose ready count is ever decremented (counted, with more than
  // one operand) start with theirs. A chain of 100,000 adds in one segment
  // so sets up a few registers instead of 1.6 MB of them per execution.
  // Gaps of fewer than kSetupGap entries are set up too (one range).
  struct IndexRange {
    uint32_t begin;
    uint32_t end;
  };
  std::vector<IndexRange> registers_to_clear;
  std::vector<IndexRange> ready_counts_to_set;
  static constexpr uint32_t kSetupGap = 16;

  // Plans the segments and everything the dataflow path reads (schedule,
  // initial_ready_counts, value_uses, result_kernel_uses, shared
  // registers, the segment_* vectors, head_of, register_*) once; every
  // dataflow execution calls it first. Done by the constructor for
  // functions that are not straight line, on the first dataflow execution
  // for those that are.
  void EnsureSegments() const;

 private:
  void PlanStraightLine(const BefFile* file);
  void PlanSegments(const BefFile* file);
  // Once `line`'s vectors are final: points its function-call steps
  // (nested ones included) at their NestedCall, its try steps at their
  // TryStep.
  static void Link(Line& line);
  const BefFile* file_ = nullptr;
  mutable std::once_flag segments_planned_;
  // Debug builds: every step's registers lie inside the register file its
  // runner allocates (BEF_DEBUG_CHECK).
  static void CheckRegisterWindows(const Line& line);
};

inline const ExecutionPlan::TryStep& ExecutionPlan::LineStep::linked_try_step() const {
  BEF_DEBUG_CHECK(is_try() && !own_entry, "a linked TryStep asked of a step without one");
  return *reinterpret_cast<const TryStep*>(attribute_offsets);
}
inline const ExecutionPlan::NestedCall& ExecutionPlan::LineStep::nested_call() const {
  BEF_DEBUG_CHECK(is_nested_call(), "a step's NestedCall asked of a step without one");
  return *reinterpret_cast<const NestedCall*>(attribute_offsets);
}

// The largest callee (kernels, with its own calls) a straight-line step
// runs in place, and how deep such calls nest. A step then runs at most
// kMaxNestedKernels kernels between two looks at cancellation.
inline constexpr int64_t kMaxNestedKernels = 64;
// How many uses make a register shared (ExecutionPlan::shared_registers).
inline constexpr uint32_t kSharedRegisterUses = 16;
inline constexpr int kMaxCallNesting = 4;

}  // namespace bef

#endif  // BEF_LIB_EXECUTOR_EXECUTION_PLAN_H_
