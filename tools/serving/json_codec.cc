#include "tools/serving/json_codec.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bef/async/async_value_ref.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"
#include "bef/tensor/sparse_and_string_tensors.h"

namespace bef {
namespace {

struct DTypeInfo {
  const char* name;
  DType dtype;
};
constexpr DTypeInfo kTensorDTypes[] = {
    {"i1", DType::kI1},     {"i8", DType::kI8},     {"i32", DType::kI32},
    {"i64", DType::kI64},   {"ui8", DType::kUI8},   {"ui32", DType::kUI32},
    {"ui64", DType::kUI64}, {"f32", DType::kF32},   {"f64", DType::kF64},
};

const char* DTypeJsonName(DType dtype) {
  for (const DTypeInfo& info : kTensorDTypes) {
    if (info.dtype == dtype) return info.name;
  }
  return nullptr;
}

absl::Status Refuse(const std::string& what, std::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(what, ToAbsl(problem)));
}

template <typename T>
absl::StatusOr<T> IntegerFrom(const Json& value, const std::string& what) {
  if (value.is_boolean() || !value.is_number_integer()) {
    return Refuse(what, " must be an integer");
  }
  if constexpr (std::is_signed_v<T>) {
    if (value.is_number_unsigned() &&
        value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      return Refuse(what, " is out of range");
    }
    int64_t v = value.get<int64_t>();
    if (!value.is_number_unsigned() &&
        (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())) {
      return Refuse(what, " is out of range");
    }
    return static_cast<T>(v);
  } else {
    if (!value.is_number_unsigned() && value.get<int64_t>() < 0) {
      return Refuse(what, " is out of range");
    }
    uint64_t v = value.get<uint64_t>();
    if (v > std::numeric_limits<T>::max()) return Refuse(what, " is out of range");
    return static_cast<T>(v);
  }
}

template <typename T>
absl::StatusOr<T> FloatFrom(const Json& value, const std::string& what) {
  if (value.is_number() && !value.is_boolean()) return static_cast<T>(value.get<double>());
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (text == "nan") return std::numeric_limits<T>::quiet_NaN();
    if (text == "inf") return std::numeric_limits<T>::infinity();
    if (text == "-inf") return -std::numeric_limits<T>::infinity();
  }
  return Refuse(what, " must be a number (or \"nan\", \"inf\", \"-inf\")");
}

absl::StatusOr<bool> BoolFrom(const Json& value, const std::string& what) {
  if (!value.is_boolean()) return Refuse(what, " must be true or false");
  return value.get<bool>();
}

// Any scalar type's reader, by type.
template <typename T>
absl::StatusOr<T> ScalarFrom(const Json& value, const std::string& what) {
  if constexpr (std::is_same_v<T, bool>) {
    return BoolFrom(value, what);
  } else if constexpr (std::is_floating_point_v<T>) {
    return FloatFrom<T>(value, what);
  } else {
    return IntegerFrom<T>(value, what);
  }
}

template <typename T>
absl::Status StoreElements(const Json& values, void* data, const std::string& what) {
  T* out = static_cast<T*>(data);
  for (size_t i = 0; i < values.size(); ++i) {
    BEF_ASSIGN_OR_RETURN(out[i], ScalarFrom<T>(values[i], absl::StrCat(what, " value ", i)));
  }
  return absl::OkStatus();
}

absl::StatusOr<RCReference<AsyncValue>> TensorFrom(const Json& value,
                                                   HostAllocator* allocator,
                                                   const std::string& what) {
  if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") ||
      !value.contains("values")) {
    return Refuse(what, " must be a tensor: {\"dtype\", \"shape\", \"values\"}");
  }
  const Json& dtype_json = value["dtype"];
  const Json& shape_json = value["shape"];
  const Json& values = value["values"];
  if (!dtype_json.is_string()) return Refuse(what, " dtype must be a string");
  const std::string& dtype_name = dtype_json.get_ref<const std::string&>();
  if (!shape_json.is_array()) return Refuse(what, " shape must be an array");
  if (!values.is_array()) return Refuse(what, " values must be an array");
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (const Json& dim : shape_json) {
    BEF_ASSIGN_OR_RETURN(int64_t d, IntegerFrom<int64_t>(dim, absl::StrCat(what, " dimension")));
    if (d < 0) return Refuse(what, " dimensions must not be negative");
    if (__builtin_mul_overflow(count, d, &count)) return Refuse(what, " shape is too large");
    dims.push_back(d);
  }
  if (static_cast<uint64_t>(count) != values.size()) {
    return Refuse(what, absl::StrCat(" has ", values.size(), " values, its shape needs ", count));
  }
  TensorShape shape(std::move(dims));
  if (dtype_name == "string") {
    std::vector<std::string> strings;
    for (const Json& element : values) {
      if (!element.is_string()) return Refuse(what, " values must be strings");
      strings.push_back(element.get<std::string>());
    }
    return MakeAvailableAsyncValueRef<StringHostTensor>(std::move(shape), std::move(strings))
        .ReleaseRCRef();
  }
  const DTypeInfo* info = nullptr;
  for (const DTypeInfo& candidate : kTensorDTypes) {
    if (dtype_name == candidate.name) info = &candidate;
  }
  if (info == nullptr) {
    return Refuse(what, absl::StrCat(" has an unsupported dtype '", dtype_name,
                                     "' (i1, i8, i32, i64, ui8, ui32, ui64, f32, f64, string)"));
  }
  RCReference<HostBuffer> buffer = DenseHostTensor::AllocateBuffer(allocator, info->dtype, shape);
  if (!buffer) return Refuse(what, " cannot be allocated");
  DenseHostTensor tensor(info->dtype, std::move(shape), std::move(buffer));
  void* data = tensor.writable_data();
  absl::Status stored;
  switch (info->dtype) {
    case DType::kI1: stored = StoreElements<bool>(values, data, what); break;
    case DType::kI8: stored = StoreElements<int8_t>(values, data, what); break;
    case DType::kI32: stored = StoreElements<int32_t>(values, data, what); break;
    case DType::kI64: stored = StoreElements<int64_t>(values, data, what); break;
    case DType::kUI8: stored = StoreElements<uint8_t>(values, data, what); break;
    case DType::kUI32: stored = StoreElements<uint32_t>(values, data, what); break;
    case DType::kUI64: stored = StoreElements<uint64_t>(values, data, what); break;
    case DType::kF32: stored = StoreElements<float>(values, data, what); break;
    case DType::kF64: stored = StoreElements<double>(values, data, what); break;
    default: break;
  }
  BEF_RETURN_IF_ERROR(stored);
  return MakeAvailableAsyncValueRef<DenseHostTensor>(std::move(tensor)).ReleaseRCRef();
}

template <typename T>
absl::StatusOr<RCReference<AsyncValue>> ScalarValueFrom(const Json& value,
                                                        const std::string& what) {
  BEF_ASSIGN_OR_RETURN(T scalar, ScalarFrom<T>(value, what));
  return MakeAvailableAsyncValueRef<T>(scalar).ReleaseRCRef();
}

Json FloatJson(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

template <typename T>
Json ElementsJson(const DenseHostTensor& tensor) {
  Json values = Json::array();
  const T* data = static_cast<const T*>(tensor.data());
  int64_t count = std::max<int64_t>(tensor.NumElements(), 0);
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      values.push_back(FloatJson(data[i]));
    } else {
      values.push_back(data[i]);
    }
  }
  return values;
}

}  // namespace

absl::StatusOr<Json> ParseRequestBody(std::string_view body) {
  bool too_deep = false;
  Json request = Json::parse(
      body,
      [&too_deep](int depth, Json::parse_event_t, Json&) {
        if (depth <= kMaxJsonDepth) return true;
        too_deep = true;
        return false;
      },
      /*allow_exceptions=*/false);
  if (too_deep) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the body nests arrays or objects more than ", kMaxJsonDepth, " levels deep"));
  }
  if (request.is_discarded()) return absl::InvalidArgumentError("the body is not valid JSON");
  return request;
}

absl::StatusOr<RCReference<AsyncValue>> ArgumentFromJson(std::string_view type,
                                                         const Json& value,
                                                         HostAllocator* allocator,
                                                         const std::string& what) {
  if (type == "i1") return ScalarValueFrom<bool>(value, what);
  if (type == "i8") return ScalarValueFrom<int8_t>(value, what);
  if (type == "i32") return ScalarValueFrom<int32_t>(value, what);
  if (type == "i64") return ScalarValueFrom<int64_t>(value, what);
  if (type == "ui8") return ScalarValueFrom<uint8_t>(value, what);
  if (type == "ui32") return ScalarValueFrom<uint32_t>(value, what);
  if (type == "ui64") return ScalarValueFrom<uint64_t>(value, what);
  if (type == "f32") return ScalarValueFrom<float>(value, what);
  if (type == "f64") return ScalarValueFrom<double>(value, what);
  if (type == "!tfrt.string") {
    if (!value.is_string()) return Refuse(what, " must be a string");
    return MakeAvailableAsyncValueRef<std::string>(value.get<std::string>()).ReleaseRCRef();
  }
  if (type == "!tfrt.chain") {
    if (!value.is_null()) return Refuse(what, " (a chain) must be null");
    return MakeAvailableAsyncValueRef<Chain>().ReleaseRCRef();
  }
  if (type == "!tfrt_tensor.tensor") return TensorFrom(value, allocator, what);
  return Refuse(what, absl::StrCat(" has type ", ToAbsl(type), ", which requests cannot supply"));
}

absl::StatusOr<Json> ResultToJson(std::string_view type, AsyncValue* value) {
  if (value->IsType<bool>()) return Json(value->get<bool>());
  if (value->IsType<int8_t>()) return Json(value->get<int8_t>());
  if (value->IsType<int32_t>()) return Json(value->get<int32_t>());
  if (value->IsType<int64_t>()) return Json(value->get<int64_t>());
  if (value->IsType<uint8_t>()) return Json(value->get<uint8_t>());
  if (value->IsType<uint32_t>()) return Json(value->get<uint32_t>());
  if (value->IsType<uint64_t>()) return Json(value->get<uint64_t>());
  if (value->IsType<float>()) return FloatJson(value->get<float>());
  if (value->IsType<double>()) return FloatJson(value->get<double>());
  if (value->IsType<std::string>()) return Json(value->get<std::string>());
  if (value->IsType<Chain>()) return Json(nullptr);
  if (value->IsType<StringHostTensor>()) {
    const StringHostTensor& tensor = value->get<StringHostTensor>();
    return Json{{"dtype", "string"}, {"shape", tensor.shape().dims()}, {"values", tensor.values()}};
  }
  if (value->IsType<DenseHostTensor>()) {
    const DenseHostTensor& tensor = value->get<DenseHostTensor>();
    Json values;
    switch (tensor.dtype()) {
      case DType::kI1: values = ElementsJson<bool>(tensor); break;
      case DType::kI8: values = ElementsJson<int8_t>(tensor); break;
      case DType::kI32: values = ElementsJson<int32_t>(tensor); break;
      case DType::kI64: values = ElementsJson<int64_t>(tensor); break;
      case DType::kUI8: values = ElementsJson<uint8_t>(tensor); break;
      case DType::kUI32: values = ElementsJson<uint32_t>(tensor); break;
      case DType::kUI64: values = ElementsJson<uint64_t>(tensor); break;
      case DType::kF32: values = ElementsJson<float>(tensor); break;
      case DType::kF64: values = ElementsJson<double>(tensor); break;
      default:
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

}  // namespace bef
