// BefFunction's entry points: the plan of the function (built by its first
// execution), then one of the executor's paths for each execution, chosen
// by the plan and the execution's FastPathPolicy:
//   straight_line.cc    synchronous direct kernels as one list of calls
//                       (parallel_levels.cc splits wide levels);
//   invocation.cc       the dataflow executor, for everything else (its
//                       segments in segment_runner.cc).
// Executions nested deeper than kMaxExecutionNesting on one thread are
// posted to the work queue, so recursion never grows the stack without
// bound.
#include <memory>
#include <utility>
#include <vector>

#include "bef/async/async_value_ref.h"
#include "bef/host/host_context.h"
#include "bef/host/tracing.h"
#include "lib/executor/fast_path_policy.h"
#include "lib/executor/functions.h"
#include "lib/executor/invocation.h"
#include "lib/executor/straight_line.h"

namespace bef {
namespace {

// Nesting of function executions on this thread: deeper calls are posted to
// the work queue, so recursion through tfrt.call / tfrt.if never grows the
// stack without bound.
constexpr int kMaxExecutionNesting = 32;
thread_local int execution_nesting = 0;

}  // namespace

absl::StatusOr<const ExecutionPlan*> BefFunction::Plan() const {
  absl::StatusOr<const FunctionInfo*> inflated = program_->file().GetFunctionInfo(index_);
  if (!inflated.ok()) return inflated.status();
  // Executions racing to be first may each build one; the first stored wins.
  auto plan = std::make_unique<ExecutionPlan>(**inflated, &program_->file());
  const ExecutionPlan* expected = nullptr;
  if (plan_.compare_exchange_strong(expected, plan.get(), std::memory_order_acq_rel)) {
    return plan.release();
  }
  return expected;
}

const ExecutionPlan* BefFunction::PlanOrNull() const {
  const ExecutionPlan* plan = plan_.load(std::memory_order_acquire);
  if (plan != nullptr) return plan;
  absl::StatusOr<const ExecutionPlan*> planned = Plan();
  return planned.ok() ? *planned : nullptr;  // Execute reports an error
}

bool BefFunction::ExecuteRepeated(const ExecutionContext& context, int32_t count,
                                  std::span<AsyncValue* const> arguments,
                                  std::span<RCReference<AsyncValue>> results) const {
  const ExecutionPlan* plan = PlanOrNull();
  if (plan == nullptr || !plan->straight_line || !plan->loop_carried) return false;
  return RunRepeatedStraightLine(*program_, *plan, context, FastPathPolicy(context), count,
                                 arguments, results);
}

bool BefFunction::ExecuteWhile(const ExecutionContext& context,
                               std::span<AsyncValue* const> arguments,
                               std::span<RCReference<AsyncValue>> results) const {
  const ExecutionPlan* plan = PlanOrNull();
  if (plan == nullptr || !plan->straight_line || !plan->while_carried) return false;
  return RunWhileStraightLine(*program_, *plan, context, FastPathPolicy(context), arguments,
                              results);
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
  // Which fast paths this execution may take, decided once.
  const FastPathPolicy policy(context);
  if (plan->straight_line &&
      RunStraightLine(*program_, *plan, context, policy, arguments, results)) {
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
  if (policy.traced()) [[unlikely]] {
    TraceSpan span("function", name().empty() ? "<anonymous function>" : name());
    RunInvocation(program_, plan, context, policy, arguments, results);
  } else {
    RunInvocation(program_, plan, context, policy, arguments, results);
  }
  --execution_nesting;
}

}  // namespace bef
