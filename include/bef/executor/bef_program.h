// BefProgram: a loaded BEF file bound to a HostContext, whose functions can
// be executed -- the embedding API.
//
//   HostContext host(handler, CreateMallocAllocator(), CreateWorkQueue("mstd:2").value());
//   RegisterStaticKernels(&host.kernel_registry());
//   RegisterStaticNativeFunctions(&host.native_functions());
//   auto program = BefProgram::Open(&host, "model.bef").value();
//   const Function* add = program->GetFunction("add_one");
//
//   ResourceContext resources;
//   ExecutionContext context(RequestContext::Create(&host, &resources));
//   AsyncValueRef<int32_t> x = MakeAvailableAsyncValueRef<int32_t>(41);
//   AsyncValue* arguments[] = {x.GetAsyncValue()};
//   std::vector<RCReference<AsyncValue>> results(add->num_results());
//   add->Execute(context, arguments, results);
//   host.Await(results);                     // results[0]->get<int32_t>() == 42
//
// Every function of the file (BEF, sync and native) is a Function; kernels
// reach the others through the function table. Functions are verified and
// inflated on first execution.
//
// Thread safety: a BefProgram is immutable; its functions may be executed
// concurrently from any thread, each execution with its own ExecutionContext
// (or sharing one request). Cancel a request with
// context.request_context()->Cancel() or give it a deadline with SetDeadline.
//
// Lifetime: the program (and the host) must outlive its executions. Once
// an execution has made its last result available it reads the program
// only to finish the bookkeeping of the kernel that produced it (other
// results of that kernel) and to run kernels that lead to no result (side
// effects on a chain that is not returned); host.Quiesce() waits for work
// queued on the host. To free a program while executions may still run,
// own it through a std::shared_ptr and give each request a reference:
// request->KeepAlive(program_ptr) (or SetData) -- the executor holds the
// request until the execution's last kernel has run (the Python package's
// runs do this, python/src/runtime_module.cc; bef_serve's LoadedModel,
// tools/serving/model_repository.h).
#ifndef BEF_EXECUTOR_BEF_PROGRAM_H_
#define BEF_EXECUTOR_BEF_PROGRAM_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/execution_context.h"
#include "bef/host/function.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_frame.h"
#include "bef/loader/bef_file.h"

namespace bef {

class BefProgram {
 public:
  // Loads `path` ("-": standard input) with `host`'s registries; `options`
  // says how the file is read (its registries are `host`'s, whatever it
  // holds).
  static absl::StatusOr<std::unique_ptr<BefProgram>> Open(HostContext* host,
                                                          const std::string& path,
                                                          BefLoadOptions options = {});
  static absl::StatusOr<std::unique_ptr<BefProgram>> FromBuffer(
      HostContext* host, std::span<const uint8_t> bytes, std::string name = "<buffer>");
  // Wraps an already loaded file. REQUIRES: it was loaded with `host`'s
  // registries.
  static std::unique_ptr<BefProgram> Create(HostContext* host,
                                            std::unique_ptr<BefFile> file);

  ~BefProgram();

  HostContext* host() const { return host_; }
  const BefFile& file() const { return *file_; }
  size_t num_functions() const { return functions_.size(); }
  const Function* GetFunction(uint32_t index) const { return functions_[index].get(); }
  // The named function, or null.
  const Function* GetFunction(std::string_view name) const;
  // The table kernels index (KernelBinding::function_table).
  const Function* const* function_table() const { return table_.data(); }
  // What the bindings of all kernels of the program share (attribute pool
  // and its owner, function table); the executor adds each kernel's part.
  const KernelBinding& kernel_binding() const { return kernel_binding_; }

 private:
  BefProgram(HostContext* host, std::unique_ptr<BefFile> file);

  HostContext* host_;
  std::unique_ptr<BefFile> file_;
  std::vector<std::unique_ptr<Function>> functions_;
  std::vector<const Function*> table_;
  KernelBinding kernel_binding_;
};

}  // namespace bef

#endif  // BEF_EXECUTOR_BEF_PROGRAM_H_
