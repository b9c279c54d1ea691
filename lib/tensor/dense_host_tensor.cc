#include "bef/tensor/dense_host_tensor.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "bef/support/string_view.h"

namespace bef {

int64_t TensorShape::CountElements(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t dim : dims) {
    if (__builtin_mul_overflow(count, dim, &count)) {
      return std::numeric_limits<int64_t>::max();
    }
  }
  return count;
}

std::string TensorShape::ToString() const {
  std::string text = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    absl::StrAppend(&text, i ? ", " : "", dims_[i]);
  }
  return text + "]";
}

static_assert(sizeof(HostBuffer) <= HostBuffer::kHeaderSize,
              "the header of an owned buffer holds the HostBuffer");

RCReference<HostBuffer> HostBuffer::Allocate(HostAllocator* allocator,
                                             size_t size, size_t alignment) {
  assert(alignment != 0 && (alignment & (alignment - 1)) == 0);
  // TFRT's block sizes: the data right after the header when the header
  // keeps it aligned, else room for aligning it.
  size_t block_size;
  if (__builtin_add_overflow(kHeaderSize, size, &block_size)) return nullptr;
  if (alignment > 16 &&
      __builtin_add_overflow(block_size, alignment, &block_size)) {
    return nullptr;
  }
  void* block = allocator->AllocateBytes(block_size, kHeaderSize);
  if (block == nullptr) return nullptr;
  uintptr_t data = reinterpret_cast<uintptr_t>(block) + kHeaderSize;
  data = (data + alignment - 1) & ~(uintptr_t{alignment} - 1);
  auto* buffer = new (block) HostBuffer(Kind::kOwned, reinterpret_cast<void*>(data),
                                        size, /*read_only=*/false);
  buffer->allocator_ = allocator;
  buffer->block_size_ = block_size;
  return TakeRef(buffer);
}

RCReference<HostBuffer> HostBuffer::Slice(RCReference<HostBuffer> parent,
                                          size_t offset, size_t size) {
  void* data = static_cast<char*>(parent->data()) + offset;
  auto* buffer = new HostBuffer(Kind::kSlice, data, size, parent->read_only());
  buffer->parent_ = std::move(parent);
  return TakeRef(buffer);
}

RCReference<HostBuffer> HostBuffer::View(const void* data, size_t size,
                                         std::shared_ptr<const void> owner, bool constant) {
  auto* buffer = new HostBuffer(Kind::kView, const_cast<void*>(data), size,
                                /*read_only=*/true);
  buffer->owner_ = std::move(owner);
  buffer->constant_ = constant;
  return TakeRef(buffer);
}

void HostBuffer::Destroy() {
  if (kind_ != Kind::kOwned) {
    delete this;
    return;
  }
  HostAllocator* allocator = allocator_;
  size_t block_size = block_size_;
  this->~HostBuffer();
  allocator->DeallocateBytes(this, block_size);
}

absl::StatusOr<DenseHostTensor> DenseHostTensor::FromDenseAttribute(
    DenseAttributeView attribute, std::shared_ptr<const void> owner,
    HostAllocator* allocator) {
  TensorShape shape(attribute.shape());
  DType dtype = attribute.dtype();
  size_t size;
  bool representable = !__builtin_mul_overflow(
      DTypeSize(dtype),
      static_cast<size_t>(std::max<int64_t>(shape.NumElements(), 0)), &size);
  bool aligned = reinterpret_cast<uintptr_t>(attribute.data()) % 8 == 0;
  if (owner != nullptr && representable && aligned &&
      attribute.data_size() >= size) {
    return DenseHostTensor(dtype, std::move(shape),
                           HostBuffer::View(attribute.data(), size, std::move(owner),
                                            /*constant=*/true));
  }
  RCReference<HostBuffer> buffer = AllocateBuffer(allocator, dtype, shape);
  if (!buffer) return absl::InternalError("Cannot allocate tensor");
  std::memcpy(buffer->data(), attribute.data(),
              std::min(buffer->size(), attribute.data_size()));
  return DenseHostTensor(dtype, std::move(shape), std::move(buffer));
}

absl::Status DenseHostTensor::DTypeMismatch(DType expected, std::string_view kernel) const {
  auto name = [](DType dtype) {
    std::string_view text = DTypeName(dtype);
    return text.empty() ? std::string("invalid (") + std::to_string(static_cast<int>(dtype)) + ")"
                        : std::string(text);
  };
  return absl::InvalidArgumentError(absl::StrCat(ToAbsl(kernel), ": the tensor's dtype is ", name(dtype_),
                                                 ", the kernel takes ", name(expected)));
}

absl::Status DenseHostTensor::CopyOnWrite(HostAllocator* allocator) {
  RCReference<HostBuffer> copy = AllocateBuffer(allocator, dtype_, shape_);
  if (!copy) return absl::InternalError("Cannot allocate tensor");
  std::memcpy(copy->data(), buffer_->data(),
              std::min(copy->size(), buffer_->size()));
  buffer_ = std::move(copy);
  return absl::OkStatus();
}

absl::StatusOr<size_t> DenseHostTensor::DataSizeOf(DType dtype, std::span<const int64_t> dims) {
  uint64_t count = 1;
  for (int64_t dim : dims) {
    if (dim < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("the shape ", TensorShape(dims).ToString(), " has a negative dimension"));
    }
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(dim), &count) ||
        count > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the shape ", TensorShape(dims).ToString(), " has more elements than 2^63"));
    }
  }
  size_t bytes;
  if (__builtin_mul_overflow(count, DTypeSize(dtype), &bytes)) {
    return absl::InvalidArgumentError(absl::StrCat("the shape ", TensorShape(dims).ToString(),
                                                   " of ", ToAbsl(DTypeName(dtype)),
                                                   " elements needs more than 2^64 bytes"));
  }
  return bytes;
}

absl::StatusOr<size_t> DenseHostTensor::DataSizeOf(DType dtype, const TensorShape& shape) {
  return DataSizeOf(dtype, std::span<const int64_t>(shape.dims()));
}

bool DenseHostTensor::BufferHoldsShape() const {
  for (int64_t dim : shape_.dims()) {
    if (dim < 0) return true;  // no elements
  }
  absl::StatusOr<size_t> bytes = DataSizeOf(dtype_, shape_);
  return bytes.ok() && (!buffer_ || buffer_->size() >= *bytes);
}

RCReference<HostBuffer> DenseHostTensor::AllocateBuffer(
    HostAllocator* allocator, DType dtype, const TensorShape& shape) {
  int64_t count = std::max<int64_t>(shape.NumElements(), 0);
  size_t size;
  if (__builtin_mul_overflow(static_cast<size_t>(count), DTypeSize(dtype),
                             &size)) {
    return nullptr;  // more bytes than memory can hold
  }
  size_t alignment = std::max<size_t>(16, DTypeAlignment(dtype));
  return HostBuffer::Allocate(allocator, size, alignment);
}

std::string FormatDouble(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "INF" : "-INF";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.6e", value);
  return buffer;
}

namespace {

template <typename T>
T Load(const void* element) {
  T value;
  std::memcpy(&value, element, sizeof(T));
  return value;
}

}  // namespace

std::string FormatElement(DType dtype, const void* element) {
  switch (dtype) {
    case DType::kUI8:
      return absl::StrCat(Load<uint8_t>(element));
    case DType::kUI16:
      return absl::StrCat(Load<uint16_t>(element));
    case DType::kUI32:
      return absl::StrCat(Load<uint32_t>(element));
    case DType::kUI64:
      return absl::StrCat(Load<uint64_t>(element));
    case DType::kI1:
      return Load<uint8_t>(element) != 0 ? "1" : "0";
    case DType::kI8:
      return absl::StrCat(Load<int8_t>(element));
    case DType::kI16:
      return absl::StrCat(Load<int16_t>(element));
    case DType::kI32:
      return absl::StrCat(Load<int32_t>(element));
    case DType::kI64:
      return absl::StrCat(Load<int64_t>(element));
    case DType::kF32:
      return FormatDouble(Load<float>(element));
    case DType::kF64:
      return FormatDouble(Load<double>(element));
    case DType::kComplex64: {
      auto value = Load<std::complex<float>>(element);
      return absl::StrCat("(", FormatDouble(value.real()), ",",
                          FormatDouble(value.imag()), ")");
    }
    case DType::kComplex128: {
      auto value = Load<std::complex<double>>(element);
      return absl::StrCat("(", FormatDouble(value.real()), ",",
                          FormatDouble(value.imag()), ")");
    }
    case DType::kF16:
      return absl::StrCat("fp16(", Load<uint16_t>(element), ")");
    case DType::kBF16:
      return absl::StrCat("bf16(", Load<uint16_t>(element), ")");
    case DType::kQUI8:
      return absl::StrCat("qu8(", Load<uint8_t>(element), ")");
    case DType::kQUI16:
      return absl::StrCat("qu16(", Load<uint16_t>(element), ")");
    case DType::kQI8:
      return absl::StrCat("qi8(", Load<int8_t>(element), ")");
    case DType::kQI16:
      return absl::StrCat("qi16(", Load<int16_t>(element), ")");
    case DType::kQI32:
      return absl::StrCat("qi32(", Load<int32_t>(element), ")");
    default:
      return "<unsupported>";
  }
}

std::string DenseHostTensor::ToString() const {
  constexpr int64_t kMaxPrinted = 16;
  std::string text =
      absl::StrCat("DenseHostTensor dtype = ", ToAbsl(DTypeName(dtype_)),
                   ", shape = ", shape_.ToString(), ", values = [");
  int64_t count = std::max<int64_t>(NumElements(), 0);
  size_t size = DTypeSize(dtype_);
  const char* bytes = static_cast<const char*>(data());
  for (int64_t i = 0; i < std::min(count, kMaxPrinted) && size != 0; ++i) {
    absl::StrAppend(&text, i ? ", " : "",
                    FormatElement(dtype_, bytes + i * size));
  }
  if (count > kMaxPrinted) text += ", ... ";
  return text + "]";
}

}  // namespace bef
