#include "tools/serving/protocol_datatypes.h"

#include <cstring>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "bef/support/string_view.h"

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

const ProtocolDatatype& BytesDatatype() { return kDatatypes[std::size(kDatatypes) - 1]; }

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

absl::StatusOr<const ProtocolDatatype*> ResolveDatatype(std::string_view name,
                                                        std::string_view what) {
  if (const ProtocolDatatype* datatype = FindDatatype(name)) return datatype;
  return absl::InvalidArgumentError(absl::StrCat(ToAbsl(what), " has datatype '", ToAbsl(name),
                                                 "', which this server does not take (",
                                                 DatatypeNames(), ")"));
}

std::string_view DatatypeName(const ProtocolDatatype* datatype) {
  return datatype != nullptr ? datatype->name : std::string_view();
}

void AppendLengthPrefixed(std::string_view element, std::string* raw) {
  const uint32_t length = static_cast<uint32_t>(element.size());
  raw->append(reinterpret_cast<const char*>(&length), 4);
  raw->append(element);
}

absl::StatusOr<std::vector<std::string>> SplitLengthPrefixed(std::string_view raw, int64_t count,
                                                             std::string_view what) {
  std::vector<std::string> strings;
  while (!raw.empty()) {
    uint32_t length;
    if (raw.size() < 4) {
      return absl::InvalidArgumentError(
          absl::StrCat(ToAbsl(what), " raw BYTES end inside a length"));
    }
    std::memcpy(&length, raw.data(), 4);
    raw.remove_prefix(4);
    if (raw.size() < length) {
      return absl::InvalidArgumentError(
          absl::StrCat(ToAbsl(what), " raw BYTES end inside an element"));
    }
    strings.emplace_back(raw.substr(0, length));
    raw.remove_prefix(length);
    if (static_cast<int64_t>(strings.size()) > count) break;
  }
  if (static_cast<int64_t>(strings.size()) != count) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(what), " has ", strings.size(),
                                                   " BYTES elements, its shape needs ", count));
  }
  return strings;
}

}  // namespace bef::serving
