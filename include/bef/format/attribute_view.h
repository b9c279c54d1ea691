// Unchecked views of attributes in a loaded BEF image, for kernels.
//
// A kernel receives a pointer to the start of each of its attributes (see
// attribute_writer.h for the layouts). These views read the layouts in place
// without copying and without bounds checks: the loader has verified every
// attribute a kernel names (DecodeAttribute) before any kernel runs, and the
// image is 8-aligned, so every field is naturally aligned.
#ifndef BEF_FORMAT_ATTRIBUTE_VIEW_H_
#define BEF_FORMAT_ATTRIBUTE_VIEW_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "bef/format/bef_encoding.h"

namespace bef {

static_assert(std::endian::native == std::endian::little,
              "BEF attributes are read in place: little-endian hosts only");

namespace internal {
inline uint32_t LoadWord(const uint8_t* bytes) {
  uint32_t value;
  std::memcpy(&value, bytes, 4);
  return value;
}
}  // namespace internal

// A scalar of type T (T's size and alignment match the attribute's).
template <typename T>
T LoadScalarAttribute(const uint8_t* attribute) {
  T value;
  std::memcpy(&value, attribute, sizeof(T));
  return value;
}

// uint32 length + bytes.
inline std::string_view StringAttributeView(const uint8_t* attribute) {
  return std::string_view(reinterpret_cast<const char*>(attribute + 4),
                          internal::LoadWord(attribute));
}

// uint32 count + packed elements (T matches the element type).
template <typename T>
std::span<const T> ArrayAttributeView(const uint8_t* attribute) {
  return std::span<const T>(reinterpret_cast<const T*>(attribute + 4),
                            internal::LoadWord(attribute));
}

// Dense elements: header, element offset/count/rank, dims, data.
class DenseAttributeView {
 public:
  explicit DenseAttributeView(const uint8_t* attribute) : base_(attribute) {}

  DType dtype() const { return static_cast<DType>(base_[1]); }
  uint32_t rank() const { return internal::LoadWord(base_ + 16); }
  uint32_t num_elements() const { return internal::LoadWord(base_ + 12); }
  std::span<const int64_t> shape() const {
    return std::span<const int64_t>(reinterpret_cast<const int64_t*>(base_ + 20),
                                    rank());
  }
  const void* data() const { return base_ + internal::LoadWord(base_ + 8); }
  size_t data_size() const {
    return internal::LoadWord(base_ + 4) - internal::LoadWord(base_ + 8);
  }

 private:
  const uint8_t* base_;
};

// Ranked shape (header, rank, dims) or unranked (a zero word).
class ShapeAttributeView {
 public:
  explicit ShapeAttributeView(const uint8_t* attribute) : base_(attribute) {}

  bool ranked() const { return base_[0] != 0; }
  uint32_t rank() const { return ranked() ? internal::LoadWord(base_ + 8) : 0; }
  std::span<const int64_t> dims() const {
    return std::span<const int64_t>(reinterpret_cast<const int64_t*>(base_ + 12),
                                    rank());
  }

 private:
  const uint8_t* base_;
};

// Heterogeneous array: header, count, base-relative offsets; each element is
// preceded by its attribute type byte. Empty: a zero word.
class AggregateAttributeView {
 public:
  explicit AggregateAttributeView(const uint8_t* attribute) : base_(attribute) {}

  uint32_t size() const {
    return base_[0] == 0 ? 0 : internal::LoadWord(base_ + 8);
  }
  const uint8_t* element(uint32_t i) const {
    return base_ + internal::LoadWord(base_ + 12 + 4 * i);
  }
  uint8_t element_type(uint32_t i) const { return element(i)[-1]; }

 private:
  const uint8_t* base_;
};

}  // namespace bef

#endif  // BEF_FORMAT_ATTRIBUTE_VIEW_H_
