// tfrt_dht.* creation, writing, buffer, shape and comparison kernels
// (../shared/spec/host-tensors.md §5.2-5.4), for every dtype suffix:
// ui8 ui32 ui64 i8 i32 i64 bool f32 f64 f16 bf16 complex64 complex128.
//
// As in TFRT, the dtype suffix is not checked against the tensor's dtype and
// attributes are read as the kernel's element type (their bytes are
// reinterpreted); but every operand is type-checked (a value that is not a
// tensor, buffer or shape is an error), element counts are checked before
// any element is read, and the loader has verified each attribute's bytes.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bef/format/attribute_view.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_utils.h"
#include "bef/kernels/kernel_types.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"
#include "kernels/tensor/operands.h"

namespace bef {

// `!ht.host_buffer` values.
struct HostBufferValue {
  RCReference<HostBuffer> buffer;
};

namespace {

#define BEF_ASSIGN_OR_RETURN_OPERAND(name, T, index, kernel, what) \
  auto name##_or = Operand<T>(arguments, index, kernel, what);     \
  if (!name##_or.ok()) return name##_or.status();                  \
  T* name = *name##_or

// Element types by dtype suffix.
template <typename T>
struct Element {
  using Type = T;
};

// ---- creation ----

absl::StatusOr<DenseHostTensor> CreateUninitializedTensor(
    DType dtype, ArrayAttribute<int64_t> shape_attribute, HostContext* host) {
  TensorShape shape(shape_attribute.data());
  RCReference<HostBuffer> buffer =
      DenseHostTensor::AllocateBuffer(host->allocator(), dtype, shape);
  if (!buffer) return absl::InternalError("Cannot allocate tensor");
  return DenseHostTensor(dtype, std::move(shape), std::move(buffer));
}

template <DType kDType>
absl::StatusOr<DenseHostTensor> CreateUninitialized(
    ArrayAttribute<int64_t> shape, HostContext* host) {
  return CreateUninitializedTensor(kDType, shape, host);
}

// ---- writing ----

// fill_tensor_with_constant.T: every element := the attribute read as T
// (the tensor's dtype must be T's).
template <typename T, DType kDType>
absl::StatusOr<Chain> FillTensorWithConstant(Argument<DenseHostTensor> tensor, Argument<Chain>,
                                             Attribute<T> value, HostAllocator* allocator) {
  BEF_RETURN_IF_ERROR(tensor->CheckDType(kDType, "tfrt_dht.fill_tensor_with_constant"));
  BEF_RETURN_IF_ERROR(tensor->MakeWritable(allocator));
  // The dtype is T's: the elements are NumElements() Ts (none for a shape
  // with a negative dimension). The value is read once: written through
  // `data`, it would be re-read after every store.
  const T fill = *value;
  std::fill_n(static_cast<T*>(tensor->writable_data()),
              std::max<int64_t>(tensor->NumElements(), 0), fill);
  return Chain();
}

template <typename T>
constexpr bool kIsComplex = false;
template <typename T>
constexpr bool kIsComplex<std::complex<T>> = true;

// set_tensor_with_constant_values.T: the `values` attribute read as uint32
// count + packed elements (complex: interleaved parts, twice the count),
// whatever its kind (TFRT reads an aggregate's header word as the count).
template <typename T, DType kDType>
absl::StatusOr<RCReference<AsyncValue>> SetTensorWithConstantValues(
    RemainingArguments arguments, RemainingAttributes attributes,
    HostContext* host) {
  BEF_ASSIGN_OR_RETURN_OPERAND(tensor, DenseHostTensor, 0,
                               "tfrt_dht.set_tensor_with_constant_values",
                               "tensor");
  BEF_RETURN_IF_ERROR(
      tensor->CheckDType(kDType, "tfrt_dht.set_tensor_with_constant_values"));
  if (arguments.size() < 2 || attributes.size() < 1) {
    return absl::InvalidArgumentError(
        "tfrt_dht.set_tensor_with_constant_values takes a tensor, a chain "
        "and a values attribute");
  }
  const uint8_t* attribute = attributes[0];
  const size_t available = attributes.available_bytes(0);
  if (available < 4) {
    return absl::InvalidArgumentError(
        "tfrt_dht.set_tensor_with_constant_values: the values attribute is "
        "outside the Attributes section");
  }
  uint32_t count = internal::LoadWord(attribute);
  int64_t expected = tensor->NumElements();
  if constexpr (kIsComplex<T>) {
    // Two values per element; a shape of more than 2^62 elements (or a
    // negative dimension) cannot match a 32-bit count.
    int64_t expected_values;
    if (__builtin_mul_overflow(expected, 2, &expected_values)) {
      expected_values = std::numeric_limits<int64_t>::max();
    }
    if (count != expected_values) {
      return absl::InternalError(absl::StrCat(
          "Incorrect number of real and imaginary values for the complex "
          "tensor: ",
          count, ", but expected ", expected_values));
    }
  } else if (count != expected) {
    return absl::InternalError(
        absl::StrCat("Incorrect number of values for the tensor: ", count,
                     ", but expected ", expected));
  }
  // Arrays of 8-byte elements start at the next 8-byte boundary.
  size_t part = kIsComplex<T> ? sizeof(T) / 2 : sizeof(T);
  const uint8_t* payload = attribute + 4;
  if (part == 8 && reinterpret_cast<uintptr_t>(payload) % 8 != 0) payload += 4;
  // The attribute is read whatever its kind (as TFRT does), but never past
  // the Attributes section.
  if (static_cast<size_t>(payload - attribute) + tensor->DataSize() > available) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tfrt_dht.set_tensor_with_constant_values: the values attribute "
        "holds fewer than the tensor's ", tensor->DataSize(), " bytes"));
  }
  BEF_RETURN_IF_ERROR(tensor->MakeWritable(host->allocator()));
  std::memcpy(tensor->writable_data(), payload, tensor->DataSize());
  return FormRef(arguments[1]);
}

// set_tensor_with_values.T: element i := operand i + 2.
template <typename T, DType kDType>
absl::StatusOr<Chain> SetTensorWithValues(RemainingArguments arguments,
                                          HostContext* host) {
  BEF_ASSIGN_OR_RETURN_OPERAND(tensor, DenseHostTensor, 0,
                               "tfrt_dht.set_tensor_with_values", "tensor");
  BEF_RETURN_IF_ERROR(tensor->CheckDType(kDType, "tfrt_dht.set_tensor_with_values"));
  size_t count = arguments.size() >= 2 ? arguments.size() - 2 : 0;
  if (static_cast<int64_t>(count) != tensor->NumElements()) {
    return absl::InternalError(
        absl::StrCat("Incorrect number of values for the tensor: ", count,
                     ", but expected ", tensor->NumElements()));
  }
  BEF_RETURN_IF_ERROR(tensor->MakeWritable(host->allocator()));
  T* data = static_cast<T*>(tensor->writable_data());
  for (size_t i = 0; i < count; ++i) {
    BEF_ASSIGN_OR_RETURN_OPERAND(value, T, i + 2,
                                 "tfrt_dht.set_tensor_with_values",
                                 "value of the tensor's element type");
    data[i] = *value;
  }
  return Chain();
}

// make_tensor.T: (buffer, shape, chain) -> (tensor over the buffer, chain).
template <DType kDType>
absl::StatusOr<std::pair<DenseHostTensor, RCReference<AsyncValue>>>
MakeTensor(RemainingArguments arguments) {
  BEF_ASSIGN_OR_RETURN_OPERAND(buffer, HostBufferValue, 0,
                               "tfrt_dht.make_tensor", "host buffer");
  BEF_ASSIGN_OR_RETURN_OPERAND(shape, TensorShape, 1, "tfrt_dht.make_tensor",
                               "shape");
  if (arguments.size() < 3) {
    return absl::InvalidArgumentError("tfrt_dht.make_tensor needs a chain");
  }
  if (!buffer->buffer) return absl::InternalError("Cannot allocate host buffer.");
  size_t element_size = DTypeSize(kDType);
  // Element count x size with overflow checks (a shape of 2^62+1 i32
  // elements must not wrap around to a 4-byte buffer).
  absl::StatusOr<size_t> needed = DenseHostTensor::DataSizeOf(kDType, *shape);
  if (!needed.ok() || buffer->buffer->size() != *needed) {
    return absl::InternalError(absl::StrCat(
        "dht.make_tensor failed: buffer_size (", buffer->buffer->size(),
        ") is not equal to the number of elements in shape (",
        shape->ToString(), ") times element size (", element_size, ")"));
  }
  // Unlike TFRT, the buffer value stays usable (TFRT moves it out).
  return std::pair<DenseHostTensor, RCReference<AsyncValue>>(
      DenseHostTensor(kDType, *shape, buffer->buffer), FormRef(arguments[2]));
}

// ---- buffers, printing, shapes ----

absl::StatusOr<HostBufferValue> AllocateBuffer(RemainingArguments arguments,
                                               HostContext* host) {
  BEF_ASSIGN_OR_RETURN_OPERAND(size, int64_t, 0, "tfrt_dht.allocate_buffer",
                               "i64 size");
  BEF_ASSIGN_OR_RETURN_OPERAND(alignment, int64_t, 1,
                               "tfrt_dht.allocate_buffer", "i64 alignment");
  if (*size < 0 || *alignment <= 0 || (*alignment & (*alignment - 1)) != 0) {
    return absl::InternalError("Cannot allocate host buffer");
  }
  RCReference<HostBuffer> buffer =
      HostBuffer::Allocate(host->allocator(), *size, *alignment);
  if (!buffer) return absl::InternalError("Cannot allocate host buffer");
  return HostBufferValue{std::move(buffer)};
}

absl::StatusOr<std::pair<HostBufferValue, RCReference<AsyncValue>>> GetBuffer(
    RemainingArguments arguments, HostContext* host) {
  BEF_ASSIGN_OR_RETURN_OPERAND(tensor, DenseHostTensor, 0,
                               "tfrt_dht.get_buffer", "tensor");
  if (arguments.size() < 2) {
    return absl::InvalidArgumentError("tfrt_dht.get_buffer needs a chain");
  }
  // The buffer may be written through a tensor made from it: hand out a
  // writable one (the tensor's own, so later writes of either are shared).
  BEF_RETURN_IF_ERROR(tensor->MakeWritable(host->allocator()));
  return std::pair<HostBufferValue, RCReference<AsyncValue>>(
      HostBufferValue{tensor->buffer()}, FormRef(arguments[1]));
}

absl::StatusOr<HostBufferValue> GetBufferSlice(RemainingArguments arguments) {
  BEF_ASSIGN_OR_RETURN_OPERAND(parent, HostBufferValue, 0,
                               "tfrt_dht.get_buffer_slice", "host buffer");
  BEF_ASSIGN_OR_RETURN_OPERAND(offset, int64_t, 1,
                               "tfrt_dht.get_buffer_slice", "i64 offset");
  BEF_ASSIGN_OR_RETURN_OPERAND(size, int64_t, 2, "tfrt_dht.get_buffer_slice",
                               "i64 size");
  if (!parent->buffer) return absl::InternalError("Cannot allocate host buffer.");
  // TFRT does not check the range (a slice past the end is undefined to
  // read); a slice must lie inside its parent here.
  if (*offset < 0 || *size < 0 ||
      static_cast<uint64_t>(*offset) + static_cast<uint64_t>(*size) >
          parent->buffer->size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tfrt_dht.get_buffer_slice: bytes [", *offset, ", ", *offset + *size,
        ") are outside the buffer of ", parent->buffer->size(), " bytes"));
  }
  return HostBufferValue{HostBuffer::Slice(parent->buffer, *offset, *size)};
}

absl::StatusOr<RCReference<AsyncValue>> PrintBuffer(
    RemainingArguments arguments) {
  BEF_ASSIGN_OR_RETURN_OPERAND(buffer, HostBufferValue, 0,
                               "tfrt_dht.print_buffer", "host buffer");
  if (arguments.size() < 2) {
    return absl::InvalidArgumentError("tfrt_dht.print_buffer needs a chain");
  }
  if (!buffer->buffer) return absl::InternalError("Cannot allocate host buffer.");
  char address[32];
  std::snprintf(address, sizeof(address), "%p", buffer->buffer->data());
  PrintToStdout(absl::StrCat("HostBuffer<pointer=", address,
                             ", size=", buffer->buffer->size(), ">\n"));
  return FormRef(arguments[1]);
}

absl::StatusOr<TensorShape> GetTensorShape(RemainingArguments arguments) {
  BEF_ASSIGN_OR_RETURN_OPERAND(tensor, DenseHostTensor, 0,
                               "tfrt_dht.get_tensor_shape", "tensor");
  return tensor->shape();
}

absl::StatusOr<Chain> NoOpHostTensor(RemainingArguments arguments) {
  BEF_ASSIGN_OR_RETURN_OPERAND(tensor, DenseHostTensor, 0,
                               "tfrt_dht.no_op_ht", "tensor");
  (void)tensor;
  return Chain();
}

// ---- comparison ----

// Close within `ulp` units: equal, or |x - y| <= eps * |x + y| * ulp, or
// the difference is below the smallest normal. NaN is never close. An
// infinity is close to the same infinity (TFRT says it is not, because
// inf - inf is NaN; issue #9 asks for the right answer, see
// tests/tensor/dht_compare.mlir and BETTER_THAN_REFERENCE in run_golden.py).
template <typename T>
bool Close(T x, T y, int ulp) {
  if (x == y) return true;
  T difference = std::fabs(x - y);
  return difference <= std::numeric_limits<T>::epsilon() * std::fabs(x + y) * ulp ||
         difference < std::numeric_limits<T>::min();
}

template <typename T>
bool ElementsClose(T x, T y, int ulp) {
  if constexpr (std::is_floating_point_v<T>) {
    return Close(x, y, ulp);
  } else if constexpr (kIsComplex<T>) {
    return Close(x.real(), y.real(), ulp) && Close(x.imag(), y.imag(), ulp);
  } else {
    return x == y;
  }
}

// tensor_allclose[.Nulp].T: same dtype and shape and every element close.
// Tensors of different dtypes are not close (as in TFRT); two of one dtype
// other than T's are an error (TFRT reads their bytes as T's).
template <typename T, DType kDType, int kUlp>
absl::StatusOr<std::pair<bool, RCReference<AsyncValue>>> TensorAllClose(
    RemainingArguments arguments) {
  BEF_ASSIGN_OR_RETURN_OPERAND(a, DenseHostTensor, 0, "tfrt_dht.tensor_allclose",
                               "tensor");
  BEF_ASSIGN_OR_RETURN_OPERAND(b, DenseHostTensor, 1, "tfrt_dht.tensor_allclose",
                               "tensor");
  if (arguments.size() < 3) {
    return absl::InvalidArgumentError("tfrt_dht.tensor_allclose needs a chain");
  }
  if (a->dtype() == b->dtype()) {
    BEF_RETURN_IF_ERROR(a->CheckDType(kDType, "tfrt_dht.tensor_allclose"));
  }
  bool close = a->dtype() == b->dtype() && a->shape() == b->shape() &&
               a->DataSize() == b->DataSize();
  const char* x = static_cast<const char*>(a->data());
  const char* y = static_cast<const char*>(b->data());
  const size_t size = close ? a->DataSize() : 0;  // once, not per element
  for (size_t i = 0; close && i < size; i += sizeof(T)) {
    T u, v;
    std::memcpy(&u, x + i, sizeof(T));
    std::memcpy(&v, y + i, sizeof(T));
    close = ElementsClose(u, v, kUlp);
  }
  return std::pair<bool, RCReference<AsyncValue>>(close, FormRef(arguments[2]));
}

// ---- registration ----

// f16/bf16 have no comparison kernels (as in TFRT).
template <typename T, DType kDType, bool kComparisons = true>
void RegisterForType(KernelRegistry* registry, const std::string& suffix) {
  for (int rank = 0; rank <= 5; ++rank) {
    registry->AddKernel(
        absl::StrCat("tfrt_dht.create_uninitialized_tensor.", suffix, ".",
                     rank),
        BEF_KERNEL(CreateUninitialized<kDType>));
  }
  registry->AddKernel("tfrt_dht.fill_tensor_with_constant." + suffix,
                      BEF_KERNEL((FillTensorWithConstant<T, kDType>)));
  registry->AddKernel("tfrt_dht.set_tensor_with_constant_values." + suffix,
                      BEF_KERNEL((SetTensorWithConstantValues<T, kDType>)));
  registry->AddKernel("tfrt_dht.set_tensor_with_values." + suffix,
                      BEF_KERNEL((SetTensorWithValues<T, kDType>)));
  registry->AddKernel("tfrt_dht.make_tensor." + suffix,
                      BEF_KERNEL(MakeTensor<kDType>));
  if constexpr (kComparisons) {
  registry->AddKernel("tfrt_dht.tensor_allclose." + suffix,
                      BEF_KERNEL((TensorAllClose<T, kDType, 2>)));
  registry->AddKernel("tfrt_dht.tensor_allclose.3ulp." + suffix,
                      BEF_KERNEL((TensorAllClose<T, kDType, 3>)));
  registry->AddKernel("tfrt_dht.tensor_allclose.1000ulp." + suffix,
                      BEF_KERNEL((TensorAllClose<T, kDType, 1000>)));
  registry->AddKernel("tfrt_dht.tensor_allclose.2000ulp." + suffix,
                      BEF_KERNEL((TensorAllClose<T, kDType, 2000>)));
  registry->AddKernel("tfrt_dht.tensor_allclose.100000ulp." + suffix,
                      BEF_KERNEL((TensorAllClose<T, kDType, 100000>)));
  }
}

void RegisterDenseHostTensorKernels(KernelRegistry* registry) {
  RegisterForType<uint8_t, DType::kUI8>(registry, "ui8");
  RegisterForType<uint32_t, DType::kUI32>(registry, "ui32");
  RegisterForType<uint64_t, DType::kUI64>(registry, "ui64");
  RegisterForType<int8_t, DType::kI8>(registry, "i8");
  RegisterForType<int32_t, DType::kI32>(registry, "i32");
  RegisterForType<int64_t, DType::kI64>(registry, "i64");
  RegisterForType<bool, DType::kI1>(registry, "bool");
  RegisterForType<float, DType::kF32>(registry, "f32");
  RegisterForType<double, DType::kF64>(registry, "f64");
  RegisterForType<std::complex<float>, DType::kComplex64>(registry,
                                                          "complex64");
  RegisterForType<std::complex<double>, DType::kComplex128>(registry,
                                                            "complex128");
  RegisterForType<Half, DType::kF16, false>(registry, "f16");
  RegisterForType<BFloat16, DType::kBF16, false>(registry, "bf16");

  registry->AddKernel("tfrt_dht.allocate_buffer", BEF_KERNEL(AllocateBuffer));
  registry->AddKernel("tfrt_dht.get_buffer", BEF_KERNEL(GetBuffer));
  registry->AddKernel("tfrt_dht.get_buffer_slice", BEF_KERNEL(GetBufferSlice));
  registry->AddKernel("tfrt_dht.print_buffer", BEF_KERNEL(PrintBuffer));
  registry->AddKernel("tfrt_dht.get_tensor_shape", BEF_KERNEL(GetTensorShape));
  registry->AddKernel("tfrt_dht.no_op_ht", BEF_KERNEL(NoOpHostTensor));
}

}  // namespace

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterDenseHostTensorKernels, "tfrt_dht");

}  // namespace bef
