// Host tensors, part 1: shapes, host buffers and dense host tensors
// (../shared/spec/host-tensors.md §3.1, §4.1, §4.5).
//
// A DenseHostTensor is metadata (dtype, shape) plus a reference-counted
// HostBuffer holding the elements contiguously in row-major order. Tensors
// are shared, never copied: a tensor passed to several kernels is the same
// object, and kernels that write a tensor write its buffer in place. Several
// tensors may view one buffer (a tensor made from a buffer or a slice).
//
// Buffers come from the HostAllocator, header and data in one block (so the
// allocator and the leak check see a tensor's whole cost), the data aligned
// to max(16, element alignment); a slice keeps its parent alive and shares
// its memory.
#ifndef BEF_TENSOR_DENSE_HOST_TENSOR_H_
#define BEF_TENSOR_DENSE_HOST_TENSOR_H_

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bef/support/operand_type_name.h"

#include "bef/format/bef_encoding.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bef/async/rc_reference.h"
#include "bef/format/attribute_view.h"
#include "bef/host/host_allocator.h"
#include "bef/support/debug_check.h"

namespace bef {

// `!ts.shape`: a rank and signed 64-bit dimensions (any value, including 0
// and negative ones).
class TensorShape {
 public:
  TensorShape() = default;
  explicit TensorShape(std::vector<int64_t> dims)
      : dims_(std::move(dims)), num_elements_(CountElements(dims_)) {}
  TensorShape(std::span<const int64_t> dims)
      : dims_(dims.begin(), dims.end()), num_elements_(CountElements(dims_)) {}
  TensorShape(const TensorShape&) = default;
  TensorShape& operator=(const TensorShape&) = default;
  // A moved-from shape is the scalar shape (rank 0, one element): its count
  // stays true to its dimensions.
  TensorShape(TensorShape&& other) noexcept
      : dims_(std::move(other.dims_)), num_elements_(other.num_elements_) {
    other.dims_.clear();
    other.num_elements_ = 1;
  }
  TensorShape& operator=(TensorShape&& other) noexcept {
    dims_ = std::move(other.dims_);
    num_elements_ = other.num_elements_;
    other.dims_.clear();
    other.num_elements_ = 1;
    return *this;
  }

  size_t rank() const { return dims_.size(); }
  const std::vector<int64_t>& dims() const { return dims_; }
  // Product of the dimensions (1 for rank 0; negative or zero dimensions
  // make it negative or zero); saturates at INT64_MAX on overflow. Counted
  // once, when the shape is made (every tensor kernel asks).
  int64_t NumElements() const { return num_elements_; }
  // `[2, 3]`, `[]`.
  std::string ToString() const;

  friend bool operator==(const TensorShape& a, const TensorShape& b) {
    if (a.num_elements_ != b.num_elements_ || a.dims_.size() != b.dims_.size()) return false;
    for (size_t i = 0; i < a.dims_.size(); ++i) {  // ranks are small: no memcmp call
      if (a.dims_[i] != b.dims_[i]) return false;
    }
    return true;
  }

 private:
  static int64_t CountElements(const std::vector<int64_t>& dims);

  std::vector<int64_t> dims_;
  int64_t num_elements_ = 1;
};

// `!ht.host_buffer`: an intrusively reference-counted byte range, of one of
// three kinds:
//   owned   allocated from a HostAllocator as ONE block: the HostBuffer
//           itself in the first kHeaderSize bytes, the data after it (as
//           TFRT lays it out), so the allocator and the leak check see a
//           buffer's whole cost in one allocation;
//   slice   a range of a parent buffer, sharing its memory (holds the parent);
//   view    read-only memory kept alive by an owner reference (a dense
//           attribute in a mapped BEF image, an embedder's array).
// Slices of a read-only buffer are read-only.
//
// Owned-block sizes, as TFRT's (what --host_allocator_type=test_fixed_size_1k
// logs): alignment <= 16: kHeaderSize + size; larger alignments:
// kHeaderSize + size + alignment (room to align the data). The block itself
// is 64-byte aligned, so the data of every owned buffer is too when the
// requested alignment is at most 64.
class HostBuffer {
 public:
  static constexpr size_t kHeaderSize = 64;

  // Null when the allocator refuses. REQUIRES: alignment is a power of two.
  static RCReference<HostBuffer> Allocate(HostAllocator* allocator, size_t size,
                                          size_t alignment);
  // Bytes [offset, offset + size) of `parent`, sharing its memory. Like
  // TFRT, no range check: reading outside the parent is undefined.
  static RCReference<HostBuffer> Slice(RCReference<HostBuffer> parent,
                                       size_t offset, size_t size);
  // A read-only view of `size` bytes at `data`, which stay valid while
  // `owner` lives; the view holds `owner`. `constant`: the bytes also never
  // change while `owner` lives (a dense attribute in a BEF image the
  // runtime mapped or copied; not an embedder's array, which its owner may
  // write between runs).
  static RCReference<HostBuffer> View(const void* data, size_t size,
                                      std::shared_ptr<const void> owner,
                                      bool constant = false);

  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  // REQUIRES for writing through it: !read_only().
  void* data() const { return data_; }
  size_t size() const { return size_; }
  bool read_only() const { return read_only_; }
  // For a constant view (or a slice of one): the owner whose life keeps the
  // bytes valid and unchanged. Something derived from the bytes once (a
  // convolution filter reordered for a library) may be kept under the data
  // pointer while a std::weak_ptr of this owner has not expired: the same
  // pointer then means the same bytes. Null for every other buffer.
  const std::shared_ptr<const void>* constant_owner() const {
    if (kind_ == Kind::kView) return constant_ ? &owner_ : nullptr;
    if (kind_ == Kind::kSlice) return parent_->constant_owner();
    return nullptr;
  }

  // ---- Reference counting (RCReference<HostBuffer>).
  void AddRef() { ref_count_.fetch_add(1, std::memory_order_relaxed); }
  void DropRef() {
    if (ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) Destroy();
  }
  uint32_t NumRef() const { return ref_count_.load(std::memory_order_acquire); }

 private:
  enum class Kind : uint8_t { kOwned, kSlice, kView };

  HostBuffer(Kind kind, void* data, size_t size, bool read_only)
      : kind_(kind), read_only_(read_only), data_(data), size_(size) {}
  ~HostBuffer() = default;
  void Destroy();

  std::atomic<uint32_t> ref_count_{1};
  Kind kind_;
  bool read_only_;
  bool constant_ = false;  // view: View's `constant`
  void* data_;
  size_t size_;
  HostAllocator* allocator_ = nullptr;  // owned: where the block came from
  size_t block_size_ = 0;               // owned: header + data (+ padding)
  RCReference<HostBuffer> parent_;      // slice
  std::shared_ptr<const void> owner_;   // view
};

class DenseHostTensor {
 public:
  // REQUIRES (a debug check): the shape's bytes are counted without
  // overflow (DataSizeOf; a shape with a negative dimension, which TFRT's
  // kernels allow, has none) and a buffer holds at least that many bytes. A
  // tensor whose shape claims more elements than its buffer holds is
  // never made: every boundary that builds one from outside bytes (the
  // serving front ends, the Python package, make_tensor) checks DataSizeOf
  // first and refuses with its error.
  DenseHostTensor(DType dtype, TensorShape shape,
                  RCReference<HostBuffer> buffer)
      : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)) {
    BEF_DEBUG_CHECK(BufferHoldsShape(),
                    "a dense host tensor's shape claims more bytes than its buffer holds");
  }

  // The one rule of how many bytes the elements of a `dtype` tensor of
  // `shape` take: element count x element size, computed with overflow
  // checks. InvalidArgument for a negative dimension, or a count or byte
  // size past what a 64-bit size holds ("the shape [4611686018427387905]
  // of i32 elements needs more than 2^64 bytes").
  static absl::StatusOr<size_t> DataSizeOf(DType dtype, const TensorShape& shape);
  static absl::StatusOr<size_t> DataSizeOf(DType dtype, std::span<const int64_t> dims);

  // The tensor of a dense attribute. When `owner` keeps the attribute's
  // bytes alive (see KernelBinding) and the elements are complete and
  // 8-aligned, the tensor views them in place, read-only, without a copy
  // (MakeWritable copies on first write); otherwise the elements are copied
  // into a buffer from `allocator`. Error: `Cannot allocate tensor`.
  static absl::StatusOr<DenseHostTensor> FromDenseAttribute(
      DenseAttributeView attribute, std::shared_ptr<const void> owner,
      HostAllocator* allocator);

  // A tensor with a fresh, uninitialized buffer; null buffer on failure.
  // The data of a tensor of `dtype` and `shape`: one owned block of
  // HostBuffer::kHeaderSize + the elements, aligned to
  // max(16, the element alignment) (TFRT's kTensorBufferAlignment).
  static RCReference<HostBuffer> AllocateBuffer(HostAllocator* allocator,
                                                DType dtype,
                                                const TensorShape& shape);

  DType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int64_t NumElements() const { return shape_.NumElements(); }
  const RCReference<HostBuffer>& buffer() const { return buffer_; }

  // The elements, for reading.
  const void* data() const { return buffer_ ? buffer_->data() : nullptr; }
  // The elements, for writing. REQUIRES: !read_only() (true of every tensor
  // on a buffer from AllocateBuffer).
  void* writable_data() const {
    assert(!read_only());
    return buffer_ ? buffer_->data() : nullptr;
  }
  // A tensor built from a dense attribute views the BEF image read-only
  // (no copy). Before its first write (or before its buffer is handed out,
  // which could lead to a write), MakeWritable gives it a private copy of
  // its elements: copy-on-write. The tensor object is what kernels share,
  // so every holder sees the new buffer; buffers handed out earlier keep
  // the old contents. Fails only when the copy cannot be allocated. Like
  // every write, it must not race with other uses of the tensor (programs
  // order writes with chains).
  bool read_only() const { return buffer_ && buffer_->read_only(); }
  absl::Status MakeWritable(HostAllocator* allocator) {
    if (!read_only()) [[likely]] return absl::OkStatus();  // every write but a first one
    return CopyOnWrite(allocator);
  }
  // The elements' bytes (0 for a shape with a negative dimension).
  size_t DataSize() const {
    return static_cast<size_t>(std::max<int64_t>(NumElements(), 0)) * DTypeSize(dtype_);
  }

  // `DenseHostTensor dtype = i32, shape = [2], values = [1, 2]`: at most 16
  // elements, then `, ... `.
  std::string ToString() const;

  // What a kernel that reads or writes the elements as one type (a `.f32`
  // kernel) checks first: OK when the tensor's dtype is `expected`, else
  // InvalidArgument "KERNEL: the tensor's dtype is f64, the kernel takes
  // f32". One compare; TFRT reinterprets the bytes instead (a float64 NumPy
  // array into a `.f32` kernel, an i32 tensor filled with a float's bits).
  absl::Status CheckDType(DType expected, std::string_view kernel) const {
    if (dtype_ == expected) [[likely]] return absl::OkStatus();
    return DTypeMismatch(expected, kernel);
  }

 private:
  absl::Status DTypeMismatch(DType expected, std::string_view kernel) const;
  // MakeWritable's copy.
  absl::Status CopyOnWrite(HostAllocator* allocator);
  // The constructor's debug check.
  bool BufferHoldsShape() const;

  DType dtype_;
  TensorShape shape_;
  RCReference<HostBuffer> buffer_;
};

// One element as TFRT prints it: integers in decimal, i1 as 1/0, floats as
// `%e` (NaN `nan`, infinities `INF`/`-INF`), complex `(re,im)`, f16
// `fp16(bits)`, bf16 `bf16(bits)`, quantized `qi8(n)`.
std::string FormatElement(DType dtype, const void* element);

// LLVM's stream formatting of a double: `%e`, NaN `nan`, +/-inf `INF`/`-INF`.
std::string FormatDouble(double value);

// The BEF type of a dense host tensor in function signatures (the host
// dialect's spelling; a kernel-only op may write another, which the
// executor treats as just a name: ../shared/spec/host-tensors.md).
inline constexpr std::string_view kDenseHostTensorTypeName = "!tfrt_tensor.tensor";

// Kernels' operand-type errors name it by its BEF type.
template <>
struct OperandTypeName<DenseHostTensor> {
  static constexpr std::string_view value = kDenseHostTensorTypeName;
};

}  // namespace bef

#endif  // BEF_TENSOR_DENSE_HOST_TENSOR_H_
