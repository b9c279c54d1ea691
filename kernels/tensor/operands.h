// Checked operand access for the tensor kernels: TFRT reinterprets an
// operand of the wrong kind; these kernels report an error instead.
#ifndef BEF_KERNELS_TENSOR_OPERANDS_H_
#define BEF_KERNELS_TENSOR_OPERANDS_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bef/host/kernel_utils.h"
#include "bef/support/string_view.h"

namespace bef {

// Operand `index` as a T, or "KERNEL: operand I is not a WHAT".
template <typename T>
absl::StatusOr<T*> Operand(const RemainingArguments& arguments, size_t index,
                           std::string_view kernel, std::string_view what) {
  if (index >= arguments.size() || !arguments[index]->IsType<T>()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kernel), ": operand ", index, " is not a ", ToAbsl(what)));
  }
  return &arguments[index]->get<T>();
}

}  // namespace bef

#endif  // BEF_KERNELS_TENSOR_OPERANDS_H_
