#include "bef/format/attribute_writer.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace bef {
namespace {

uint32_t Uint32(size_t value) { return static_cast<uint32_t>(value); }

void EmitLittleEndian(ByteWriter& pool, uint64_t bits, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    pool.EmitByte(static_cast<uint8_t>(bits >> (8 * i)));
  }
}

// Pads so that `base + prefix_size` is a multiple of `alignment`, then writes
// the 8-byte BefAttrBase header with a zero byte size; returns the base.
size_t EmitHeader(ByteWriter& pool, uint8_t alignment, DType dtype,
                  uint16_t prefix_size) {
  pool.EmitAlignment(alignment, prefix_size % alignment);
  size_t base = pool.size();
  pool.EmitByte(alignment);
  pool.EmitByte(static_cast<uint8_t>(dtype));
  pool.EmitFixed16(prefix_size);
  pool.EmitFixed32(0);  // byte size, patched by FinishHeader
  return base;
}

void FinishHeader(ByteWriter& pool, size_t base) {
  pool.OverwriteFixed32(base + 4, Uint32(pool.size() - base));
}

uint32_t EmitEmptyWord(ByteWriter& pool) {
  pool.EmitAlignment(4);
  uint32_t offset = Uint32(pool.size());
  pool.EmitFixed32(0);
  return offset;
}

}  // namespace

BefAttribute BefAttribute::Scalar(DType dtype, uint64_t bits) {
  BefAttribute attribute(Kind::kScalar, dtype);
  size_t size = DTypeSize(dtype);
  if (size < 8) bits &= (uint64_t{1} << (8 * size)) - 1;
  attribute.values_ = {bits};
  return attribute;
}

BefAttribute BefAttribute::F32(float value) {
  return Scalar(DType::kF32, std::bit_cast<uint32_t>(value));
}

BefAttribute BefAttribute::F64(double value) {
  return Scalar(DType::kF64, std::bit_cast<uint64_t>(value));
}

BefAttribute BefAttribute::String(std::string_view value) {
  BefAttribute attribute(Kind::kString, DType::kString);
  attribute.text_ = std::string(value);
  return attribute;
}

BefAttribute BefAttribute::Type(DType dtype) {
  BefAttribute attribute(Kind::kType, dtype);
  attribute.values_ = {static_cast<uint64_t>(dtype)};
  return attribute;
}

BefAttribute BefAttribute::Array(DType element_type,
                                 std::vector<uint64_t> elements) {
  BefAttribute attribute(Kind::kArray, element_type);
  size_t size = DTypeSize(element_type);
  for (uint64_t& bits : elements) {
    if (size < 8) bits &= (uint64_t{1} << (8 * size)) - 1;
  }
  attribute.values_ = std::move(elements);
  return attribute;
}

BefAttribute BefAttribute::I32Array(const std::vector<int32_t>& elements) {
  std::vector<uint64_t> bits;
  for (int32_t v : elements) bits.push_back(static_cast<uint32_t>(v));
  return Array(DType::kI32, std::move(bits));
}

BefAttribute BefAttribute::I64Array(const std::vector<int64_t>& elements) {
  std::vector<uint64_t> bits;
  for (int64_t v : elements) bits.push_back(static_cast<uint64_t>(v));
  return Array(DType::kI64, std::move(bits));
}

BefAttribute BefAttribute::F32Array(const std::vector<float>& elements) {
  std::vector<uint64_t> bits;
  for (float v : elements) bits.push_back(std::bit_cast<uint32_t>(v));
  return Array(DType::kF32, std::move(bits));
}

BefAttribute BefAttribute::TypeArray(const std::vector<DType>& elements) {
  BefAttribute attribute(Kind::kArray, DType::kInvalid);
  attribute.type_array_ = true;
  for (DType dtype : elements) {
    attribute.values_.push_back(static_cast<uint64_t>(dtype));
  }
  return attribute;
}

BefAttribute BefAttribute::Dense(DType element_type, std::vector<int64_t> shape,
                                 std::vector<uint8_t> data) {
  BefAttribute attribute(Kind::kDense, element_type);
  attribute.dims_ = std::move(shape);
  attribute.text_.assign(data.begin(), data.end());
  return attribute;
}

BefAttribute BefAttribute::Shape(std::vector<int64_t> dims) {
  BefAttribute attribute(Kind::kShape, DType::kInvalid);
  attribute.dims_ = std::move(dims);
  return attribute;
}

BefAttribute BefAttribute::UnrankedShape() {
  BefAttribute attribute(Kind::kShape, DType::kInvalid);
  attribute.ranked_ = false;
  return attribute;
}

BefAttribute BefAttribute::Aggregate(std::vector<BefAttribute> elements) {
  BefAttribute attribute(Kind::kAggregate, DType::kInvalid);
  attribute.elements_ = std::move(elements);
  return attribute;
}

BefAttribute BefAttribute::SymbolRef(uint32_t id, std::string root,
                                     std::vector<std::string> nested,
                                     std::string module_text) {
  BefAttribute attribute(Kind::kSymbolRef, DType::kInvalid);
  attribute.values_ = {id};
  attribute.text_ = std::move(root);
  attribute.nested_ = std::move(nested);
  attribute.module_text_ = std::move(module_text);
  return attribute;
}

uint8_t BefAttribute::type() const {
  switch (kind_) {
    case Kind::kScalar:
    case Kind::kString:
      return static_cast<uint8_t>(dtype_);
    case Kind::kType:
      return static_cast<uint8_t>(AttributeType::kType);
    case Kind::kArray:
      if (type_array_) {
        return ArrayAttributeType(static_cast<uint8_t>(AttributeType::kType));
      }
      if (values_.empty()) return static_cast<uint8_t>(AttributeType::kEmptyArray);
      return ArrayAttributeType(static_cast<uint8_t>(dtype_));
    case Kind::kDense:
      return static_cast<uint8_t>(AttributeType::kDense);
    case Kind::kShape:
      return static_cast<uint8_t>(AttributeType::kShape);
    case Kind::kAggregate:
      return static_cast<uint8_t>(AttributeType::kAggregate);
    case Kind::kSymbolRef:
      return static_cast<uint8_t>(AttributeType::kSymbolRef);
  }
  return 0;
}

uint32_t BefAttribute::AlignmentInAggregate() const {
  switch (kind_) {
    case Kind::kScalar:
      // Bit width / 8: an i1 counts as 0.
      return dtype_ == DType::kI1 ? 0 : Uint32(DTypeSize(dtype_));
    case Kind::kString:
      return 4;
    case Kind::kType:
    case Kind::kSymbolRef:
      return 1;
    case Kind::kShape:
      return ranked_ ? 8 : 1;
    case Kind::kDense:
      return 8;
    case Kind::kArray:
      return std::max<uint32_t>(
          8, type_array_ ? 1 : Uint32(DTypeAlignment(dtype_)));
    case Kind::kAggregate: {
      uint32_t alignment = 8;
      for (const BefAttribute& element : elements_) {
        alignment = std::max(alignment, element.AlignmentInAggregate());
      }
      return alignment;
    }
  }
  return 1;
}

void BefAttribute::AppendKey(std::string& key) const {
  absl::StrAppend(&key, "(", static_cast<int>(type()), ":",
                  static_cast<int>(dtype_), ":", ranked_ ? 1 : 0);
  for (uint64_t value : values_) absl::StrAppend(&key, ",", value);
  absl::StrAppend(&key, "|", text_.size(), ":", text_, "|");
  for (int64_t dim : dims_) absl::StrAppend(&key, dim, ",");
  for (const std::string& name : nested_) {
    absl::StrAppend(&key, name.size(), ":", name);
  }
  absl::StrAppend(&key, "|", module_text_.size(), ":", module_text_);
  for (const BefAttribute& element : elements_) element.AppendKey(key);
  key += ")";
}

std::string BefAttribute::Key() const {
  std::string key;
  AppendKey(key);
  return key;
}

uint32_t EmitAttribute(ByteWriter& pool, const BefAttribute& attribute) {
  using Kind = BefAttribute::Kind;
  switch (attribute.kind()) {
    case Kind::kScalar: {
      size_t size = DTypeSize(attribute.dtype());
      pool.EmitAlignment(Uint32(DTypeAlignment(attribute.dtype())));
      uint32_t offset = Uint32(pool.size());
      EmitLittleEndian(pool, attribute.values()[0], size);
      return offset;
    }
    case Kind::kType: {
      uint32_t offset = Uint32(pool.size());
      pool.EmitByte(static_cast<uint8_t>(attribute.values()[0]));
      return offset;
    }
    case Kind::kString: {
      pool.EmitAlignment(4);
      uint32_t offset = Uint32(pool.size());
      pool.EmitFixed32(Uint32(attribute.text().size()));
      pool.EmitString(attribute.text());
      return offset;
    }
    case Kind::kArray: {
      bool type_array = attribute.type() ==
                        ArrayAttributeType(static_cast<uint8_t>(AttributeType::kType));
      size_t element_size = type_array ? 1 : DTypeSize(attribute.dtype());
      size_t element_alignment =
          type_array ? 1 : DTypeAlignment(attribute.dtype());
      if (attribute.values().empty()) return EmitEmptyWord(pool);
      if (element_alignment == 8) {
        pool.EmitAlignment(8, 4);  // count at 4 mod 8, elements 8-aligned
      } else {
        pool.EmitAlignment(4);
      }
      uint32_t offset = Uint32(pool.size());
      pool.EmitFixed32(Uint32(attribute.values().size()));
      for (uint64_t bits : attribute.values()) {
        EmitLittleEndian(pool, bits, element_size);
      }
      return offset;
    }
    case Kind::kDense: {
      const auto& shape = attribute.dims();
      uint16_t element_offset =
          static_cast<uint16_t>(kDenseAttributeFixedSize + 8 * shape.size());
      size_t base = EmitHeader(pool, kAttributeTensorAlignment,
                               attribute.dtype(), element_offset);
      uint64_t count = 1;
      for (int64_t dim : shape) count *= static_cast<uint64_t>(dim);
      pool.EmitFixed32(element_offset);
      pool.EmitFixed32(Uint32(count));
      pool.EmitFixed32(Uint32(shape.size()));
      for (int64_t dim : shape) pool.EmitFixed64(static_cast<uint64_t>(dim));
      pool.EmitString(attribute.text());
      FinishHeader(pool, base);
      return Uint32(base);
    }
    case Kind::kShape: {
      if (!attribute.ranked()) return EmitEmptyWord(pool);
      const auto& dims = attribute.dims();
      size_t base = EmitHeader(pool, 8, DType::kInvalid,
                               kShapeAttributeFixedSize);
      pool.EmitFixed32(Uint32(dims.size()));
      for (int64_t dim : dims) pool.EmitFixed64(static_cast<uint64_t>(dim));
      FinishHeader(pool, base);
      return Uint32(base);
    }
    case Kind::kAggregate: {
      const auto& elements = attribute.elements();
      if (elements.empty()) return EmitEmptyWord(pool);
      uint32_t alignment = 4;
      for (const BefAttribute& element : elements) {
        alignment = std::max(alignment, element.AlignmentInAggregate());
      }
      uint16_t prefix_size = static_cast<uint16_t>(
          kAggregateAttributeFixedSize + 4 * elements.size());
      size_t base = EmitHeader(pool, static_cast<uint8_t>(alignment),
                               DType::kInvalid, prefix_size);
      pool.EmitFixed32(Uint32(elements.size()));
      size_t offsets_position = pool.size();
      pool.EmitRepeatedByte(0, 4 * elements.size());
      for (size_t i = 0; i < elements.size(); ++i) {
        // One reserved byte that ends up right before the element (after
        // the element's own padding) and holds its attribute type.
        pool.EmitByte(kPaddingByte);
        uint32_t element_start = EmitAttribute(pool, elements[i]);
        pool.OverwriteByte(element_start - 1, elements[i].type());
        pool.OverwriteFixed32(offsets_position + 4 * i,
                              Uint32(element_start - base));
      }
      FinishHeader(pool, base);
      return Uint32(base);
    }
    case Kind::kSymbolRef: {
      uint32_t offset = Uint32(pool.size());
      pool.EmitVbr(attribute.values()[0]);
      pool.EmitVbr(attribute.text().size());
      pool.EmitVbr(attribute.nested().size());
      for (const std::string& name : attribute.nested()) pool.EmitVbr(name.size());
      pool.EmitVbr(attribute.module_text().size());
      pool.EmitString(attribute.text());
      for (const std::string& name : attribute.nested()) pool.EmitString(name);
      pool.EmitString(attribute.module_text());
      pool.EmitByte(0);
      return offset;
    }
  }
  return 0;
}

}  // namespace bef
