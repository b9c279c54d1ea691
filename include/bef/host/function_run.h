// FunctionRun: one execution of a Function on behalf of a caller outside
// the runtime -- a server's request, a Python call, an embedder's -- and the
// one place where "make the request, fill in the chain arguments, execute"
// is written. bef_serve's runs (HTTP, gRPC and `/v1/`, through
// serving::RunLimits::Run) and the Python package's (RunCall,
// python/src/runtime_module.cc) all go through it.
//
//   FunctionRun run(*function, &host, &resources, std::move(inputs), program);
//   call.request().SetDeadline(absl::Now() + absl::Seconds(1));  // optional
//   call.Execute();                 // on this thread, as far as the executor
//                                   // runs the function inline
//   host.Await({call.Done()});      // or AndThen: results, or cancellation
//   call.Settle();                  // results still pending: the error
//
// The caller gives the values of the function's non-chain arguments only, in
// order (NumInputs); every `!tfrt.chain` argument gets the ready chain. The
// request holds `keep_alive` (whatever owns the function: a loaded model
// version, a Python program) until the execution's last kernel has run, so
// the owner may be dropped while runs it started still finish.
//
// Thread-safety: one thread sets a run up and executes it; its results are
// AsyncValues, read from any thread once available.
#ifndef BEF_HOST_FUNCTION_RUN_H_
#define BEF_HOST_FUNCTION_RUN_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "bef/async/async_value.h"
#include "bef/async/rc_reference.h"
#include "bef/host/execution_context.h"
#include "bef/host/function.h"

namespace bef {

// The BEF type of a chain: arguments and results of this type carry no data.
inline constexpr std::string_view kChainTypeName = "!tfrt.chain";

class FunctionRun {
 public:
  // `inputs`: one value per non-chain argument of `function`, in order.
  // REQUIRES: inputs.size() == NumInputs(function); `function`, `host` and
  // `resources` (may be null) outlive the execution, or `keep_alive` owns
  // what they live in.
  FunctionRun(const Function& function, HostContext* host, ResourceContext* resources,
               std::vector<RCReference<AsyncValue>> inputs,
               std::shared_ptr<const void> keep_alive, int64_t request_id);
  FunctionRun(const FunctionRun&) = delete;
  FunctionRun& operator=(const FunctionRun&) = delete;

  // How many values a run of `function` takes: its non-chain arguments.
  static size_t NumInputs(const Function& function);

  const Function& function() const { return *function_; }
  // Cancel it, give it a deadline; before Execute, or from any thread later.
  RequestContext& request() const { return *request_; }

  // Executes the function on this thread (it returns once the executor has
  // run what it can inline; results may still be pending). Once per run.
  void Execute();

  // A chain that becomes available once every result is, or once the
  // request is cancelled (Cancel, its deadline, a kernel budget), whichever
  // comes first: what a caller waits on (Await, AndThen), so that a run
  // always ends at its deadline or cancellation, even when a kernel of it
  // never completes a result. Nothing of the run is interrupted; it is no
  // longer waited for. Then Settle(). REQUIRES: Execute() has run.
  RCReference<AsyncValue> Done();
  // Every result still unavailable becomes the request's cancellation error
  // (the run was abandoned; its kernels finish, or not, unseen).
  // REQUIRES: Done() is available.
  void Settle();

  // Every result, chains included (in the function's order).
  std::span<RCReference<AsyncValue>> results() { return results_; }
  std::span<const RCReference<AsyncValue>> results() const { return results_; }
  // The index of the first result that is an error, or -1. REQUIRES: every
  // result is available.
  int FirstErrorResult() const;
  // The non-chain results, moved out, in order. REQUIRES: available.
  std::vector<RCReference<AsyncValue>> TakeOutputs();
  // Drops the references to the arguments (a Python caller releases the
  // arrays it lent, with its lock held).
  void ReleaseArguments() { arguments_.clear(); }

 private:
  const Function* function_;
  RCReference<RequestContext> request_;
  absl::InlinedVector<RCReference<AsyncValue>, 4> arguments_;
  std::vector<RCReference<AsyncValue>> results_;
};

}  // namespace bef

#endif  // BEF_HOST_FUNCTION_RUN_H_
