#include "tools/serving/protocol_datatypes.h"

namespace bef::serving {
namespace {

#define BEF_DATATYPE_ROW(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS) \
  ProtocolDatatype{NAME, false, DTYPE, BEF_SCALAR, #CONTENTS},
constexpr ProtocolDatatype kDatatypes[] = {
    BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_DATATYPE_ROW)
    ProtocolDatatype{"BYTES", true, DType::kI1, "!tfrt.string", "bytes_contents"},
};
#undef BEF_DATATYPE_ROW

}  // namespace

std::span<const ProtocolDatatype> ProtocolDatatypes() { return kDatatypes; }

const ProtocolDatatype* FindDatatype(std::string_view name) {
  for (const ProtocolDatatype& datatype : kDatatypes) {
    if (datatype.name == name) return &datatype;
  }
  return nullptr;
}

const ProtocolDatatype* DatatypeOfDType(DType dtype) {
  for (const ProtocolDatatype& datatype : kDatatypes) {
    if (!datatype.bytes && datatype.dtype == dtype) return &datatype;
  }
  return nullptr;
}

const ProtocolDatatype* DatatypeOfBefScalar(std::string_view type) {
  for (const ProtocolDatatype& datatype : kDatatypes) {
    if (datatype.bef_scalar == type) return &datatype;
  }
  return nullptr;
}

const std::string& DatatypeNames() {
  static const std::string* names = [] {
    auto* text = new std::string;
    for (const ProtocolDatatype& datatype : kDatatypes) {
      if (!text->empty()) text->append(", ");
      text->append(datatype.name);
    }
    return text;
  }();
  return *names;
}

}  // namespace bef::serving
