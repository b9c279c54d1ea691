// The sequential interpreter for sync BEF functions (docs/executor-semantics.md §7):
// kernels run in kernel-table order over plain SyncValues; argument and
// result registers are the caller's; other registers are cleared right
// after their last use; the first error stops the function.
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/kernel_frame.h"
#include "bef/support/string_view.h"
#include "bef/host/tracing.h"
#include "lib/executor/functions.h"

namespace bef {

void SyncBefFunction::Execute(const ExecutionContext&,
                              std::span<AsyncValue* const>,
                              std::span<RCReference<AsyncValue>> results) const {
  // TFRT crashes here; this runtime answers with an error value.
  RCReference<AsyncValue> error = MakeErrorAsyncValueRef(absl::InternalError(
      absl::StrCat("sync function '", ToAbsl(name()),
                   "' cannot be executed as an async function")));
  for (auto& result : results) result = error;
}

absl::Status SyncBefFunction::ExecuteSync(const ExecutionContext& context,
                                          std::span<SyncValue* const> arguments,
                                          std::span<SyncValue* const> results) const {
  absl::StatusOr<const FunctionInfo*> info_or =
      program_->file().GetFunctionInfo(index_);
  if (!info_or.ok()) return info_or.status();
  const FunctionInfo& info = **info_or;
  TraceSpan function_span("function", name());
  if (arguments.size() != info.num_arguments || results.size() != info.result_registers.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sync function '", ToAbsl(name()), "' takes ", info.num_arguments,
        " arguments and ", info.result_registers.size(), " results"));
  }
  // Register slots: arguments and results are the caller's values.
  std::vector<SyncValue> locals(info.num_registers);
  std::vector<SyncValue*> registers(info.num_registers);
  std::vector<uint32_t> remaining_uses(info.register_uses);
  std::vector<bool> bound(info.num_registers, false);
  for (uint32_t i = 0; i < info.num_registers; ++i) registers[i] = &locals[i];
  for (uint32_t i = 0; i < arguments.size(); ++i) {
    registers[i] = arguments[i];
    bound[i] = true;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    registers[info.result_registers[i]] = results[i];
    bound[info.result_registers[i]] = true;
  }
  const BefFile& file = program_->file();
  absl::InlinedVector<SyncValue*, 8> kernel_arguments;
  absl::InlinedVector<SyncValue*, 4> kernel_results;
  std::vector<uint32_t> attributes_and_functions;
  for (size_t k = 1; k < info.kernels.size(); ++k) {
    const KernelInfo& kernel = info.kernels[k];
    kernel_arguments.clear();
    for (uint32_t reg : kernel.arguments()) kernel_arguments.push_back(registers[reg]);
    kernel_results.clear();
    for (uint32_t reg : kernel.results()) kernel_results.push_back(registers[reg]);
    // Sync kernels see functions as further attributes: their offsets are
    // not attributes, so functions go through the function list as usual.
    KernelBinding binding = program_->kernel_binding();
    binding.remaining_uses = nullptr;  // async executor only
    binding.attribute_offsets = kernel.attributes().data();
    binding.num_attributes = kernel.num_attributes();
    binding.function_indices = kernel.functions().data();
    binding.num_functions = kernel.num_functions();
    SyncKernelFrame frame(&context, binding, kernel_arguments, kernel_results);
    {
      TraceSpan kernel_span("kernel", file.kernel_name(kernel.code()),
                            IsTracing() ? TraceArgs({{"function", name()}})
                                        : std::string());
      kernel.sync_implementation(&frame);
    }
    if (!frame.status().ok()) return frame.status();
    // Clear registers after their last use; results nobody uses at once.
    for (uint32_t reg : kernel.arguments()) {
      if (--remaining_uses[reg] == 0 && !bound[reg]) locals[reg].reset();
    }
    for (uint32_t reg : kernel.results()) {
      if (info.register_uses[reg] == 0 && !bound[reg]) locals[reg].reset();
    }
  }
  return absl::OkStatus();
}

}  // namespace bef
