// ts.* kernels: tensor shapes, partial shapes and fixed-rank shapes
// (../shared/spec/host-tensors.md §3, §5.7).
//
// Operands are type-checked at run time (TFRT reinterprets); an index past
// the rank and a shape of the wrong rank for as_fixed_rank_shape.N are
// errors here, undefined behaviour in TFRT.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bef/host/kernel_utils.h"
#include "bef/kernels/kernel_types.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"
#include "kernels/tensor/operands.h"

namespace bef {
namespace {

// `!ts.partial_shape`: unranked, or dimensions where -1 is unknown.
struct PartialTensorShape {
  std::optional<std::vector<int64_t>> dims;
};

// `!ts.fixed_rank_shape.N`.
struct FixedRankShape {
  std::vector<int64_t> dims;
};

std::string DimsText(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

TensorShape BuildShape(ArrayAttribute<int64_t> value) {
  return TensorShape(value.data());
}

absl::StatusOr<Chain> PrintShape(RemainingArguments arguments) {
  auto shape = Operand<TensorShape>(arguments, 0, "ts.print_shape", "shape");
  if (!shape.ok()) return shape.status();
  PrintToStdout(absl::StrCat("shape = ", (*shape)->ToString(), "\n"));
  return Chain();
}

absl::StatusOr<bool> EqualShape(RemainingArguments arguments) {
  auto a = Operand<TensorShape>(arguments, 0, "ts.equal_shape", "shape");
  if (!a.ok()) return a.status();
  auto b = Operand<TensorShape>(arguments, 1, "ts.equal_shape", "shape");
  if (!b.ok()) return b.status();
  return **a == **b;
}

absl::StatusOr<int64_t> GetDimension(RemainingArguments arguments) {
  auto shape = Operand<TensorShape>(arguments, 0, "ts.get_dimension", "shape");
  if (!shape.ok()) return shape.status();
  auto index = Operand<int32_t>(arguments, 1, "ts.get_dimension", "i32");
  if (!index.ok()) return index.status();
  if (**index < 0 || static_cast<size_t>(**index) >= (*shape)->rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ts.get_dimension: index ", **index,
                     " is out of range for rank ", (*shape)->rank()));
  }
  return (*shape)->dims()[**index];
}

absl::StatusOr<int64_t> GetNumElements(RemainingArguments arguments) {
  auto shape =
      Operand<TensorShape>(arguments, 0, "ts.get_num_elements", "shape");
  if (!shape.ok()) return shape.status();
  return (*shape)->NumElements();
}

template <size_t kRank>
absl::StatusOr<FixedRankShape> AsFixedRankShape(RemainingArguments arguments) {
  auto shape =
      Operand<TensorShape>(arguments, 0, "ts.as_fixed_rank_shape", "shape");
  if (!shape.ok()) return shape.status();
  if ((*shape)->rank() != kRank) {
    return absl::InvalidArgumentError(
        absl::StrCat("ts.as_fixed_rank_shape.", kRank, ": the shape ",
                     (*shape)->ToString(), " does not have rank ", kRank));
  }
  return FixedRankShape{(*shape)->dims()};
}

absl::StatusOr<Chain> PrintFixedRankShape(RemainingArguments arguments) {
  auto shape = Operand<FixedRankShape>(arguments, 0,
                                       "ts.print_fixed_rank_shape",
                                       "fixed-rank shape");
  if (!shape.ok()) return shape.status();
  // TFRT's printer tests the element count, not the rank: a shape with a
  // zero dimension prints as [].
  bool empty = false;
  for (int64_t dim : (*shape)->dims) empty = empty || dim == 0;
  std::string text = empty ? std::string("[]") : DimsText((*shape)->dims);
  PrintToStdout(absl::StrCat("fixed_rank_shape = ", text, "\n"));
  return Chain();
}

PartialTensorShape BuildPartialShape(ArrayAttribute<int64_t> value) {
  return PartialTensorShape{
      std::vector<int64_t>(value.data().begin(), value.data().end())};
}

PartialTensorShape BuildUnrankedPartialShape() { return PartialTensorShape{}; }

absl::StatusOr<Chain> PrintPartialShape(RemainingArguments arguments) {
  auto shape = Operand<PartialTensorShape>(
      arguments, 0, "ts.print_partial_shape", "partial shape");
  if (!shape.ok()) return shape.status();
  std::string text = (*shape)->dims ? DimsText(*(*shape)->dims)
                                    : std::string("Unknown rank");
  PrintToStdout(absl::StrCat("partial_tensor_shape = ", text, "\n"));
  return Chain();
}

absl::StatusOr<TensorShape> ToShape(RemainingArguments arguments) {
  auto shape = Operand<PartialTensorShape>(arguments, 0, "ts.to_shape",
                                           "partial shape");
  if (!shape.ok()) return shape.status();
  if (!(*shape)->dims) return absl::InternalError("Unknown rank");
  std::vector<int64_t> unknown;
  for (size_t i = 0; i < (*shape)->dims->size(); ++i) {
    if ((*(*shape)->dims)[i] == -1) unknown.push_back(static_cast<int64_t>(i));
  }
  if (!unknown.empty()) {
    return absl::InternalError(absl::StrCat(
        "Unknown dimensions at following indices = ", DimsText(unknown)));
  }
  return TensorShape(*(*shape)->dims);
}

absl::StatusOr<PartialTensorShape> ToPartialShape(
    RemainingArguments arguments) {
  auto shape =
      Operand<TensorShape>(arguments, 0, "ts.to_partial_shape", "shape");
  if (!shape.ok()) return shape.status();
  return PartialTensorShape{(*shape)->dims()};
}

void RegisterShapeKernels(KernelRegistry* registry) {
  registry->AddKernel("ts.build_shape", BEF_KERNEL(BuildShape));
  registry->AddKernel("ts.print_shape", BEF_KERNEL(PrintShape));
  registry->AddKernel("ts.equal_shape", BEF_KERNEL(EqualShape));
  registry->AddKernel("ts.get_dimension", BEF_KERNEL(GetDimension));
  registry->AddKernel("ts.get_num_elements", BEF_KERNEL(GetNumElements));
  // No kernel for rank 0 (TFRT has the op definition only).
  registry->AddKernel("ts.as_fixed_rank_shape.1",
                      BEF_KERNEL(AsFixedRankShape<1>));
  registry->AddKernel("ts.as_fixed_rank_shape.2",
                      BEF_KERNEL(AsFixedRankShape<2>));
  registry->AddKernel("ts.as_fixed_rank_shape.3",
                      BEF_KERNEL(AsFixedRankShape<3>));
  for (const char* name :
       {"ts.print_fixed_rank_shape.1", "ts.print_fixed_rank_shape.2",
        "ts.print_fixed_rank_shape.3"}) {
    registry->AddKernel(name, BEF_KERNEL(PrintFixedRankShape));
  }
  registry->AddKernel("ts.build_partial_shape", BEF_KERNEL(BuildPartialShape));
  registry->AddKernel("ts.build_unranked_partial_shape",
                      BEF_KERNEL(BuildUnrankedPartialShape));
  registry->AddKernel("ts.print_partial_shape", BEF_KERNEL(PrintPartialShape));
  registry->AddKernel("ts.to_shape", BEF_KERNEL(ToShape));
  registry->AddKernel("ts.to_partial_shape", BEF_KERNEL(ToPartialShape));
}

}  // namespace

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterShapeKernels, "ts");

}  // namespace bef
