#include "bef/executor/bef_program.h"

#include "bef/support/status_macros.h"
#include "lib/executor/functions.h"

namespace bef {

absl::StatusOr<std::unique_ptr<BefProgram>> BefProgram::Open(
    HostContext* host, const std::string& path, BefLoadOptions options) {
  options.kernels = &host->kernel_registry();
  options.native_functions = &host->native_functions();
  BEF_ASSIGN_OR_RETURN(std::unique_ptr<BefFile> file, BefFile::Open(path, options));
  return Create(host, std::move(file));
}

absl::StatusOr<std::unique_ptr<BefProgram>> BefProgram::FromBuffer(
    HostContext* host, std::span<const uint8_t> bytes, std::string name) {
  BEF_ASSIGN_OR_RETURN(
      std::unique_ptr<BefFile> file,
      BefFile::OpenBuffer(bytes,
                          {.kernels = &host->kernel_registry(),
                           .native_functions = &host->native_functions()},
                          std::move(name), /*copy=*/true));
  return Create(host, std::move(file));
}

std::unique_ptr<BefProgram> BefProgram::Create(HostContext* host,
                                               std::unique_ptr<BefFile> file) {
  return std::unique_ptr<BefProgram>(new BefProgram(host, std::move(file)));
}

BefProgram::BefProgram(HostContext* host, std::unique_ptr<BefFile> file)
    : host_(host), file_(std::move(file)) {
  for (uint32_t i = 0; i < file_->num_functions(); ++i) {
    const BefFunctionEntry& entry = file_->function(i);
    std::vector<std::string_view> arguments, results;
    for (uint32_t type : entry.argument_types) arguments.push_back(file_->type_name(type));
    for (uint32_t type : entry.result_types) results.push_back(file_->type_name(type));
    switch (entry.kind) {
      case FunctionKind::kBefFunction:
        functions_.push_back(std::make_unique<BefFunction>(
            this, entry, std::move(arguments), std::move(results)));
        break;
      case FunctionKind::kSyncBefFunction:
        functions_.push_back(std::make_unique<SyncBefFunction>(
            this, entry, std::move(arguments), std::move(results)));
        break;
      case FunctionKind::kNativeFunction:
        functions_.push_back(std::make_unique<NativeBefFunction>(
            entry, std::move(arguments), std::move(results)));
        break;
    }
    table_.push_back(functions_.back().get());
  }
  kernel_binding_.attribute_pool = file_->attributes().data();
  kernel_binding_.attribute_pool_owner = &file_->image_owner();
  kernel_binding_.attribute_pool_end =
      file_->attributes().data() + file_->attributes().size();
  kernel_binding_.function_table = table_.data();
  kernel_binding_.remaining_uses = &RemainingUsesInRunningInvocation;
}

BefProgram::~BefProgram() = default;

const Function* BefProgram::GetFunction(std::string_view name) const {
  const BefFunctionEntry* entry = file_->FindFunction(name);
  return entry ? functions_[entry->index].get() : nullptr;
}

}  // namespace bef
