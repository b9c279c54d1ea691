// The core-runtime attribute probe used by golden/tensor_attr_probe
// (host-tensors.md §9.3): corert.create_op_attrs, corert.op_attrs_set.shape,
// corert.op_attrs_set.dense and tfrt_test.corert.op_attrs_print decode
// `#corert.shape` and dense attributes at run time and print what they hold.
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bef/host/kernel_utils.h"
#include "bef/kernels/kernel_types.h"
#include "bef/support/string_view.h"

namespace bef {
namespace {

// `!corert.op_attrs`: key -> (type, value) text, shared by the kernels that
// fill it (ordered by chains).
struct OpAttributes {
  std::shared_ptr<std::map<std::string, std::string>> entries =
      std::make_shared<std::map<std::string, std::string>>();
};

OpAttributes CreateOpAttributes() { return OpAttributes(); }

absl::StatusOr<std::map<std::string, std::string>*> Entries(
    const RemainingArguments& arguments, std::string_view kernel) {
  if (arguments.size() < 1 || !arguments[0]->IsType<OpAttributes>()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(kernel), ": operand 0 is not an op_attrs value"));
  }
  return arguments[0]->get<OpAttributes>().entries.get();
}

// Attributes in name order: key, value.
absl::StatusOr<Chain> SetShape(RemainingArguments arguments,
                               StringAttribute key, ShapeAttribute shape) {
  auto entries = Entries(arguments, "corert.op_attrs_set.shape");
  if (!entries.ok()) return entries.status();
  std::string text = "<*>";
  if (shape.ranked()) {
    text = absl::StrCat("<", absl::StrJoin(shape.dims(), "x"), ">");
  }
  (**entries)[std::string(*key)] = "type=SHAPE value=" + text;
  return Chain();
}

std::string DenseDTypeName(DType dtype) {
  switch (dtype) {
    case DType::kI1: return "BOOL";
    case DType::kI8: return "I8";
    case DType::kI16: return "I16";
    case DType::kI32: return "I32";
    case DType::kI64: return "I64";
    case DType::kUI8: return "UI8";
    case DType::kUI16: return "UI16";
    case DType::kUI32: return "UI32";
    case DType::kUI64: return "UI64";
    case DType::kF16: return "F16";
    case DType::kBF16: return "BF16";
    case DType::kF32: return "F32";
    case DType::kF64: return "F64";
    case DType::kComplex64: return "COMPLEX64";
    case DType::kComplex128: return "COMPLEX128";
    default: return "UNSUPPORTED";
  }
}

absl::StatusOr<Chain> SetDense(RemainingArguments arguments,
                               StringAttribute key, DenseAttribute dense) {
  auto entries = Entries(arguments, "corert.op_attrs_set.dense");
  if (!entries.ok()) return entries.status();
  (**entries)[std::string(*key)] = absl::StrCat(
      "type=DENSE value=dtype=", DenseDTypeName(dense.dtype()),
      ", rank=", dense.rank(), ", elt_count=", dense.num_elements());
  return Chain();
}

absl::StatusOr<Chain> PrintOpAttributes(RemainingArguments arguments) {
  auto entries = Entries(arguments, "tfrt_test.corert.op_attrs_print");
  if (!entries.ok()) return entries.status();
  std::string text =
      absl::StrCat("OpAttrs contains ", (*entries)->size(), " entries:\n");
  for (const auto& [key, value] : **entries) {
    absl::StrAppend(&text, "  '", key, "' ", value, "\n");
  }
  PrintToStdout(text + "\n");
  return Chain();
}

void RegisterOpAttributeKernels(KernelRegistry* registry) {
  registry->AddKernel("corert.create_op_attrs", BEF_KERNEL(CreateOpAttributes));
  registry->AddKernel("corert.op_attrs_set.shape", BEF_KERNEL(SetShape));
  registry->AddKernel("corert.op_attrs_set.dense", BEF_KERNEL(SetDense));
  registry->AddKernel("tfrt_test.corert.op_attrs_print",
                      BEF_KERNEL(PrintOpAttributes));
}

}  // namespace

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterOpAttributeKernels, "corert", "tfrt_test");

}  // namespace bef
