// The three kinds of BEF functions as Function objects (private to the
// executor; BefProgram creates them).
#ifndef BEF_LIB_EXECUTOR_FUNCTIONS_H_
#define BEF_LIB_EXECUTOR_FUNCTIONS_H_

#include <atomic>

#include "absl/status/statusor.h"

#include "bef/executor/bef_program.h"
#include "bef/host/function.h"
#include "lib/executor/execution_plan.h"

namespace bef {

// KernelBinding::remaining_uses for the kernels of async BEF functions
// (invocation.cc).
uint32_t RemainingUsesInRunningInvocation(const void* executor, size_t index);

// A function with a record in the program's file.
class ProgramFunction : public Function {
 public:
  ProgramFunction(const BefProgram* program, const BefFunctionEntry& entry,
                  std::vector<std::string_view> argument_types,
                  std::vector<std::string_view> result_types)
      : Function(entry.name, entry.kind, std::move(argument_types),
                 std::move(result_types)),
        program_(program),
        index_(entry.index) {}

 protected:
  const BefProgram* program_;
  uint32_t index_;
};

// Kind 0: an async BEF function. Its entry points (bef_function.cc) run it
// on the straight line (straight_line.cc) when its plan and the execution's
// FastPathPolicy allow, else start the dataflow invocation (invocation.cc).
class BefFunction : public ProgramFunction {
 public:
  using ProgramFunction::ProgramFunction;
  ~BefFunction() override { delete plan_.load(std::memory_order_acquire); }

  void Execute(const ExecutionContext& context,
               std::span<AsyncValue* const> arguments,
               std::span<RCReference<AsyncValue>> results) const override;
  // Straight-line functions whose results feed their arguments as the same
  // payload types (ExecutionPlan::loop_carried): the loop values stay
  // unboxed between runs.
  bool ExecuteRepeated(const ExecutionContext& context, int32_t count,
                       std::span<AsyncValue* const> arguments,
                       std::span<RCReference<AsyncValue>> results) const override;
  // Straight-line functions whose results but the last feed their
  // arguments, the last an i1 (ExecutionPlan::while_carried).
  bool ExecuteWhile(const ExecutionContext& context, std::span<AsyncValue* const> arguments,
                    std::span<RCReference<AsyncValue>> results) const override;

 private:
  // The plan of the inflated function (owned), built by the first
  // execution; later executions skip GetFunctionInfo's once-flag and
  // StatusOr too.
  absl::StatusOr<const ExecutionPlan*> Plan() const;
  // The plan, built if need be; null when the function's record is
  // malformed (Execute reports it).
  const ExecutionPlan* PlanOrNull() const;
  mutable std::atomic<const ExecutionPlan*> plan_{nullptr};
};

// Kind 2: run by the sequential interpreter (sync_function.cc).
class SyncBefFunction : public ProgramFunction {
 public:
  using ProgramFunction::ProgramFunction;

  // Not supported from async code (TFRT crashes): every result is an error.
  void Execute(const ExecutionContext& context,
               std::span<AsyncValue* const> arguments,
               std::span<RCReference<AsyncValue>> results) const override;
  absl::Status ExecuteSync(const ExecutionContext& context,
                           std::span<SyncValue* const> arguments,
                           std::span<SyncValue* const> results) const override;
};

// Kind 1: a registered native callable (native_function.cc).
class NativeBefFunction : public Function {
 public:
  NativeBefFunction(const BefFunctionEntry& entry,
                    std::vector<std::string_view> argument_types,
                    std::vector<std::string_view> result_types)
      : Function(entry.name, FunctionKind::kNativeFunction,
                 std::move(argument_types), std::move(result_types)),
        callable_(entry.native) {}

  void Execute(const ExecutionContext& context,
               std::span<AsyncValue* const> arguments,
               std::span<RCReference<AsyncValue>> results) const override;

 private:
  NativeCallable callable_;
};

}  // namespace bef

#endif  // BEF_LIB_EXECUTOR_FUNCTIONS_H_
