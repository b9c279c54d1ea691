// BefAttribute and EmitAttribute: attribute values as the writer sees them,
// and their byte layouts in the Attributes section (docs/bef-format.md,
// "Attributes").
//
// A BefAttribute is a plain value (scalar, string, type, homogeneous array,
// dense elements, shape, aggregate, compilation-unit symbol reference).
// EmitAttribute lays one out at the end of a ByteWriter, inserting the 0xCC
// padding its alignment needs, and returns the offset kernels refer to:
//   scalar      first value byte            (natural alignment; 1-byte kinds none)
//   string      the uint32 length           (4-aligned)
//   array       the uint32 element count    (count 4-aligned, or at 4 mod 8
//                                            so 8-byte elements are 8-aligned)
//   dense/shape/aggregate  the 8-byte header (padded so that header +
//                                             prefix size is aligned)
//   symbol ref  the first VBR
// Alignment is relative to the start of the ByteWriter, which must itself be
// placed at an address aligned to kAttributeMaxAlignment (BefWriter does).
#ifndef BEF_FORMAT_ATTRIBUTE_WRITER_H_
#define BEF_FORMAT_ATTRIBUTE_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bef/format/bef_encoding.h"
#include "bef/format/byte_writer.h"

namespace bef {

class BefAttribute {
 public:
  enum class Kind {
    kScalar,
    kString,
    kType,
    kArray,
    kDense,
    kShape,
    kAggregate,
    kSymbolRef,
  };

  // A scalar of a fixed-size DType; the low DTypeSize(dtype) bytes of `bits`
  // are stored (little-endian). Floats are passed as their bit patterns.
  static BefAttribute Scalar(DType dtype, uint64_t bits);
  static BefAttribute Bool(bool value) { return Scalar(DType::kI1, value); }
  static BefAttribute I8(int8_t v) { return Scalar(DType::kI8, uint8_t(v)); }
  static BefAttribute I16(int16_t v) { return Scalar(DType::kI16, uint16_t(v)); }
  static BefAttribute I32(int32_t v) { return Scalar(DType::kI32, uint32_t(v)); }
  static BefAttribute I64(int64_t v) { return Scalar(DType::kI64, uint64_t(v)); }
  static BefAttribute UI8(uint8_t v) { return Scalar(DType::kUI8, v); }
  static BefAttribute UI16(uint16_t v) { return Scalar(DType::kUI16, v); }
  static BefAttribute UI32(uint32_t v) { return Scalar(DType::kUI32, v); }
  static BefAttribute UI64(uint64_t v) { return Scalar(DType::kUI64, v); }
  static BefAttribute F32(float value);
  static BefAttribute F64(double value);
  static BefAttribute F16Bits(uint16_t bits) { return Scalar(DType::kF16, bits); }
  static BefAttribute BF16Bits(uint16_t bits) { return Scalar(DType::kBF16, bits); }

  static BefAttribute String(std::string_view value);
  static BefAttribute Type(DType dtype);

  // Homogeneous array of a fixed DType (elements given as bit patterns).
  static BefAttribute Array(DType element_type, std::vector<uint64_t> elements);
  static BefAttribute I32Array(const std::vector<int32_t>& elements);
  static BefAttribute I64Array(const std::vector<int64_t>& elements);
  static BefAttribute F32Array(const std::vector<float>& elements);
  static BefAttribute TypeArray(const std::vector<DType>& elements);
  // `[]`: attribute type 136 (an I32 array without elements).
  static BefAttribute EmptyArray() { return Array(DType::kI32, {}); }

  // Dense elements; `data` is the element data in host layout (I1 one byte
  // per element, complex as (real, imag)), already expanded for splats.
  // REQUIRES: data.size() == product(shape) * DTypeSize(element_type).
  static BefAttribute Dense(DType element_type, std::vector<int64_t> shape,
                            std::vector<uint8_t> data);
  // A ranked shape; unknown dimensions are -1.
  static BefAttribute Shape(std::vector<int64_t> dims);
  static BefAttribute UnrankedShape();
  static BefAttribute Aggregate(std::vector<BefAttribute> elements);
  // A symbol in a `tfrt.compiled` module: sequence id of the distinct
  // symbol, root and nested symbol names, and the module in generic form.
  static BefAttribute SymbolRef(uint32_t id, std::string root,
                                std::vector<std::string> nested,
                                std::string module_text);

  Kind kind() const { return kind_; }
  // The BEF attribute type (AttributeTypes section, aggregate type bytes).
  uint8_t type() const;
  DType dtype() const { return dtype_; }
  // Element bit patterns (Scalar: one; Array: all; Type/TypeArray: DTypes).
  const std::vector<uint64_t>& values() const { return values_; }
  // String value, symbol root, or dense raw data.
  const std::string& text() const { return text_; }
  // Dense shape or shape dims.
  const std::vector<int64_t>& dims() const { return dims_; }
  bool ranked() const { return ranked_; }
  const std::vector<BefAttribute>& elements() const { return elements_; }
  // Symbol ref nested symbol names and module text.
  const std::vector<std::string>& nested() const { return nested_; }
  const std::string& module_text() const { return module_text_; }

  // The alignment an aggregate header accounts for this attribute when it is
  // an element (integers and floats bit width / 8, so i1 gives 0; strings 4;
  // type and symbol ref 1; ranked shape and dense 8; unranked shape 1; arrays
  // and aggregates max(8, their elements)).
  uint32_t AlignmentInAggregate() const;

  // Identity for deduplicating top-level attributes: equal keys iff equal
  // values of the same type.
  std::string Key() const;

 private:
  BefAttribute(Kind kind, DType dtype) : kind_(kind), dtype_(dtype) {}
  void AppendKey(std::string& key) const;

  Kind kind_;
  // Scalar/array element type; dense element type.
  DType dtype_;
  bool ranked_ = true;
  bool type_array_ = false;
  std::vector<uint64_t> values_;
  std::string text_;
  std::vector<int64_t> dims_;
  std::vector<std::string> nested_;  // symbol ref nested names
  std::string module_text_;          // symbol ref module
  std::vector<BefAttribute> elements_;
};

// Lays out `attribute` at the end of `pool` and returns its offset there.
uint32_t EmitAttribute(ByteWriter& pool, const BefAttribute& attribute);

}  // namespace bef

#endif  // BEF_FORMAT_ATTRIBUTE_WRITER_H_
