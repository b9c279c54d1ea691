// The dataflow executor for async BEF functions (docs/executor-semantics.md
// §3-5): one Invocation per execution (invocation.cc says how it works).
#ifndef BEF_LIB_EXECUTOR_INVOCATION_H_
#define BEF_LIB_EXECUTOR_INVOCATION_H_

#include <span>

#include "bef/async/async_value.h"
#include "bef/executor/bef_program.h"
#include "bef/host/execution_context.h"
#include "lib/executor/execution_plan.h"
#include "lib/executor/fast_path_policy.h"

namespace bef {

// Runs one execution of `plan`'s function as far as it can on this thread;
// results not produced yet are placeholders, forwarded when they are.
void RunInvocation(const BefProgram* program, const ExecutionPlan* plan,
                   const ExecutionContext& context, const FastPathPolicy& policy,
                   std::span<AsyncValue* const> arguments,
                   std::span<RCReference<AsyncValue>> results);

}  // namespace bef

#endif  // BEF_LIB_EXECUTOR_INVOCATION_H_
