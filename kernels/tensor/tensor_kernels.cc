// Kernels of the host tensor library (../shared/spec/host-tensors.md §5):
// so far the dense-tensor printers and tfrt_test.const_dense_attr
// (host-dialects.md §3.5), which makes a DenseHostTensor from a BEF dense
// attribute.
//
// Tensor operands are checked at run time: a value that is not a host tensor
// is an error, never a reinterpretation (TFRT does not check).
#include <complex>
#include <cstring>
#include <type_traits>
#include <utility>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_utils.h"
#include "bef/kernels/kernel_types.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"
#include "bef/tensor/sparse_and_string_tensors.h"

namespace bef {
namespace {

absl::StatusOr<const DenseHostTensor*> DenseTensorOperand(AsyncValue* value,
                                                         std::string_view kernel) {
  if (!value->IsType<DenseHostTensor>()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(kernel), ": the operand is not a dense host tensor"));
  }
  return &value->get<DenseHostTensor>();
}

// tfrt_test.const_dense_attr: the attribute's dtype, shape and elements,
// viewed in place in the BEF image (copy-on-write; TFRT copies).
absl::StatusOr<DenseHostTensor> ConstDenseAttr(DenseAttribute dense,
                                               HostContext* host,
                                               AsyncKernelFrame* frame) {
  return DenseHostTensor::FromDenseAttribute(
      dense, frame->GetAttributePoolOwner(), host->allocator());
}

// tfrt_dht.print_tensor: (any host tensor, chain) -> chain.
absl::StatusOr<Chain> PrintTensor(RemainingArguments arguments) {
  if (arguments.size() == 0)
    return absl::InvalidArgumentError("tfrt_dht.print_tensor needs a tensor");
  AsyncValue* value = arguments[0];
  std::string text;
  if (value->IsType<DenseHostTensor>()) {
    text = value->get<DenseHostTensor>().ToString();
  } else if (value->IsType<StringHostTensor>()) {
    text = value->get<StringHostTensor>().ToString();
  } else if (value->IsType<CooHostTensor>()) {
    text = value->get<CooHostTensor>().ToString();
  } else {
    return absl::InvalidArgumentError(
        "tfrt_dht.print_tensor: the operand is not a host tensor");
  }
  PrintToStdout(absl::StrCat(text, "\n"));
  return Chain();
}

// tfrt_dht.print_tensor_shape: (dense tensor[, chain]) -> chain.
absl::StatusOr<Chain> PrintTensorShape(RemainingArguments arguments) {
  if (arguments.size() == 0) {
    return absl::InvalidArgumentError(
        "tfrt_dht.print_tensor_shape needs a tensor");
  }
  auto tensor = DenseTensorOperand(arguments[0], "tfrt_dht.print_tensor_shape");
  if (!tensor.ok()) return tensor.status();
  PrintToStdout(absl::StrCat((*tensor)->shape().ToString(), "\n"));
  return Chain();
}

// tfrt_dht.tensor_equal.T: equal dtype, shape and elements (`==` on T, so
// NaN differs from itself and -0 equals 0); the chain is forwarded.
// Tensors of different dtypes are not equal (as in TFRT); two of one dtype
// other than T's are an error (TFRT compares their bytes as T's, or not at
// all when the sizes differ, and says equal).
//
// The elements of two tensors of T's dtype and one shape.
template <typename T>
[[gnu::always_inline]] inline bool ElementsEqual(const DenseHostTensor& a, const DenseHostTensor& b) {
  // Sizes once, not per element (DataSize multiplies out the shape); the
  // same for both (same dtype and shape).
  const size_t size = a.DataSize();
  const char* x = static_cast<const char*>(a.data());
  const char* y = static_cast<const char*>(b.data());
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // Integers are equal exactly when their bytes are.
    return x == y || std::memcmp(x, y, size) == 0;
  } else {
    for (size_t i = 0; i < size; i += sizeof(T)) {
      T u, v;
      std::memcpy(&u, x + i, sizeof(T));
      std::memcpy(&v, y + i, sizeof(T));
      if (!(u == v)) return false;
    }
    return true;
  }
}

// tfrt_dht.tensor_equal.T: whether two tensors have the same dtype, shape
// and elements (tensors of two dtypes are not equal; equal dtypes other than
// T's are an error), in order on a chain.
template <typename T, DType kDType>
absl::StatusOr<std::pair<bool, Chain>> TensorEqual(Argument<DenseHostTensor> a,
                                                   Argument<DenseHostTensor> b,
                                                   Argument<Chain>) {
  bool equal = false;
  if (a->dtype() == b->dtype()) {
    BEF_RETURN_IF_ERROR(a->CheckDType(kDType, "tfrt_dht.tensor_equal"));
    equal = a->shape() == b->shape() && ElementsEqual<T>(*a, *b);
  }
  return std::pair<bool, Chain>(equal, Chain());
}

template <typename T, DType kDType>
KernelDefinition<AsyncKernelImplementation> TensorEqualDefinition() {
  return BEF_KERNEL((TensorEqual<T, kDType>));
}

void RegisterTensorKernels(KernelRegistry* registry) {
  registry->AddKernel("tfrt_test.const_dense_attr", BEF_KERNEL(ConstDenseAttr));
  registry->AddKernel("tfrt_dht.print_tensor", BEF_KERNEL(PrintTensor));
  registry->AddKernel("tfrt_dht.print_tensor_shape",
                      BEF_KERNEL(PrintTensorShape));
  registry->AddKernel("tfrt_dht.tensor_equal.ui8",
                      (TensorEqualDefinition<uint8_t, DType::kUI8>()));
  registry->AddKernel("tfrt_dht.tensor_equal.ui32",
                      (TensorEqualDefinition<uint32_t, DType::kUI32>()));
  registry->AddKernel("tfrt_dht.tensor_equal.ui64",
                      (TensorEqualDefinition<uint64_t, DType::kUI64>()));
  registry->AddKernel("tfrt_dht.tensor_equal.i8",
                      (TensorEqualDefinition<int8_t, DType::kI8>()));
  registry->AddKernel("tfrt_dht.tensor_equal.i32",
                      (TensorEqualDefinition<int32_t, DType::kI32>()));
  registry->AddKernel("tfrt_dht.tensor_equal.i64",
                      (TensorEqualDefinition<int64_t, DType::kI64>()));
  registry->AddKernel("tfrt_dht.tensor_equal.bool",
                      (TensorEqualDefinition<bool, DType::kI1>()));
  registry->AddKernel("tfrt_dht.tensor_equal.f32",
                      (TensorEqualDefinition<float, DType::kF32>()));
  registry->AddKernel("tfrt_dht.tensor_equal.f64",
                      (TensorEqualDefinition<double, DType::kF64>()));
  registry->AddKernel("tfrt_dht.tensor_equal.complex64",
                      (TensorEqualDefinition<std::complex<float>, DType::kComplex64>()));
  registry->AddKernel("tfrt_dht.tensor_equal.complex128",
                      (TensorEqualDefinition<std::complex<double>, DType::kComplex128>()));
}

}  // namespace

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterTensorKernels, "tfrt_dht", "tfrt_test");

}  // namespace bef
