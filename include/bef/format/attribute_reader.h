// DecodeAttribute: reads one attribute of the Attributes section back into a
// plain value, verifying every length, offset and alignment against the pool.
//
// Used where attributes are inspected rather than consumed by kernels:
// bef-dump, bef-to-mlir, the loader's verification, and tests. The layouts are
// those written by EmitAttribute (attribute_writer.h). Malformed bytes give a
// FormatError ("invalid attribute") naming the attribute offset and the field.
#ifndef BEF_FORMAT_ATTRIBUTE_READER_H_
#define BEF_FORMAT_ATTRIBUTE_READER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "bef/format/bef_encoding.h"

namespace bef {

struct DecodedAttribute {
  uint8_t type = 0;      // BEF attribute type
  uint32_t offset = 0;   // offset in the pool (of the value, count or header)
  uint32_t size = 0;     // bytes from offset to the end of the attribute
  DType dtype = DType::kInvalid;  // scalar, array element or dense element
  // Scalar: one bit pattern. Array: the elements. Type / type array: DTypes.
  // Symbol ref: the id.
  std::vector<uint64_t> values;
  std::string_view text;            // string bytes; symbol ref root
  bool ranked = true;               // shapes
  std::vector<int64_t> dims;        // dense shape or shape dims
  std::span<const uint8_t> data;    // dense element bytes (in the pool)
  std::vector<DecodedAttribute> elements;  // aggregate elements
  std::vector<std::string_view> nested;    // symbol ref nested names
  std::string_view module_text;            // symbol ref module

  // A short textual form for tools: `5 : i32`, `"text"`, `[1, 2] : i32`,
  // `dense<i32>[2, 2]{...}`, `shape<2x?>`, `[...]`.
  std::string ToString() const;
};

// Decodes the attribute of BEF attribute type `type` at `offset` in `pool`.
absl::StatusOr<DecodedAttribute> DecodeAttribute(std::span<const uint8_t> pool,
                                                 uint32_t offset,
                                                 uint32_t type);

}  // namespace bef

#endif  // BEF_FORMAT_ATTRIBUTE_READER_H_
