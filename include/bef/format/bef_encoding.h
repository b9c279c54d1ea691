// BEF encoding constants: the one place where the numbers of the Binary
// Executable Format are written down (see docs/bef-format.md).
//
// Everything that reads or writes BEF bytes -- the loader, BefWriter, bef-dump,
// mlir-to-bef and bef-to-mlir -- takes its magic numbers, section ids, kinds,
// DTypes and attribute types from here. The values are fixed by TFRT's
// translator (byte compatibility is the goal); do not renumber.
//
// Multi-byte fixed-width values in BEF are little-endian. Variable-length
// integers (VBR) put the most-significant 7-bit group first (byte_reader.h).
#ifndef BEF_FORMAT_BEF_ENCODING_H_
#define BEF_FORMAT_BEF_ENCODING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bef {

// ---------------------------------------------------------------------------
// File header.
inline constexpr uint8_t kBefMagic1 = 0x0B;
inline constexpr uint8_t kBefMagic2 = 0xEF;
// The only format version that exists. A file with another version is rejected.
inline constexpr uint8_t kBefVersion0 = 0x00;
inline constexpr size_t kBefHeaderSize = 3;

// ---------------------------------------------------------------------------
// Sections. A file is the header followed by sections: id byte, VBR
// (length << 1 | aligned_flag), [alignment byte + padding], body.
enum class SectionId : uint8_t {
  kStrings = 0,
  kAttributes = 1,
  kKernels = 2,
  kTypes = 3,
  kFunctionIndex = 4,
  kFunctions = 5,
  kLocationStrings = 6,
  kLocations = 7,
  kAttributeTypes = 8,
  kAttributeNames = 9,
  kRegisterTypes = 10,
};
// Ids at or above this are unknown (11 was DebugInfo, removed in 2021) and are
// skipped by readers.
inline constexpr uint8_t kNumSectionIds = 11;

// "Strings", "Attributes", ...; "unknown" for ids >= kNumSectionIds.
std::string_view SectionName(uint8_t id);

// ---------------------------------------------------------------------------
// Alignment and filler constants.
inline constexpr uint32_t kKernelEntryAlignment = 4;
inline constexpr uint32_t kAttributeTensorAlignment = 8;
// The largest alignment any attribute needs; a BEF image must be loaded at an
// address aligned to this.
inline constexpr uint32_t kAttributeMaxAlignment = 8;
inline constexpr uint32_t kBefBufferAlignment = kAttributeMaxAlignment;
// Every padding byte the writer emits.
inline constexpr uint8_t kPaddingByte = 0xCC;
// Kernel code and location word of the pseudo kernel (kernel 0).
inline constexpr uint32_t kPseudoKernelCode = 0xABABABAB;
inline constexpr uint32_t kPseudoKernelLocation = 0xCDCDCDCD;
// Location offsets of ops whose location cannot be encoded count down from here.
inline constexpr uint32_t kFirstVirtualLocationOffset = 0xFFFFFFFE;
// Number of fixed words at the start of every kernel record: code, location,
// #arguments, #attributes, #functions, #results.
inline constexpr size_t kKernelRecordHeaderWords = 6;

// ---------------------------------------------------------------------------
// Function kinds (one byte in each FunctionIndex entry).
enum class FunctionKind : uint8_t {
  kBefFunction = 0,     // async dataflow function
  kNativeFunction = 1,  // body-less, resolved by name at load
  kSyncBefFunction = 2, // run by the sequential interpreter
};
inline constexpr uint8_t kNumFunctionKinds = 3;

// ---------------------------------------------------------------------------
// Location kinds (first byte of each record in the Locations section).
enum class LocationKind : uint8_t {
  kUnknown = 0,        // no payload
  kFileLineColumn = 1, // VBR filename offset, VBR line, VBR column
  kName = 2,           // VBR name offset, nested child location
  kCallSite = 3,       // nested callee, nested caller
  kFused = 4,          // VBR count N, N nested locations
};
inline constexpr uint8_t kNumLocationKinds = 5;

// ---------------------------------------------------------------------------
// Data types, as embedded in attribute types, dense headers and type
// attributes.
enum class DType : uint8_t {
  kInvalid = 0,
  kUI8 = 1,
  kUI16 = 2,
  kUI32 = 3,
  kUI64 = 4,
  kI1 = 5,
  kI8 = 6,
  kI16 = 7,
  kI32 = 8,
  kI64 = 9,
  kF32 = 10,
  kF64 = 11,
  kComplex64 = 12,
  kComplex128 = 13,
  kF16 = 14,
  kBF16 = 15,
  kString = 16,
  kResource = 17,
  kVariant = 18,
  kQUI8 = 19,
  kQUI16 = 20,
  kQI8 = 21,
  kQI16 = 22,
  kQI32 = 23,
  kUnsupported = 24,  // == LastDType
};
inline constexpr uint8_t kNumDTypes = 25;

// Printed name (`i32`, `complex64`, `str`, ...); empty for Invalid and
// Unsupported or an out-of-range value.
std::string_view DTypeName(DType dtype);
// Host size and alignment in bytes; 0 for types that are not fixed-size
// (Invalid, String, Resource, Variant, Unsupported) or out of range.
size_t DTypeSize(DType dtype);
size_t DTypeAlignment(DType dtype);
inline bool IsValidDType(uint8_t value) { return value < kNumDTypes; }

// ---------------------------------------------------------------------------
// Attribute types (BEFAttributeType): one byte in aggregates, VBR in the
// AttributeTypes section. Values 1..23 are scalars of that DType.
enum class AttributeType : uint8_t {
  kUnsupported = 0,
  kLastDataType = 24,
  kType = 25,       // 1 byte holding a DType value
  kFunc = 26,       // function name (never produced by the converter)
  kShape = 27,      // #corert.shape
  kDense = 28,      // dense elements
  kSymbolRef = 29,  // symbol in a tfrt.compiled module
  kAggregate = 30,  // heterogeneous array
  kEmptyArray = 136,  // `[]`: an I32 array with no elements
};
inline constexpr uint8_t kArrayAttributeTypeBit = 0x80;
inline constexpr uint8_t kScalarAttributeTypeMask = 0x7F;

constexpr uint8_t ScalarAttributeType(DType dtype) {
  return static_cast<uint8_t>(dtype);
}
constexpr uint8_t ArrayAttributeType(uint8_t element_type) {
  return element_type | kArrayAttributeTypeBit;
}
constexpr bool IsArrayAttributeType(uint8_t type) {
  return (type & kArrayAttributeTypeBit) != 0;
}
constexpr uint8_t ArrayElementType(uint8_t type) {
  return type & kScalarAttributeTypeMask;
}
// A scalar of a DType 1..23.
constexpr bool IsDataAttributeType(uint8_t type) {
  return type >= 1 && type <= 23;
}
// Types that may be elements of a homogeneous array: Type, or a data type
// other than String.
constexpr bool IsFixedAttributeType(uint8_t type) {
  return type == static_cast<uint8_t>(AttributeType::kType) ||
         (IsDataAttributeType(type) &&
          type != static_cast<uint8_t>(DType::kString));
}
// Every value a BEF attribute-type byte can legally hold.
bool IsValidAttributeType(uint32_t type);
// `i32`, `array<f32>`, `string`, `dense`, `aggregate`, ...: for diagnostics
// and bef-dump.
std::string AttributeTypeName(uint32_t type);

// Size of the header shared by Shape, Dense and Aggregate attributes
// (BefAttrBase): alignment byte, element DType byte, uint16 prefix size,
// uint32 byte size.
inline constexpr size_t kAttributeBaseSize = 8;
// Dense attribute: header + element offset + element count + rank, then dims.
inline constexpr size_t kDenseAttributeFixedSize = 20;
// Ranked shape: header + rank, then dims.
inline constexpr size_t kShapeAttributeFixedSize = 12;
// Aggregate: header + element count, then one uint32 offset per element.
inline constexpr size_t kAggregateAttributeFixedSize = 12;

}  // namespace bef

#endif  // BEF_FORMAT_BEF_ENCODING_H_
