#include "bef/format/attribute_reader.h"

#include <bit>
#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bef/format/byte_reader.h"
#include "bef/format/format_error.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"

namespace bef {
namespace {

// Nested aggregates deeper than this are rejected (bounds the recursion).
constexpr int kMaxNesting = 64;

uint64_t LoadLittleEndian(const uint8_t* bytes, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i) value |= uint64_t{bytes[i]} << (8 * i);
  return value;
}

class Decoder {
 public:
  explicit Decoder(std::span<const uint8_t> pool) : pool_(pool) {}

  absl::StatusOr<DecodedAttribute> Decode(uint32_t offset, uint32_t type,
                                          int depth);

 private:
  absl::Status Error(uint32_t offset, std::string_view what) const {
    return FormatError("invalid attribute",
                       absl::StrCat("attribute at offset ", offset, ": ",
                                    ToAbsl(what)));
  }
  absl::Status Need(uint32_t offset, uint64_t size) const {
    if (uint64_t{offset} + size > pool_.size()) {
      return Error(offset, absl::StrCat("needs ", size, " bytes, the pool has ",
                                        pool_.size()));
    }
    return absl::OkStatus();
  }
  absl::Status Aligned(uint32_t offset, uint64_t alignment,
                       std::string_view what) const {
    if (alignment > 1 && offset % alignment != 0) {
      return Error(offset, absl::StrCat(ToAbsl(what), " is not ", alignment,
                                        "-byte aligned"));
    }
    return absl::OkStatus();
  }
  uint32_t Word(uint32_t offset) const {
    return LoadFixed32(pool_.data() + offset);
  }

  absl::Status DecodeScalar(DecodedAttribute& out);
  absl::Status DecodeString(DecodedAttribute& out);
  absl::Status DecodeArray(DecodedAttribute& out);
  // Reads the BefAttrBase header; returns false for the empty/unranked form
  // (a zero word).
  absl::StatusOr<bool> DecodeHeader(DecodedAttribute& out,
                                    uint16_t& prefix_size);
  absl::Status DecodeDense(DecodedAttribute& out);
  absl::Status DecodeShape(DecodedAttribute& out);
  absl::Status DecodeAggregate(DecodedAttribute& out, int depth);
  absl::Status DecodeSymbolRef(DecodedAttribute& out);

  std::span<const uint8_t> pool_;
};

absl::Status Decoder::DecodeScalar(DecodedAttribute& out) {
  size_t size = DTypeSize(out.dtype);
  if (size == 0) {
    return Error(out.offset, absl::StrCat("scalar of type ",
                                          ToAbsl(DTypeName(out.dtype)),
                                          " has no fixed size"));
  }
  BEF_RETURN_IF_ERROR(Aligned(out.offset, DTypeAlignment(out.dtype), "scalar"));
  BEF_RETURN_IF_ERROR(Need(out.offset, size));
  if (size > 8) {
    // Complex128: two 64-bit words.
    out.values = {LoadLittleEndian(pool_.data() + out.offset, 8),
                  LoadLittleEndian(pool_.data() + out.offset + 8, 8)};
  } else {
    out.values = {LoadLittleEndian(pool_.data() + out.offset, size)};
  }
  out.size = static_cast<uint32_t>(size);
  return absl::OkStatus();
}

absl::Status Decoder::DecodeString(DecodedAttribute& out) {
  BEF_RETURN_IF_ERROR(Aligned(out.offset, 4, "string length"));
  BEF_RETURN_IF_ERROR(Need(out.offset, 4));
  uint32_t length = Word(out.offset);
  BEF_RETURN_IF_ERROR(Need(out.offset, uint64_t{4} + length));
  out.text = std::string_view(
      reinterpret_cast<const char*>(pool_.data() + out.offset + 4), length);
  out.size = 4 + length;
  return absl::OkStatus();
}

absl::Status Decoder::DecodeArray(DecodedAttribute& out) {
  uint8_t element_type = ArrayElementType(out.type);
  bool type_array = element_type == static_cast<uint8_t>(AttributeType::kType);
  out.dtype = type_array ? DType::kInvalid : static_cast<DType>(element_type);
  size_t element_size = type_array ? 1 : DTypeSize(out.dtype);
  size_t element_alignment = type_array ? 1 : DTypeAlignment(out.dtype);
  if (element_size == 0) {
    // Resource and variant count as "fixed" types but have no size.
    return Error(out.offset, absl::StrCat("array elements of type ",
                                          int{element_type}, " have no fixed size"));
  }
  BEF_RETURN_IF_ERROR(Aligned(out.offset, 4, "array count"));
  BEF_RETURN_IF_ERROR(Need(out.offset, 4));
  uint32_t count = Word(out.offset);
  if (count == 0) {
    out.size = 4;
    return absl::OkStatus();
  }
  BEF_RETURN_IF_ERROR(
      Aligned(out.offset + 4, element_alignment, "array payload"));
  BEF_RETURN_IF_ERROR(Need(out.offset, 4 + uint64_t{count} * element_size));
  const uint8_t* elements = pool_.data() + out.offset + 4;
  out.values.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    size_t size = std::min<size_t>(element_size, 8);
    out.values.push_back(LoadLittleEndian(elements + i * element_size, size));
  }
  out.size = static_cast<uint32_t>(4 + count * element_size);
  return absl::OkStatus();
}

absl::StatusOr<bool> Decoder::DecodeHeader(DecodedAttribute& out,
                                           uint16_t& prefix_size) {
  BEF_RETURN_IF_ERROR(Aligned(out.offset, 4, "attribute header"));
  BEF_RETURN_IF_ERROR(Need(out.offset, 4));
  if (pool_[out.offset] == 0) {
    out.size = 4;
    return false;
  }
  BEF_RETURN_IF_ERROR(Need(out.offset, kAttributeBaseSize));
  uint8_t alignment = pool_[out.offset];
  if ((alignment & (alignment - 1)) != 0) {
    return Error(out.offset, absl::StrCat("header alignment ", int{alignment},
                                          " is not a power of two"));
  }
  out.dtype = static_cast<DType>(pool_[out.offset + 1]);
  prefix_size = static_cast<uint16_t>(pool_[out.offset + 2] |
                                      pool_[out.offset + 3] << 8);
  out.size = Word(out.offset + 4);
  BEF_RETURN_IF_ERROR(Need(out.offset, out.size));
  if (prefix_size > out.size) {
    return Error(out.offset, absl::StrCat("prefix size ", prefix_size,
                                          " exceeds byte size ", out.size));
  }
  BEF_RETURN_IF_ERROR(
      Aligned(out.offset + prefix_size, alignment, "attribute payload"));
  return true;
}

absl::Status Decoder::DecodeDense(DecodedAttribute& out) {
  uint16_t prefix_size = 0;
  BEF_ASSIGN_OR_RETURN(bool present, DecodeHeader(out, prefix_size));
  if (!present || out.size < kDenseAttributeFixedSize) {
    return Error(out.offset, "dense attribute header is truncated");
  }
  size_t element_size = DTypeSize(out.dtype);
  if (element_size == 0) {
    return Error(out.offset, absl::StrCat("dense element type ",
                                          static_cast<int>(out.dtype),
                                          " has no fixed size"));
  }
  uint32_t element_offset = Word(out.offset + 8);
  uint32_t count = Word(out.offset + 12);
  uint32_t rank = Word(out.offset + 16);
  if (uint64_t{kDenseAttributeFixedSize} + uint64_t{rank} * 8 > element_offset ||
      element_offset != prefix_size) {
    return Error(out.offset,
                 absl::StrCat("element offset ", element_offset,
                              " does not follow the ", rank, " dimensions"));
  }
  if (element_offset + uint64_t{count} * element_size != out.size) {
    return Error(out.offset,
                 absl::StrCat(count, " elements of ", element_size,
                              " bytes do not fill byte size ", out.size));
  }
  uint64_t product = 1;
  for (uint32_t i = 0; i < rank; ++i) {
    int64_t dim = static_cast<int64_t>(
        LoadLittleEndian(pool_.data() + out.offset + 20 + 8 * i, 8));
    if (dim < 0) return Error(out.offset, "dense dimension is negative");
    out.dims.push_back(dim);
    product = dim == 0 ? 0 : (product > UINT32_MAX ? product : product * dim);
  }
  if (product != count) {
    return Error(out.offset, absl::StrCat("element count ", count,
                                          " differs from the shape's ",
                                          product));
  }
  out.data = pool_.subspan(out.offset + element_offset,
                           uint64_t{count} * element_size);
  return absl::OkStatus();
}

absl::Status Decoder::DecodeShape(DecodedAttribute& out) {
  uint16_t prefix_size = 0;
  BEF_ASSIGN_OR_RETURN(bool ranked, DecodeHeader(out, prefix_size));
  out.ranked = ranked;
  if (!ranked) return absl::OkStatus();
  if (out.size < kShapeAttributeFixedSize) {
    return Error(out.offset, "shape attribute header is truncated");
  }
  uint32_t rank = Word(out.offset + 8);
  if (kShapeAttributeFixedSize + uint64_t{rank} * 8 != out.size) {
    return Error(out.offset, absl::StrCat("rank ", rank,
                                          " does not match byte size ",
                                          out.size));
  }
  for (uint32_t i = 0; i < rank; ++i) {
    out.dims.push_back(static_cast<int64_t>(
        LoadLittleEndian(pool_.data() + out.offset + 12 + 8 * i, 8)));
  }
  return absl::OkStatus();
}

absl::Status Decoder::DecodeAggregate(DecodedAttribute& out, int depth) {
  uint16_t prefix_size = 0;
  BEF_ASSIGN_OR_RETURN(bool present, DecodeHeader(out, prefix_size));
  if (!present) return absl::OkStatus();
  if (out.size < kAggregateAttributeFixedSize) {
    return Error(out.offset, "aggregate header is truncated");
  }
  uint32_t count = Word(out.offset + 8);
  uint64_t offsets_end = kAggregateAttributeFixedSize + uint64_t{count} * 4;
  if (offsets_end > out.size) {
    return Error(out.offset, absl::StrCat(count, " element offsets exceed byte size ",
                                          out.size));
  }
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t relative = Word(out.offset + 12 + 4 * i);
    if (relative <= offsets_end || relative >= out.size) {
      return Error(out.offset, absl::StrCat("element ", i, " offset ", relative,
                                            " is outside the aggregate"));
    }
    uint32_t element_offset = out.offset + relative;
    uint8_t element_type = pool_[element_offset - 1];
    BEF_ASSIGN_OR_RETURN(DecodedAttribute element,
                         Decode(element_offset, element_type, depth + 1));
    if (uint64_t{relative} + element.size > out.size) {
      return Error(out.offset, absl::StrCat("element ", i,
                                            " runs past the aggregate"));
    }
    out.elements.push_back(std::move(element));
  }
  return absl::OkStatus();
}

absl::Status Decoder::DecodeSymbolRef(DecodedAttribute& out) {
  ByteReader reader(pool_.subspan(out.offset), out.offset, "symbol reference");
  reader.set_error_summary("invalid attribute");
  BEF_ASSIGN_OR_RETURN(uint32_t id, reader.ReadVbr32());
  BEF_ASSIGN_OR_RETURN(uint32_t root_length, reader.ReadVbr32());
  BEF_ASSIGN_OR_RETURN(uint32_t nested_count, reader.ReadVbr32());
  if (nested_count > reader.remaining()) {
    return Error(out.offset, "nested symbol count exceeds the pool");
  }
  std::vector<uint32_t> nested_lengths;
  for (uint32_t i = 0; i < nested_count; ++i) {
    BEF_ASSIGN_OR_RETURN(uint32_t length, reader.ReadVbr32());
    nested_lengths.push_back(length);
  }
  BEF_ASSIGN_OR_RETURN(uint32_t module_length, reader.ReadVbr32());
  auto text = [&](uint32_t length) -> absl::StatusOr<std::string_view> {
    BEF_ASSIGN_OR_RETURN(auto bytes, reader.ReadBytes(length));
    return std::string_view(reinterpret_cast<const char*>(bytes.data()),
                            bytes.size());
  };
  out.values = {id};
  BEF_ASSIGN_OR_RETURN(out.text, text(root_length));
  for (uint32_t length : nested_lengths) {
    BEF_ASSIGN_OR_RETURN(std::string_view name, text(length));
    out.nested.push_back(name);
  }
  BEF_ASSIGN_OR_RETURN(out.module_text, text(module_length));
  BEF_ASSIGN_OR_RETURN(uint8_t terminator, reader.ReadByte());
  if (terminator != 0) {
    return Error(out.offset, "symbol reference is not NUL-terminated");
  }
  out.size = static_cast<uint32_t>(reader.position());
  return absl::OkStatus();
}

absl::StatusOr<DecodedAttribute> Decoder::Decode(uint32_t offset, uint32_t type,
                                                 int depth) {
  if (depth > kMaxNesting) {
    return Error(offset, absl::StrCat("aggregates nest deeper than ",
                                      kMaxNesting));
  }
  if (!IsValidAttributeType(type)) {
    return Error(offset, absl::StrCat("attribute type ", type, " is invalid"));
  }
  if (offset > pool_.size()) {
    return Error(offset, absl::StrCat("offset is outside the pool of ",
                                      pool_.size(), " bytes"));
  }
  DecodedAttribute out;
  out.type = static_cast<uint8_t>(type);
  out.offset = offset;
  if (IsArrayAttributeType(out.type)) {
    BEF_RETURN_IF_ERROR(DecodeArray(out));
    return out;
  }
  if (out.type == static_cast<uint8_t>(DType::kString)) {
    out.dtype = DType::kString;
    BEF_RETURN_IF_ERROR(DecodeString(out));
    return out;
  }
  if (IsDataAttributeType(out.type)) {
    out.dtype = static_cast<DType>(out.type);
    BEF_RETURN_IF_ERROR(DecodeScalar(out));
    return out;
  }
  switch (static_cast<AttributeType>(out.type)) {
    case AttributeType::kType:
      BEF_RETURN_IF_ERROR(Need(offset, 1));
      out.values = {pool_[offset]};
      out.dtype = static_cast<DType>(pool_[offset]);
      out.size = 1;
      break;
    case AttributeType::kDense:
      BEF_RETURN_IF_ERROR(DecodeDense(out));
      break;
    case AttributeType::kShape:
      BEF_RETURN_IF_ERROR(DecodeShape(out));
      break;
    case AttributeType::kAggregate:
      BEF_RETURN_IF_ERROR(DecodeAggregate(out, depth));
      break;
    case AttributeType::kSymbolRef:
      BEF_RETURN_IF_ERROR(DecodeSymbolRef(out));
      break;
    default:
      return Error(offset, absl::StrCat("attribute type ",
                                        ToAbsl(AttributeTypeName(type)),
                                        " has no known layout"));
  }
  return out;
}

std::string ScalarToString(DType dtype, uint64_t bits) {
  switch (dtype) {
    case DType::kI1:
      return bits ? "true" : "false";
    case DType::kI8:
      return absl::StrCat(static_cast<int8_t>(bits));
    case DType::kI16:
      return absl::StrCat(static_cast<int16_t>(bits));
    case DType::kI32:
      return absl::StrCat(static_cast<int32_t>(bits));
    case DType::kI64:
      return absl::StrCat(static_cast<int64_t>(bits));
    case DType::kF32:
      return absl::StrCat(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    case DType::kF64:
      return absl::StrCat(std::bit_cast<double>(bits));
    case DType::kF16:
    case DType::kBF16:
      return absl::StrCat("0x", absl::Hex(bits, absl::kZeroPad4));
    default:
      return absl::StrCat(bits);
  }
}

}  // namespace

std::string DecodedAttribute::ToString() const {
  if (IsArrayAttributeType(type)) {
    std::vector<std::string> parts;
    bool type_array =
        ArrayElementType(type) == static_cast<uint8_t>(AttributeType::kType);
    for (uint64_t bits : values) {
      parts.push_back(type_array
                          ? std::string(DTypeName(static_cast<DType>(bits)))
                          : ScalarToString(dtype, bits));
    }
    return absl::StrCat("[", absl::StrJoin(parts, ", "), "] : ",
                        ToAbsl(AttributeTypeName(type)));
  }
  if (type == static_cast<uint8_t>(DType::kString)) {
    return absl::StrCat("\"", absl::CHexEscape(ToAbsl(text)), "\"");
  }
  if (IsDataAttributeType(type)) {
    std::string value = values.size() == 2
                            ? absl::StrCat("(", values[0], ", ", values[1], ")")
                            : ScalarToString(dtype, values[0]);
    return absl::StrCat(value, " : ", ToAbsl(DTypeName(dtype)));
  }
  switch (static_cast<AttributeType>(type)) {
    case AttributeType::kType: {
      std::string_view name = DTypeName(dtype);
      return name.empty() ? absl::StrCat("type(", values[0], ")")
                          : std::string(name);
    }
    case AttributeType::kDense:
      return absl::StrCat("dense<", ToAbsl(DTypeName(dtype)), ">[",
                          absl::StrJoin(dims, ", "), "] (", data.size(),
                          " bytes)");
    case AttributeType::kShape: {
      if (!ranked) return "shape<*>";
      std::vector<std::string> parts;
      for (int64_t dim : dims) {
        parts.push_back(dim < 0 ? "?" : absl::StrCat(dim));
      }
      return absl::StrCat("shape<", absl::StrJoin(parts, "x"), ">");
    }
    case AttributeType::kAggregate: {
      std::vector<std::string> parts;
      for (const auto& element : elements) parts.push_back(element.ToString());
      return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
    }
    case AttributeType::kSymbolRef: {
      std::string name = absl::StrCat("@", ToAbsl(text));
      for (std::string_view nested_name : nested) {
        absl::StrAppend(&name, "::@", ToAbsl(nested_name));
      }
      return name;
    }
    default:
      return AttributeTypeName(type);
  }
}

absl::StatusOr<DecodedAttribute> DecodeAttribute(std::span<const uint8_t> pool,
                                                 uint32_t offset,
                                                 uint32_t type) {
  return Decoder(pool).Decode(offset, type, 0);
}

}  // namespace bef
