// The JSON the serving APIs write: /v1/ results (ResultToJson), text
// (DumpJson, AppendJsonString) and the names a request gave, as error
// messages repeat them (EchoName). json_codec.h is the manual.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"
#include "bef/tensor/sparse_and_string_tensors.h"
#include "tools/serving/json_codec.h"
#include "tools/serving/protocol_datatypes.h"

namespace bef {
namespace {

// The /v1/ API's tensor dtypes are the BEF scalar types of the protocol's
// numeric datatypes ("f32"): one table (protocol_datatypes.h).
std::string_view DTypeJsonName(DType dtype) {
  const serving::ProtocolDatatype* datatype = serving::DatatypeOfDType(dtype);
  return datatype != nullptr ? datatype->bef_scalar : std::string_view();
}

Json FloatJson(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

// One element: floating point through FloatJson (NaN, infinities).
template <typename T>
Json ElementJson(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    return FloatJson(value);
  } else {
    return Json(value);
  }
}

template <typename T>
Json ElementsJson(const DenseHostTensor& tensor) {
  Json values = Json::array();
  const T* data = static_cast<const T*>(tensor.data());
  int64_t count = std::max<int64_t>(tensor.NumElements(), 0);
  for (int64_t i = 0; i < count; ++i) values.push_back(ElementJson(data[i]));
  return values;
}

}  // namespace

std::string EchoName(std::string_view name) {
  constexpr size_t kMost = 200;
  if (name.size() <= kMost) return std::string(name);
  return absl::StrCat(std::string(name.substr(0, kMost)), "... (", name.size(), " bytes)");
}

absl::StatusOr<Json> ResultToJson(std::string_view type, AsyncValue* value) {
#define BEF_SCALAR_TO_JSON(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS) \
  if (value->IsType<TYPE>()) return ElementJson(value->get<TYPE>());
  BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_SCALAR_TO_JSON)
#undef BEF_SCALAR_TO_JSON
  if (value->IsType<std::string>()) return Json(value->get<std::string>());
  if (value->IsType<Chain>()) return Json(nullptr);
  if (value->IsType<StringHostTensor>()) {
    const StringHostTensor& tensor = value->get<StringHostTensor>();
    return Json{{"dtype", "string"}, {"shape", tensor.shape().dims()}, {"values", tensor.values()}};
  }
  if (value->IsType<DenseHostTensor>()) {
    const DenseHostTensor& tensor = value->get<DenseHostTensor>();
    Json values;
    const DType dtype = tensor.dtype();
#define BEF_ELEMENTS_TO_JSON(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS) \
    if (dtype == DTYPE) values = ElementsJson<TYPE>(tensor);
    BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_ELEMENTS_TO_JSON)
#undef BEF_ELEMENTS_TO_JSON
    if (values.is_null()) {
      return absl::UnimplementedError(absl::StrCat("a result tensor of dtype ",
                                                   ToAbsl(DTypeName(tensor.dtype())),
                                                   " has no JSON form"));
    }
    return Json{{"dtype", DTypeJsonName(tensor.dtype())},
                {"shape", tensor.shape().dims()},
                {"values", std::move(values)}};
  }
  return absl::UnimplementedError(
      absl::StrCat("a result of type ", ToAbsl(type), " has no JSON form"));
}

std::string DumpJson(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void AppendJsonString(std::string_view text, std::string* out) {
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (!plain) {
    out->append(DumpJson(Json(std::string(text))));
    return;
  }
  out->push_back('"');
  out->append(text);
  out->push_back('"');
}

}  // namespace bef
