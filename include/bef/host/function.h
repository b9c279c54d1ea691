// Function: something a kernel (tfrt.call, control flow, tfrt_test.benchmark)
// or an embedder can execute -- a BEF async function, a sync BEF function or
// a native function.
//
// Execute() hands out every result at once: each is either available or a
// placeholder (an indirect value) that resolves later; arguments may be
// unavailable (the function runs what does not depend on them). The callee
// adds its own references to arguments it keeps.
//
// Thread safety: Execute may be called concurrently from any thread.
#ifndef BEF_HOST_FUNCTION_H_
#define BEF_HOST_FUNCTION_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "bef/async/async_value.h"
#include "bef/async/rc_reference.h"
#include "bef/format/bef_encoding.h"

namespace bef {

class ExecutionContext;
class SyncValue;

class Function {
 public:
  Function(std::string_view name, FunctionKind kind,
           std::vector<std::string_view> argument_types,
           std::vector<std::string_view> result_types)
      : name_(name),
        kind_(kind),
        argument_types_(std::move(argument_types)),
        result_types_(std::move(result_types)) {}
  virtual ~Function() = default;

  std::string_view name() const { return name_; }
  FunctionKind kind() const { return kind_; }
  // Type names as written in the BEF Types section.
  const std::vector<std::string_view>& argument_types() const {
    return argument_types_;
  }
  const std::vector<std::string_view>& result_types() const {
    return result_types_;
  }
  size_t num_arguments() const { return argument_types_.size(); }
  size_t num_results() const { return result_types_.size(); }

  // REQUIRES: arguments.size() == num_arguments(),
  // results.size() == num_results(), every result empty.
  virtual void Execute(const ExecutionContext& context,
                       std::span<AsyncValue* const> arguments,
                       std::span<RCReference<AsyncValue>> results) const = 0;

  // tfrt.repeat.i32's loop: runs the function `count` (>= 1) times, the
  // results of each run the arguments of the next, the last run's results
  // into `results` (a cancellation noticed on the way makes every result
  // its error). Returns false, with nothing done, when the function cannot
  // do this faster than `count` Execute calls; the caller then loops over
  // Execute. The default cannot.
  // REQUIRES: num_arguments() == num_results() == arguments.size() ==
  // results.size(), every result empty.
  virtual bool ExecuteRepeated(const ExecutionContext& context, int32_t count,
                               std::span<AsyncValue* const> arguments,
                               std::span<RCReference<AsyncValue>> results) const {
    return false;
  }

  // tfrt.while's loop, once its condition was true: runs the function, the
  // results of each run but the last (an i1) the arguments of the next,
  // until that i1 is false; the last run's other results into `results` (a
  // cancellation noticed on the way makes every result its error). Returns
  // false, with nothing done, when the function cannot do this faster than
  // the loop of Execute calls. The default cannot.
  // REQUIRES: num_arguments() == arguments.size() == results.size() ==
  // num_results() - 1, every result empty.
  virtual bool ExecuteWhile(const ExecutionContext& context,
                            std::span<AsyncValue* const> arguments,
                            std::span<RCReference<AsyncValue>> results) const {
    return false;
  }

  // Runs a sync function to completion on the calling thread over plain
  // values. The default says the function is not a sync function.
  virtual absl::Status ExecuteSync(const ExecutionContext& context,
                                   std::span<SyncValue* const> arguments,
                                   std::span<SyncValue* const> results) const;

 private:
  std::string_view name_;
  FunctionKind kind_;
  std::vector<std::string_view> argument_types_;
  std::vector<std::string_view> result_types_;
};

}  // namespace bef

#endif  // BEF_HOST_FUNCTION_H_
