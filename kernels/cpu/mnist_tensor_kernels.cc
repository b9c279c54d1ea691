// The MNIST-family tensor kernels of TFRT's CPU backend (`tfrt_test.*.T`,
// T in f32, i32, i64; ../shared/spec/cpu-kernels.md §2): elementwise relu,
// add and equal (and their in-place forms), the relu gradient, the i32 to
// f32 cast, broadcast, reduce_mean, argmax and slice_inplace. Names,
// operands, checks and error texts are TFRT's.
//
// TFRT evaluates the elementwise kernels on its Eigen thread pool and
// returns a chain that becomes available when the output is written; here
// they run on the calling thread and return a new, available chain, which is
// all that contract promises (a chain after the writes). Where TFRT leaves
// a precondition unchecked (the dtype and rank the name implies, an empty
// reduction, a slice outside its input) these kernels report an error
// naming the kernel instead.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bef/host/host_allocator.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/kernel_utils.h"
#include "bef/kernels/kernel_types.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"
#include "kernels/cpu/tensor_access.h"

namespace bef {
namespace {

using cpu_kernels::Count;
using cpu_kernels::Element;
using cpu_kernels::Elements;
using cpu_kernels::FixedShapeText;
using cpu_kernels::SameShapes;
using cpu_kernels::WritableElements;

// "tfrt_test.NAME.T" (for messages: built on the error path only).
template <typename T>
std::string KernelName(std::string_view name) {
  return absl::StrCat("tfrt_test.", ToAbsl(name), ".", ToAbsl(Element<T>::kSuffix));
}

template <typename T>
absl::Status CheckElements(const DenseHostTensor& tensor, std::string_view name) {
  if (tensor.dtype() == Element<T>::kDType) [[likely]] return absl::OkStatus();
  return tensor.CheckDType(Element<T>::kDType, KernelName<T>(name));
}

// Integer arithmetic wraps (TFRT's C++ signed overflow, in practice).
template <typename T>
T Plus(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using Unsigned = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<Unsigned>(a) + static_cast<Unsigned>(b));
  } else {
    return a + b;
  }
}
template <typename T>
T Times(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using Unsigned = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<Unsigned>(a) * static_cast<Unsigned>(b));
  } else {
    return a * b;
  }
}

// relu.T: (A, B): B[i] = max(A[i], 0).
template <typename T>
absl::StatusOr<Chain> Relu(Argument<DenseHostTensor> a, Argument<DenseHostTensor> b,
                           HostAllocator* allocator) {
  BEF_RETURN_IF_ERROR(CheckElements<T>(*a, "relu"));
  BEF_RETURN_IF_ERROR(CheckElements<T>(*b, "relu"));
  BEF_RETURN_IF_ERROR(SameShapes(*a, *b));
  const T* in = Elements<T>(*a);
  BEF_ASSIGN_OR_RETURN(T* out, WritableElements<T>(*b, allocator));
  const size_t count = Count(*a);
  for (size_t i = 0; i < count; ++i) out[i] = std::max(in[i], T(0));
  return Chain();
}

// relu_inplace.T: (A): A[i] = max(A[i], 0).
template <typename T>
absl::StatusOr<Chain> ReluInplace(Argument<DenseHostTensor> a, HostAllocator* allocator) {
  BEF_RETURN_IF_ERROR(CheckElements<T>(*a, "relu_inplace"));
  BEF_ASSIGN_OR_RETURN(T* data, WritableElements<T>(*a, allocator));
  const size_t count = Count(*a);
  for (size_t i = 0; i < count; ++i) data[i] = std::max(data[i], T(0));
  return Chain();
}

// The elementwise binary kernels' operations: add.T (integers wrap) and
// equal.T (1 or 0 as T; IEEE comparison: NaN is never equal, -0 equals 0).
struct AddOperation {
  static constexpr std::string_view kName = "add";
  static constexpr std::string_view kInplaceName = "add_inplace";
  template <typename T>
  static T Apply(T a, T b) { return Plus(a, b); }
};
struct EqualOperation {
  static constexpr std::string_view kName = "equal";
  static constexpr std::string_view kInplaceName = "equal_inplace";
  template <typename T>
  static T Apply(T a, T b) { return a == b ? T(1) : T(0); }
};

// add.T, equal.T: (A, B, C): C[i] = op(A[i], B[i]).
template <typename T, typename Operation>
absl::StatusOr<Chain> Binary(Argument<DenseHostTensor> a, Argument<DenseHostTensor> b,
                             Argument<DenseHostTensor> c, HostAllocator* allocator) {
  for (const DenseHostTensor* tensor : {&*a, &*b, &*c}) {
    BEF_RETURN_IF_ERROR(CheckElements<T>(*tensor, Operation::kName));
  }
  BEF_RETURN_IF_ERROR(SameShapes(*a, *b, *c));
  const T* x = Elements<T>(*a);
  const T* y = Elements<T>(*b);
  BEF_ASSIGN_OR_RETURN(T* out, WritableElements<T>(*c, allocator));
  const size_t count = Count(*c);
  for (size_t i = 0; i < count; ++i) out[i] = Operation::template Apply<T>(x[i], y[i]);
  return Chain();
}

// add_inplace.T, equal_inplace.T: (A, B): B[i] = op(A[i], B[i]) (the second
// operand is written).
template <typename T, typename Operation>
absl::StatusOr<Chain> BinaryInplace(Argument<DenseHostTensor> a, Argument<DenseHostTensor> b,
                                    HostAllocator* allocator) {
  for (const DenseHostTensor* tensor : {&*a, &*b}) {
    BEF_RETURN_IF_ERROR(CheckElements<T>(*tensor, Operation::kInplaceName));
  }
  BEF_RETURN_IF_ERROR(SameShapes(*a, *b));
  const T* x = Elements<T>(*a);
  BEF_ASSIGN_OR_RETURN(T* out, WritableElements<T>(*b, allocator));
  const size_t count = Count(*b);
  for (size_t i = 0; i < count; ++i) out[i] = Operation::template Apply<T>(x[i], out[i]);
  return Chain();
}

// relu_grad_inplace.T: (activation, gradient): gradient[i] *= activation[i] >
// 0 ? 1 : 0, a multiplication (a NaN gradient at a non-positive activation
// stays NaN, a negative one becomes -0).
template <typename T>
absl::StatusOr<Chain> ReluGradInplace(Argument<DenseHostTensor> activation,
                                      Argument<DenseHostTensor> gradient,
                                      HostAllocator* allocator) {
  BEF_RETURN_IF_ERROR(CheckElements<T>(*activation, "relu_grad_inplace"));
  BEF_RETURN_IF_ERROR(CheckElements<T>(*gradient, "relu_grad_inplace"));
  BEF_RETURN_IF_ERROR(SameShapes(*activation, *gradient));
  const T* x = Elements<T>(*activation);
  BEF_ASSIGN_OR_RETURN(T* out, WritableElements<T>(*gradient, allocator));
  const size_t count = Count(*gradient);
  for (size_t i = 0; i < count; ++i) out[i] = Times(out[i], x[i] > T(0) ? T(1) : T(0));
  return Chain();
}

// cast.i32_to_f32: (A i32, B f32): B[i] = the f32 nearest A[i].
absl::StatusOr<Chain> CastI32ToF32(Argument<DenseHostTensor> a, Argument<DenseHostTensor> b,
                                   HostAllocator* allocator) {
  BEF_RETURN_IF_ERROR(a->CheckDType(DType::kI32, "tfrt_test.cast.i32_to_f32"));
  BEF_RETURN_IF_ERROR(b->CheckDType(DType::kF32, "tfrt_test.cast.i32_to_f32"));
  BEF_RETURN_IF_ERROR(SameShapes(*a, *b));
  const int32_t* in = Elements<int32_t>(*a);
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*b, allocator));
  const size_t count = Count(*b);
  for (size_t i = 0; i < count; ++i) out[i] = static_cast<float>(in[i]);
  return Chain();
}

// A new tensor of T's dtype and `shape`, or TFRT's allocation error text.
template <typename T>
absl::StatusOr<DenseHostTensor> NewTensor(TensorShape shape, HostContext* host,
                                          std::string_view failure) {
  if (!DenseHostTensor::DataSizeOf(Element<T>::kDType, shape).ok()) {
    return absl::InvalidArgumentError(std::string(failure));
  }
  RCReference<HostBuffer> buffer =
      DenseHostTensor::AllocateBuffer(host->allocator(), Element<T>::kDType, shape);
  if (!buffer) return absl::ResourceExhaustedError(std::string(failure));
  return DenseHostTensor(Element<T>::kDType, std::move(shape), std::move(buffer));
}

// broadcast.T.N: (A [K], shape of rank N with last dimension K) -> a new
// tensor of that shape, A repeated along the leading dimensions.
template <typename T, size_t kRank>
absl::StatusOr<DenseHostTensor> Broadcast(Argument<DenseHostTensor> a,
                                          Argument<TensorShape> shape, HostContext* host) {
  const std::string_view name = kRank == 2 ? "broadcast.2" : "broadcast.3";
  BEF_RETURN_IF_ERROR(CheckElements<T>(*a, name));
  const std::vector<int64_t>& target = shape->dims();
  // TFRT reads the ranks as they come (they must be 1 and N).
  if (a->shape().rank() != 1 || target.size() != kRank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tfrt_test.broadcast.", ToAbsl(Element<T>::kSuffix), ".", kRank, ": the tensor has shape ",
        a->shape().ToString(), " and the target ", shape->ToString(),
        ", the kernel takes a rank-1 tensor and a rank-", kRank, " shape"));
  }
  const int64_t width = a->shape().dims()[0];
  if (target.back() != width) {
    return absl::InvalidArgumentError(
        absl::StrCat("broadcast input tensor dimension and target shape mismatch: ",
                     FixedShapeText(a->shape()),
                     " vs. ", shape->ToString()));
  }
  BEF_ASSIGN_OR_RETURN(DenseHostTensor result,
                       NewTensor<T>(*shape, host, "cannot allocate result tensor"));
  T* out = static_cast<T*>(result.writable_data());
  const T* row = Elements<T>(*a);
  const size_t count = Count(result);
  for (size_t at = 0; at < count; at += static_cast<size_t>(width)) {
    std::copy_n(row, width, out + at);
  }
  return result;
}

// reduce_mean.T.1: (A [K]) -> a new rank-0 tensor, the sum divided by K in
// T's arithmetic (integers truncate toward zero).
template <typename T>
absl::StatusOr<DenseHostTensor> ReduceMean(Argument<DenseHostTensor> a, HostContext* host) {
  BEF_RETURN_IF_ERROR(CheckElements<T>(*a, "reduce_mean"));
  const size_t count = Count(*a);
  if (a->shape().rank() != 1 || (std::is_integral_v<T> && count == 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        KernelName<T>("reduce_mean"), ".1: the tensor has shape ", a->shape().ToString(),
        std::is_integral_v<T> ? ", the kernel takes a non-empty rank-1 tensor"
                              : ", the kernel takes a rank-1 tensor"));
  }
  BEF_ASSIGN_OR_RETURN(DenseHostTensor result,
                       NewTensor<T>(TensorShape(), host, "cannot allocate result tensor"));
  const T* in = Elements<T>(*a);
  T sum = 0;
  for (size_t i = 0; i < count; ++i) sum = Plus(sum, in[i]);
  *static_cast<T*>(result.writable_data()) = sum / static_cast<T>(count);
  return result;
}

// argmax.T.2: (A [N, K]) -> a new i32 tensor [N], each row's index of its
// maximum (the first on ties).
template <typename T>
absl::StatusOr<DenseHostTensor> ArgMax(Argument<DenseHostTensor> a, HostContext* host) {
  BEF_RETURN_IF_ERROR(CheckElements<T>(*a, "argmax"));
  const std::vector<int64_t>& dims = a->shape().dims();
  if (dims.size() != 2 || dims[1] <= 0 || dims[0] < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(KernelName<T>("argmax"), ".2: the tensor has shape ", a->shape().ToString(),
                     ", the kernel takes a rank-2 tensor with at least one column"));
  }
  RCReference<HostBuffer> buffer =
      DenseHostTensor::AllocateBuffer(host->allocator(), DType::kI32, TensorShape({dims[0]}));
  if (!buffer) return absl::ResourceExhaustedError("Cannot allocate result tensor.");
  DenseHostTensor result(DType::kI32, TensorShape({dims[0]}), std::move(buffer));
  int32_t* out = static_cast<int32_t*>(result.writable_data());
  const T* in = Elements<T>(*a);
  for (int64_t r = 0; r < dims[0]; ++r) {
    const T* row = in + r * dims[1];
    int64_t best = 0;
    for (int64_t k = 1; k < dims[1]; ++k) {
      if (row[k] > row[best]) best = k;
    }
    out[r] = static_cast<int32_t>(best);
  }
  return result;
}

// slice_inplace.T.3: (input [A, B, C], begin i64[3], chain, output):
// output[i, j, k] = input[b0 + i, b1 + j, b2 + k] for every index of output.
template <typename T>
absl::StatusOr<Chain> SliceInplace(Argument<DenseHostTensor> input, Argument<DenseHostTensor> begin,
                                   Argument<Chain>, Argument<DenseHostTensor> output,
                                   HostAllocator* allocator) {
  BEF_RETURN_IF_ERROR(CheckElements<T>(*input, "slice_inplace"));
  BEF_RETURN_IF_ERROR(CheckElements<T>(*output, "slice_inplace"));
  BEF_RETURN_IF_ERROR(begin->CheckDType(DType::kI64, KernelName<T>("slice_inplace") + ".3"));
  if (begin->NumElements() != 3) {
    return absl::InvalidArgumentError(
        "the size of 'begin_index' should match the input tensor rank");
  }
  const std::vector<int64_t>& in = input->shape().dims();
  const std::vector<int64_t>& out_dims = output->shape().dims();
  const int64_t* start = Elements<int64_t>(*begin);
  // TFRT reads outside the input when the slice leaves it.
  bool inside = in.size() == 3 && out_dims.size() == 3;
  for (size_t d = 0; inside && d < 3; ++d) {
    inside = start[d] >= 0 && out_dims[d] >= 0 && start[d] <= in[d] && out_dims[d] <= in[d] - start[d];
  }
  if (!inside) {
    return absl::InvalidArgumentError(absl::StrCat(
        KernelName<T>("slice_inplace"), ".3: a slice of shape ", output->shape().ToString(),
        " at [", start[0], ", ", start[1], ", ", start[2], "] leaves the input of shape ",
        input->shape().ToString()));
  }
  if (Count(*output) == 0) return Chain();  // its dimensions may be 2^42
  const T* from = Elements<T>(*input);
  BEF_ASSIGN_OR_RETURN(T* to, WritableElements<T>(*output, allocator));
  for (int64_t i = 0; i < out_dims[0]; ++i) {
    for (int64_t j = 0; j < out_dims[1]; ++j) {
      std::copy_n(from + ((start[0] + i) * in[1] + start[1] + j) * in[2] + start[2], out_dims[2],
                  to + (i * out_dims[1] + j) * out_dims[2]);
    }
  }
  return Chain();
}

template <typename T>
void RegisterFamily(KernelRegistry* registry) {
  const std::string suffix(Element<T>::kSuffix);
  registry->AddKernel("tfrt_test.relu." + suffix, BEF_KERNEL(Relu<T>));
  registry->AddKernel("tfrt_test.relu_inplace." + suffix, BEF_KERNEL(ReluInplace<T>));
  registry->AddKernel("tfrt_test.add." + suffix, BEF_KERNEL((Binary<T, AddOperation>)));
  registry->AddKernel("tfrt_test.add_inplace." + suffix,
                      BEF_KERNEL((BinaryInplace<T, AddOperation>)));
  registry->AddKernel("tfrt_test.equal." + suffix, BEF_KERNEL((Binary<T, EqualOperation>)));
  registry->AddKernel("tfrt_test.equal_inplace." + suffix,
                      BEF_KERNEL((BinaryInplace<T, EqualOperation>)));
  registry->AddKernel("tfrt_test.broadcast." + suffix + ".2", BEF_KERNEL((Broadcast<T, 2>)));
  registry->AddKernel("tfrt_test.broadcast." + suffix + ".3", BEF_KERNEL((Broadcast<T, 3>)));
  registry->AddKernel("tfrt_test.reduce_mean." + suffix + ".1", BEF_KERNEL(ReduceMean<T>));
  registry->AddKernel("tfrt_test.argmax." + suffix + ".2", BEF_KERNEL(ArgMax<T>));
  registry->AddKernel("tfrt_test.relu_grad_inplace." + suffix, BEF_KERNEL(ReluGradInplace<T>));
  registry->AddKernel("tfrt_test.slice_inplace." + suffix + ".3", BEF_KERNEL(SliceInplace<T>));
}

void RegisterMnistTensorKernels(KernelRegistry* registry) {
  RegisterFamily<float>(registry);
  RegisterFamily<int32_t>(registry);
  RegisterFamily<int64_t>(registry);
  registry->AddKernel("tfrt_test.cast.i32_to_f32", BEF_KERNEL(CastI32ToF32));
}

}  // namespace

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterMnistTensorKernels, "tfrt_test");

}  // namespace bef
