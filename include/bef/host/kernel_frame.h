// Kernel frames: what a kernel implementation sees of one invocation.
//
// The executor builds an AsyncKernelFrame on its stack for every kernel it
// runs: the operand values, pointers into the BEF image for attributes and
// function indices (read in place, never copied), a small array of result
// slots, and the execution context. The kernel must set every result slot
// before it returns -- to an available value, an error, or a placeholder it
// fills later. Kernels are normally written as plain typed functions and
// wrapped with BEF_KERNEL (kernel_utils.h), which does this bookkeeping.
//
// SyncKernelFrame is the same for sync functions, over plain SyncValues:
// attributes and function references form one list (functions after
// attributes), and a kernel fails by setting an error status.
#ifndef BEF_HOST_KERNEL_FRAME_H_
#define BEF_HOST_KERNEL_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bef/async/async_value.h"
#include "bef/async/async_value_ref.h"
#include "bef/async/location.h"
#include "bef/async/rc_reference.h"
#include "bef/host/execution_context.h"
#include "bef/host/sync_value.h"

namespace bef {

class Function;
class HostContext;

// Where a kernel's attributes and functions are, as read from the BEF image.
struct KernelBinding {
  const uint8_t* attribute_pool = nullptr;
  const uint32_t* attribute_offsets = nullptr;  // into attribute_pool
  // Keeps the pool's bytes alive for values that view them in place; null
  // (or pointing to null) when the pool must be copied instead.
  const std::shared_ptr<const void>* attribute_pool_owner = nullptr;
  // The end of the pool: kernels that read an attribute without a typed
  // view (which the loader verified) check their reads against it. Null:
  // unknown (no check possible).
  const uint8_t* attribute_pool_end = nullptr;

  uint32_t num_attributes = 0;
  const Function* const* function_table = nullptr;  // the file's functions
  const uint32_t* function_indices = nullptr;       // into function_table
  uint32_t num_functions = 0;
  // How many uses (this one included) the register of argument `index` still
  // has in the running invocation; lets a kernel see the reference count
  // TFRT's one-reference-per-use registers would show. Optional.
  uint32_t (*remaining_uses)(const void* executor, size_t index) = nullptr;
  const void* executor = nullptr;

  // Bytes from attribute `index` to attribute_pool_end (0 when there is no
  // such attribute, SIZE_MAX when the end is unknown).
  size_t AttributeBytesAvailable(size_t index) const {
    if (index >= num_attributes) return 0;
    if (attribute_pool_end == nullptr) return SIZE_MAX;
    const uint8_t* attribute = attribute_pool + attribute_offsets[index];
    return attribute < attribute_pool_end
               ? static_cast<size_t>(attribute_pool_end - attribute)
               : 0;
  }
};

class AsyncKernelFrame {
 public:
  // `location` is the kernel's own location (errors are reported there);
  // the context is shared by every kernel of the invocation.
  // REQUIRES: `binding` outlives the frame (it is not copied).
  AsyncKernelFrame(const ExecutionContext* context, const KernelBinding& binding,
                   std::span<AsyncValue* const> arguments,
                   std::span<RCReference<AsyncValue>> results,
                   Location location = {})
      : context_(context),
        binding_(&binding),
        arguments_(arguments),
        results_(results),
        location_(location.has_value() ? location : context->location()) {}

  // ---- Arguments (all available when the kernel runs).
  size_t GetNumArgs() const { return arguments_.size(); }
  AsyncValue* GetArgAt(size_t index) const { return arguments_[index]; }
  std::span<AsyncValue* const> GetArguments() const { return arguments_; }
  // Whether argument `index` is referenced by this use only (what TFRT's
  // IsUnique() on the operand reports).
  bool IsArgumentUnique(size_t index) const {
    AsyncValue* value = arguments_[index];
    if (binding_->remaining_uses == nullptr) return value->IsUnique();
    return value->IsUnique() &&
           binding_->remaining_uses(binding_->executor, index) == 1;
  }

  // ---- Attributes: pointers to each attribute's start in the pool.
  size_t GetNumAttributes() const { return binding_->num_attributes; }
  const uint8_t* GetAttributeAt(size_t index) const {
    return binding_->attribute_pool + binding_->attribute_offsets[index];
  }
  // Bytes from attribute `index` to the end of the Attributes section, for
  // kernels that read attributes raw (typed views are verified at load).
  // 0 when the kernel has no attribute `index`.
  size_t GetAttributeBytesAvailable(size_t index) const {
    return binding_->AttributeBytesAvailable(index);
  }
  // What keeps the attributes' bytes alive, or null (then copy them).
  std::shared_ptr<const void> GetAttributePoolOwner() const {
    return binding_->attribute_pool_owner ? *binding_->attribute_pool_owner
                                          : nullptr;
  }

  // ---- Functions (function references of the op).
  size_t GetNumFunctions() const { return binding_->num_functions; }
  const Function* GetFunctionAt(size_t index) const {
    return binding_->function_table[binding_->function_indices[index]];
  }

  // ---- Results.
  size_t GetNumResults() const { return results_.size(); }
  RCReference<AsyncValue>& GetResultAt(size_t index) { return results_[index]; }
  std::span<RCReference<AsyncValue>> GetResults() { return results_; }
  void SetResultAt(size_t index, RCReference<AsyncValue> value) {
    results_[index] = std::move(value);
  }
  template <typename T, typename... Args>
  void EmplaceResultAt(size_t index, Args&&... args) {
    SetResultAt(index, MakeAvailableAsyncValueRef<T>(std::forward<Args>(args)...)
                           .ReleaseRCRef());
  }
  // Sets every result to a fresh placeholder (an indirect value) and
  // returns them, for kernels that forward their results later.
  std::vector<RCReference<IndirectAsyncValue>> AllocateIndirectResults() {
    std::vector<RCReference<IndirectAsyncValue>> placeholders;
    placeholders.reserve(results_.size());
    for (RCReference<AsyncValue>& result : results_) {
      placeholders.push_back(MakeIndirectAsyncValue());
      result = placeholders.back();
    }
    return placeholders;
  }
  // A placeholder result the kernel fills later.
  template <typename T>
  AsyncValueRef<T> AllocateResultAt(size_t index) {
    AsyncValueRef<T> value = MakeUnconstructedAsyncValueRef<T>();
    SetResultAt(index, value.CopyRCRef());
    return value;
  }

  // ---- Context.
  const ExecutionContext& GetExecutionContext() const { return *context_; }
  HostContext* GetHostContext() const { return context_->host(); }
  Location GetLocation() const { return location_; }

  // ---- Errors.
  // Reports `status` at the kernel's location and sets every result slot not
  // yet set to an error value carrying it.
  void ReportError(absl::Status status);
  // Same with an INTERNAL status whose message is the concatenation.
  template <typename... Parts>
  void ReportError(const Parts&... parts) {
    ReportError(absl::InternalError(absl::StrCat(parts...)));
  }
  // Reports `status` and returns an error value carrying it, for kernels that
  // fail after they returned (asynchronously).
  RCReference<AsyncValue> EmitErrorAsync(absl::Status status) const;

 private:
  const ExecutionContext* context_;
  const KernelBinding* binding_;
  std::span<AsyncValue* const> arguments_;
  std::span<RCReference<AsyncValue>> results_;
  Location location_;
};

class SyncKernelFrame {
 public:
  // REQUIRES: `binding` outlives the frame (it is not copied).
  SyncKernelFrame(const ExecutionContext* context, const KernelBinding& binding,
                  std::span<SyncValue* const> arguments,
                  std::span<SyncValue* const> results)
      : context_(context),
        binding_(&binding),
        arguments_(arguments),
        results_(results) {}

  size_t GetNumArgs() const { return arguments_.size(); }
  SyncValue* GetArgAt(size_t index) const { return arguments_[index]; }
  size_t GetNumAttributes() const { return binding_->num_attributes; }
  const uint8_t* GetAttributeAt(size_t index) const {
    return binding_->attribute_pool + binding_->attribute_offsets[index];
  }
  // Bytes from attribute `index` to the end of the Attributes section, for
  // kernels that read attributes raw (typed views are verified at load).
  // 0 when the kernel has no attribute `index`.
  size_t GetAttributeBytesAvailable(size_t index) const {
    return binding_->AttributeBytesAvailable(index);
  }
  size_t GetNumFunctions() const { return binding_->num_functions; }
  const Function* GetFunctionAt(size_t index) const {
    return binding_->function_table[binding_->function_indices[index]];
  }
  size_t GetNumResults() const { return results_.size(); }
  SyncValue* GetResultAt(size_t index) const { return results_[index]; }
  template <typename T, typename... Args>
  void EmplaceResultAt(size_t index, Args&&... args) {
    results_[index]->emplace<T>(std::forward<Args>(args)...);
  }

  const ExecutionContext& GetExecutionContext() const { return *context_; }
  HostContext* GetHostContext() const { return context_->host(); }

  // The first error stops the sync function and is returned to its caller.
  void SetError(absl::Status status) {
    if (status_.ok()) status_ = std::move(status);
  }
  template <typename... Parts>
  void SetError(const Parts&... parts) {
    SetError(absl::InternalError(absl::StrCat(parts...)));
  }
  const absl::Status& status() const { return status_; }

 private:
  const ExecutionContext* context_;
  const KernelBinding* binding_;
  std::span<SyncValue* const> arguments_;
  std::span<SyncValue* const> results_;
  absl::Status status_;
};

}  // namespace bef

#endif  // BEF_HOST_KERNEL_FRAME_H_
