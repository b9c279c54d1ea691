// What every CPU-backend tensor kernel (kernels/cpu) does with its tensor
// operands: check the dtype its name implies, read and write the elements,
// compare shapes with TFRT's error texts, and print shapes as TFRT's
// fixed-rank views do. One place for each, so the kernels' messages stay
// one text.
#ifndef BEF_KERNELS_CPU_TENSOR_ACCESS_H_
#define BEF_KERNELS_CPU_TENSOR_ACCESS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bef/host/host_allocator.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"

namespace bef::cpu_kernels {

// The element types of the kernels: their dtype and name suffix.
template <typename T>
struct Element;
template <>
struct Element<float> {
  static constexpr DType kDType = DType::kF32;
  static constexpr std::string_view kSuffix = "f32";
};
template <>
struct Element<int32_t> {
  static constexpr DType kDType = DType::kI32;
  static constexpr std::string_view kSuffix = "i32";
};
template <>
struct Element<int64_t> {
  static constexpr DType kDType = DType::kI64;
  static constexpr std::string_view kSuffix = "i64";
};

// The elements of a tensor whose dtype was checked to be T's.
template <typename T>
const T* Elements(const DenseHostTensor& tensor) {
  return static_cast<const T*>(tensor.data());
}
// The same for writing (a tensor viewing a BEF attribute is copied first).
template <typename T>
absl::StatusOr<T*> WritableElements(DenseHostTensor& tensor, HostAllocator* allocator) {
  BEF_RETURN_IF_ERROR(tensor.MakeWritable(allocator));
  return static_cast<T*>(tensor.writable_data());
}
// The element count (0 for a shape with a negative dimension).
inline size_t Count(const DenseHostTensor& tensor) {
  return static_cast<size_t>(std::max<int64_t>(tensor.NumElements(), 0));
}

// A dimension a kernel derives from its input's (a padded or pooled size),
// computed in 128 bits so that no input dimension, however large, wraps it:
// an error naming the kernel and the input's shape when it leaves int64.
// A tensor with no element may have any dimensions (`[1, 2^42, 0, 1]` takes
// no memory), so every derived size goes through here.
inline absl::StatusOr<int64_t> DerivedDimension(__int128 value, std::string_view kernel,
                                                const TensorShape& input) {
  if (value > INT64_MAX || value < INT64_MIN) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kernel), ": an output dimension for the input shape ", input.ToString(),
        " does not fit in 64 bits"));
  }
  return static_cast<int64_t>(value);
}

// The smallest share of a kernel's work worth a range of its own in
// ParallelFor (bef/host/parallel_for.h), in multiply-adds (products,
// convolutions) or input reads (pooling): a few microseconds. Smaller
// shares would not pay for offering the range to the other threads; a
// share offered to a thread that is asleep or busy costs little more,
// since the caller then runs it itself. A batch-1 MLP layer of 784x512
// (0.4M) splits in two, each thread keeping its half of the weights in its
// own L2 (docs/performance.md "Models against ONNX Runtime").
inline constexpr int64_t kMinimumTaskWork = int64_t{1} << 16;

// An amount of work (a product of sizes, each >= 0) for deciding how to
// split a kernel: saturates at INT64_MAX instead of wrapping, however large
// the sizes of a tensor with no element are.
inline int64_t WorkProduct(std::initializer_list<int64_t> sizes) {
  __int128 product = 1;
  for (int64_t size : sizes) {
    product *= std::max<int64_t>(size, 0);
    if (product > INT64_MAX) return INT64_MAX;
  }
  return static_cast<int64_t>(product);
}

// The checks TFRT leaves to debug builds: the tensor holds f32 elements and
// has the rank the kernel works on (0: any rank).
inline absl::Status CheckF32(const DenseHostTensor& tensor, std::string_view kernel,
                      std::string_view operand, size_t rank) {
  BEF_RETURN_IF_ERROR(tensor.CheckDType(DType::kF32, kernel));
  if (rank != 0 && tensor.shape().rank() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kernel), ": the ", ToAbsl(operand), " has shape ", tensor.shape().ToString(),
        ", the kernel takes a rank-", rank, " tensor"));
  }
  return absl::OkStatus();
}

// TFRT's shape checks of its elementwise kernels: "tensor shape mismatch:
// [2, 3] vs. [3, 2]", in operand order.
inline absl::Status SameShapes(const DenseHostTensor& a, const DenseHostTensor& b) {
  if (a.shape() == b.shape()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("tensor shape mismatch: ", a.shape().ToString(),
                                                 " vs. ", b.shape().ToString()));
}
inline absl::Status SameShapes(const DenseHostTensor& a, const DenseHostTensor& b,
                               const DenseHostTensor& c) {
  if (a.shape() == b.shape() && b.shape() == c.shape()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("tensor shape mismatch: ", a.shape().ToString(),
                                                 " vs. ", b.shape().ToString(), " vs. ",
                                                 c.shape().ToString()));
}

// A shape as TFRT's fixed-rank views print it in messages: the dimensions,
// or `[]` when it has no element (cpu-kernels.md §1.3).
inline std::string FixedShapeText(const TensorShape& shape) {
  if (shape.NumElements() == 0) return "[]";
  return shape.ToString();
}
inline std::string FixedShapeText(const std::vector<int64_t>& dims) {
  return FixedShapeText(TensorShape(dims));
}

}  // namespace bef::cpu_kernels

#endif  // BEF_KERNELS_CPU_TENSOR_ACCESS_H_
