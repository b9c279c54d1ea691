// The straight-line interpreter: a function whose kernels are all
// synchronous direct kernels runs as one list of calls on payload
// registers (ExecutionPlan::straight), without values, ready counts or frames.
// Same results and errors as the dataflow executor (invocation.cc); which
// executions may take it is FastPathPolicy's to say.
#ifndef BEF_LIB_EXECUTOR_STRAIGHT_LINE_H_
#define BEF_LIB_EXECUTOR_STRAIGHT_LINE_H_

#include <cstdint>
#include <span>

#include "bef/async/async_value.h"
#include "bef/executor/bef_program.h"
#include "bef/host/execution_context.h"
#include "lib/executor/execution_plan.h"
#include "lib/executor/fast_path_policy.h"

namespace bef {

// Runs a straight-line function; false, with nothing done, when the
// dataflow executor must run it (the policy refuses, an argument is not
// available or of another payload type, or the request's kernel budget
// would run out on the way). A cancellation noticed on the way makes the
// results of the kernels not run yet the cancellation's error, as the
// dataflow executor does. REQUIRES: plan.straight_line.
bool RunStraightLine(const BefProgram& program, const ExecutionPlan& plan,
                     const ExecutionContext& context, const FastPathPolicy& policy,
                     std::span<AsyncValue* const> arguments,
                     std::span<RCReference<AsyncValue>> results);

// `count` runs of a loop-carried straight-line function (the loop values
// stay payloads between runs); false, with nothing done, as above.
// REQUIRES: plan.straight_line && plan.loop_carried.
bool RunRepeatedStraightLine(const BefProgram& program, const ExecutionPlan& plan,
                             const ExecutionContext& context,
                             const FastPathPolicy& policy, int32_t count,
                             std::span<AsyncValue* const> arguments,
                             std::span<RCReference<AsyncValue>> results);

// tfrt.while's loop on a while-carried straight-line body: runs it until
// its last result (an i1) is false, the loop values staying payloads; the
// final loop values into `results` (one fewer than the body's results).
// False, with nothing done, as above (and under a kernel budget).
// REQUIRES: plan.straight_line && plan.while_carried.
bool RunWhileStraightLine(const BefProgram& program, const ExecutionPlan& plan,
                          const ExecutionContext& context, const FastPathPolicy& policy,
                          std::span<AsyncValue* const> arguments,
                          std::span<RCReference<AsyncValue>> results);

}  // namespace bef

#endif  // BEF_LIB_EXECUTOR_STRAIGHT_LINE_H_
