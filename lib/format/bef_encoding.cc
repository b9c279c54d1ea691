#include "bef/format/bef_encoding.h"

#include <array>
#include <string>

namespace bef {
namespace {

struct DTypeInfo {
  std::string_view name;
  uint8_t size;
  uint8_t alignment;
};

constexpr std::array<DTypeInfo, kNumDTypes> kDTypeInfo = {{
    {"", 0, 0},               // Invalid
    {"u8", 1, 1},             // UI8
    {"u16", 2, 2},            // UI16
    {"u32", 4, 4},            // UI32
    {"u64", 8, 8},            // UI64
    {"i1", 1, 1},             // I1
    {"i8", 1, 1},             // I8
    {"i16", 2, 2},            // I16
    {"i32", 4, 4},            // I32
    {"i64", 8, 8},            // I64
    {"f32", 4, 4},            // F32
    {"f64", 8, 8},            // F64
    {"complex64", 8, 4},      // Complex64
    {"complex128", 16, 8},    // Complex128
    {"f16", 2, 2},            // F16
    {"bf16", 2, 2},           // BF16
    {"str", 0, 0},            // String
    {"resource", 0, 0},       // Resource
    {"variant", 0, 0},        // Variant
    {"qu8", 1, 1},            // QUI8
    {"qu16", 2, 2},           // QUI16
    {"qi8", 1, 1},            // QI8
    {"qi16", 2, 2},           // QI16
    {"qi32", 4, 4},           // QI32
    {"", 0, 0},               // Unsupported
}};

constexpr std::array<std::string_view, kNumSectionIds> kSectionNames = {
    "Strings",         "Attributes",     "Kernels",        "Types",
    "FunctionIndex",   "Functions",      "LocationStrings", "Locations",
    "AttributeTypes",  "AttributeNames", "RegisterTypes",
};

}  // namespace

std::string_view SectionName(uint8_t id) {
  return id < kNumSectionIds ? kSectionNames[id] : "unknown";
}

std::string_view DTypeName(DType dtype) {
  auto index = static_cast<size_t>(dtype);
  return index < kNumDTypes ? kDTypeInfo[index].name : "";
}

size_t DTypeSize(DType dtype) {
  auto index = static_cast<size_t>(dtype);
  return index < kNumDTypes ? kDTypeInfo[index].size : 0;
}

size_t DTypeAlignment(DType dtype) {
  auto index = static_cast<size_t>(dtype);
  return index < kNumDTypes ? kDTypeInfo[index].alignment : 0;
}

bool IsValidAttributeType(uint32_t type) {
  if (type > 0xFF) return false;
  if (IsArrayAttributeType(static_cast<uint8_t>(type))) {
    return IsFixedAttributeType(ArrayElementType(static_cast<uint8_t>(type)));
  }
  return (type >= 1 && type <= 23) ||
         (type >= static_cast<uint8_t>(AttributeType::kType) &&
          type <= static_cast<uint8_t>(AttributeType::kAggregate));
}

std::string AttributeTypeName(uint32_t type) {
  if (!IsValidAttributeType(type)) {
    return "invalid(" + std::to_string(type) + ")";
  }
  auto byte = static_cast<uint8_t>(type);
  if (IsArrayAttributeType(byte)) {
    return "array<" + AttributeTypeName(ArrayElementType(byte)) + ">";
  }
  if (byte == static_cast<uint8_t>(DType::kString)) return "string";
  if (IsDataAttributeType(byte)) {
    return std::string(DTypeName(static_cast<DType>(byte)));
  }
  switch (static_cast<AttributeType>(byte)) {
    case AttributeType::kType:
      return "type";
    case AttributeType::kFunc:
      return "func";
    case AttributeType::kShape:
      return "shape";
    case AttributeType::kDense:
      return "dense";
    case AttributeType::kSymbolRef:
      return "symbol_ref";
    case AttributeType::kAggregate:
      return "aggregate";
    default:
      return "invalid(" + std::to_string(type) + ")";
  }
}

}  // namespace bef
