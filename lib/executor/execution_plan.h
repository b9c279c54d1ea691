// ExecutionPlan: what the dataflow executor precomputes for an async BEF
// function on its first execution, so the per-kernel work reads one compact
// entry instead of decoding the kernel record (private to the executor).
//
// - Schedule: per kernel, its initial ready count and stream, the two words
//   read whenever one of its operands arrives.
// - DirectStep: per kernel with a DirectKernel (kernel_registry.h), the
//   entry point, where its attributes, operands and users are, and whether
//   its result is *unboxed*: kept as a payload in the invocation's register,
//   never an AsyncValue.
//
// - Straight line: a function whose kernels are all direct, chain-only
//   (tfrt.new.chain, tfrt.merge.chains: nothing to do where every value is
//   available) or calls (below), on any streams (streams only say where and
//   when kernels run), each reading only arguments and results of earlier
//   kernels (as the payload types they are), runs as a loop over its
//   kernels with every register an unboxed payload -- no
//   ready counts, no queue, no values but the results (BefFunction::Execute
//   takes this path when the arguments are available and of the types read,
//   the request is not traced, and its kernel budget, if any, outlasts the
//   function).
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
// A result is unboxed when nothing but direct kernels can see it: it is not
// returned, every user is a direct kernel, and every user reads it as the
// payload type the producer writes (so the users need no type check). The
// executor still copes with an unboxed register holding a value: when the
// producer has to run through its frame (an error operand, a cancelled,
// budgeted or traced request), it publishes a value as usual and the users
// see that; when a user has to run through its frame, it boxes the payload
// for the call.
#ifndef BEF_LIB_EXECUTOR_EXECUTION_PLAN_H_
#define BEF_LIB_EXECUTOR_EXECUTION_PLAN_H_

#include <cstdint>
#include <vector>

#include "bef/host/kernel_registry.h"
#include "bef/loader/bef_file.h"
#include "bef/loader/function_info.h"

namespace bef {

struct ExecutionPlan {
  struct Schedule {
    uint32_t ready_count;  // max(1, #operands)
    uint32_t stream;
  };
  struct DirectOperand {
    uint32_t reg;
    uint16_t type;  // AsyncValue type id the kernel reads, or kAnyOperandType
  };
  struct DirectStep {
    // Null: the kernel runs through its frame.
    void (*run)(const void* const* operands, const uint8_t* attribute_pool,
                const uint32_t* attribute_offsets, void* result) = nullptr;
    AsyncValue* (*box)(const void* result) = nullptr;
    const uint32_t* attribute_offsets = nullptr;  // in the image
    const uint32_t* users = nullptr;              // the result's used-by entries
    uint32_t num_users = 0;
    uint32_t result_register = 0;
    uint32_t first_operand = 0;  // into `operands`
    uint16_t num_operands = 0;
    bool unboxed_result = false;
  };

  // `file` (may be null: no calls on the straight line) is where callees
  // of function-call kernels are found.
  ExecutionPlan(const FunctionInfo& info, const BefFile* file = nullptr);
  ExecutionPlan(const ExecutionPlan&) = delete;
  ExecutionPlan& operator=(const ExecutionPlan&) = delete;

  const FunctionInfo* info;
  std::vector<Schedule> schedule;    // per kernel
  std::vector<DirectStep> direct;    // per kernel
  std::vector<DirectOperand> operands;

  // Per function result: the first result returning the same register
  // (itself when no earlier one does). A register returned twice is one
  // value, handed out twice.
  std::vector<uint32_t> first_result_of_register;

  bool straight_line = false;
  // Straight line only. Per argument: the payload type kernels read it as
  // (kAnyOperandType: not read as a payload).
  std::vector<uint16_t> argument_types;
  // Straight line only: the arguments read as payloads (their types are
  // in argument_types), the ones a run has to check.
  std::vector<uint32_t> typed_arguments;
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
  // Straight line only: registers a run needs, the function's and the
  // windows of the nested lines.
  uint32_t line_registers = 0;
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
  // through; types were checked when planning), by dataflow level (a
  // kernel's level is one more than the deepest of its operands' producers;
  // arguments are level 0), in function order within a level: kernels of
  // one level are independent, so a wide level can be split between
  // threads. Level l is line[level_begin[l], level_begin[l + 1]); a step
  // reads registers line_operands[first_operand, +num_operands).
  struct LineStep {
    void (*run)(const void* const* operands, const uint8_t* attribute_pool,
                const uint32_t* attribute_offsets, void* result) = nullptr;
    const uint32_t* attribute_offsets = nullptr;
    uint32_t result_register = 0;
    uint32_t first_operand = 0;
    uint32_t num_operands = 0;
  };
  std::vector<LineStep> line;
  std::vector<uint32_t> line_operands;
  // A function-call step of a line (its LineStep::run is RunNestedCall or
  // RunNestedIf, its attribute_offsets points at this, its result_register
  // is `result_register`, and it reads its condition, if any, as operand
  // 0). Callee b's kernels are nested_line[begin[b], end[b]); its results
  // are nested_results[sources[b] + i], copied to the registers
  // nested_results[destinations + i].
  struct NestedCall {
    const LineStep* steps = nullptr;       // nested_line.data()
    const uint32_t* operands = nullptr;    // nested_operands.data()
    const uint32_t* registers = nullptr;   // nested_results.data()
    uint32_t result_register = 0;
    uint32_t num_results = 0;
    uint32_t begin[2] = {0, 0};
    uint32_t end[2] = {0, 0};
    uint32_t sources[2] = {0, 0};
    uint32_t destinations = 0;
  };
  std::vector<NestedCall> nested_calls;
  std::vector<LineStep> nested_line;
  std::vector<uint32_t> nested_operands;
  std::vector<uint32_t> nested_results;
  std::vector<uint32_t> level_begin;
  uint32_t widest_level = 0;  // kernels in the largest level

 private:
  void PlanStraightLine(const BefFile* file);
};

// The largest callee (kernels, with its own calls) a straight-line step
// runs in place, and how deep such calls nest. A step then runs at most
// kMaxNestedKernels kernels between two looks at cancellation.
inline constexpr int64_t kMaxNestedKernels = 64;
inline constexpr int kMaxCallNesting = 4;

}  // namespace bef

#endif  // BEF_LIB_EXECUTOR_EXECUTION_PLAN_H_
