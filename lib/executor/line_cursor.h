// The straight-line interpreter's inner loop (straight_line.cc,
// parallel_levels.cc): payload registers and a cursor that runs the steps of
// an ExecutionPlan's line on them.
#ifndef BEF_LIB_EXECUTOR_LINE_CURSOR_H_
#define BEF_LIB_EXECUTOR_LINE_CURSOR_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "bef/host/kernel_utils.h"
#include "bef/support/debug_check.h"
#include "lib/executor/execution_plan.h"
#include "lib/executor/fast_path_policy.h"

namespace bef {

// A register of a straight-line execution: the payload only.
struct PayloadRegister {
  alignas(8) unsigned char bytes[kDirectResultSize];
};
// A step entry point (DirectKernel::run_step) finds result i's register at
// result + i * kDirectResultSize.
static_assert(sizeof(PayloadRegister) == kDirectResultSize);

// Registers of straight-line executions too large for the stack, reused
// by the thread's next one (straight-line executions never nest: direct
// kernels call nothing). straight_line.cc.
PayloadRegister* ScratchRegisters(size_t count);

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
  // A run of `line` (ExecutionPlan::straight or segmented) on `registers`
  // (line.registers of them).
  LineCursor(const ExecutionPlan::Line& line, PayloadRegister* registers,
             const uint8_t* attribute_pool)
      : steps(line.steps.data()),
        operands(line.operands.data()),
        attribute_pool(attribute_pool),
        registers(registers) {}
  LineCursor(const ExecutionPlan::LineStep* steps, const uint32_t* operands,
             const uint8_t* attribute_pool, PayloadRegister* registers)
      : steps(steps), operands(operands), attribute_pool(attribute_pool), registers(registers) {}

  // Points payloads[0, step.num_operands) at the step's operand registers.
  [[gnu::always_inline]] void Operands(const ExecutionPlan::LineStep& step,
                                       const void** payloads) const {
    const uint32_t* operand_registers = operands + step.first_operand;
    switch (step.num_operands) {  // most kernels read one to three
      case 3:
        payloads[2] = registers[operand_registers[2]].bytes;
        [[fallthrough]];
      case 2:
        payloads[1] = registers[operand_registers[1]].bytes;
        [[fallthrough]];
      case 1:
        payloads[0] = registers[operand_registers[0]].bytes;
        [[fallthrough]];
      case 0:
        break;
      default:
        BEF_DEBUG_CHECK(step.num_operands <= kMaxDirectArguments,
                        "a line step with more operands than a direct call takes");
        for (uint32_t i = 0; i < step.num_operands; ++i) {
          payloads[i] = registers[operand_registers[i]].bytes;
        }
    }
  }
  // Runs the kernel at position `at` of the line.
  [[gnu::always_inline]] void Run(uint32_t at) const {
    const ExecutionPlan::LineStep& step = steps[at];
    const void* payloads[kMaxDirectArguments];
    Operands(step, payloads);
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

// The LineStep::run of a function-call step (ExecutionPlan::NestedCall,
// passed as attribute_offsets; `result` is its result_register's payload,
// which anchors the register file): runs the callee's nested line, then
// copies its results. RunNestedIf picks the callee by its i1 operand 0.
void RunNestedCall(const void* const* operands, const uint8_t* attribute_pool,
                   const uint32_t* attribute_offsets, void* result);
void RunNestedIf(const void* const* operands, const uint8_t* attribute_pool,
                 const uint32_t* attribute_offsets, void* result);

// The LineStep::run of a try step not run by its kernel's own step entry
// point (its results are not consecutive registers): reads its
// ExecutionPlan::TryStep, passed as attribute_offsets (`result` is its
// first result's payload, which anchors the register file), runs the
// kernel's try_run, and on a failure sets line_kernel_failed and zeros its
// results (a call step, TryStep::call, leaves them and sets
// line_call_incomplete; kernel_utils.h has the three thread-locals).
// DirectKernel::run_step does the same as the step itself. In a segment
// with try steps the runner looks at the flag after every step, so nothing
// runs after a failure: it clears the flag and hands the failing kernel
// on. A straight-line run looks at the flag every kCancellationInterval
// kernels and at its end, and abandons the run (ExecutionPlan::straight's
// try_steps). The runner sets line_direct_call's host before it runs
// blocks.
void RunTryStep(const void* const* operands, const uint8_t* attribute_pool,
                const uint32_t* attribute_offsets, void* result);

// Runs line[begin, stop) on this thread; returns the position of the first
// kernel not run (stop, unless a cancellation stopped it). Cancellation is
// looked at before every kCancellationInterval kernels but the first (the
// caller looked just before).
// The cursor is passed by value so that it stays in machine registers
// across the kernels' calls. Out of line (straight_line.cc): inlined into
// the repeated-run loop it costs that loop registers.
uint32_t RunLineRange(const LineCursor cursor, uint32_t begin, uint32_t stop,
                      const RequestContext* request);

}  // namespace bef

#endif  // BEF_LIB_EXECUTOR_LINE_CURSOR_H_
