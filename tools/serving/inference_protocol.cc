#include "tools/serving/inference_protocol.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bef/async/async_value_ref.h"
#include "bef/format/bef_encoding.h"
#include "bef/support/debug_check.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"
#include "bef/tensor/sparse_and_string_tensors.h"
#include "tools/serving/compact_infer_request.h"
#include "tools/serving/json_codec.h"

namespace bef::serving {
namespace {

absl::Status Refuse(std::string_view message) {
  return absl::InvalidArgumentError(std::string(message));
}

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or
// code points past U+10FFFF).
bool IsUtf8(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  size_t i = 0, size = text.size();
  while (i < size) {
    unsigned char lead = bytes[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    size_t length;
    uint32_t low = 0x80, high = 0xBF;  // the second byte's range
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return false;
    }
    if (size - i < length || bytes[i + 1] < low || bytes[i + 1] > high) return false;
    for (size_t k = 2; k < length; ++k) {
      if (bytes[i + k] < 0x80 || bytes[i + k] > 0xBF) return false;
    }
    i += length;
  }
  return true;
}

// Appends the leaves of a (possibly nested) JSON array, in order: flat, or
// nested at most as deep as the shape has dimensions, as DataNesting says.
absl::Status Flatten(Json& value, Json& flat, DataNesting& nesting, const std::string& what,
                     size_t rank, size_t depth = 0) {
  if (!value.is_array()) {
    nesting.AddElement();
    flat.push_back(std::move(value));
    return absl::OkStatus();
  }
  if (depth >= std::max<size_t>(rank, 1)) {
    return Refuse(absl::StrCat(what, " data is nested deeper than its shape's ", rank,
                               " dimensions"));
  }
  nesting.OpenArray();
  for (Json& element : value) {
    absl::Status status = Flatten(element, flat, nesting, what, rank, depth + 1);
    if (!status.ok()) return status;
  }
  return nesting.CloseArray();
}

// The member `key` of `object` (a JSON object), or null: one lookup.
Json* Field(Json& object, const char* key) {
  auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}
const Json* Field(const Json& object, const char* key) {
  auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

absl::StatusOr<int64_t> ElementCount(const std::vector<int64_t>& shape, const std::string& what) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0) return Refuse(what + " shape has a negative dimension");
    if (__builtin_mul_overflow(count, dim, &count)) return Refuse(what + " shape is too large");
  }
  return count;
}

template <typename T>
RCReference<AsyncValue> ScalarFromRaw(std::string_view raw) {
  T value;
  std::memcpy(&value, raw.data(), sizeof(T));
  return MakeAvailableAsyncValueRef<T>(value).ReleaseRCRef();
}

absl::StatusOr<RCReference<AsyncValue>> ScalarFromRaw(const ProtocolDatatype& datatype,
                                                      std::string_view raw,
                                                      const std::string& what) {
  if (datatype.bytes) {
    absl::StatusOr<std::vector<std::string>> strings = SplitLengthPrefixed(raw, 1, what);
    if (!strings.ok()) return strings.status();
    return MakeAvailableAsyncValueRef<std::string>(std::move((*strings)[0])).ReleaseRCRef();
  }
  if (raw.size() != DTypeSize(datatype.dtype)) {
    return Refuse(absl::StrCat(what, " has ", raw.size(), " bytes; one ", std::string(datatype.name),
                               " is ", DTypeSize(datatype.dtype)));
  }
  if (datatype.dtype == DType::kI1 && static_cast<uint8_t>(raw[0]) > 1) {
    return Refuse(what + " BOOL bytes must be 0 or 1");
  }
#define BEF_SCALAR_FROM_RAW(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS) \
  if (datatype.dtype == DTYPE) return ScalarFromRaw<TYPE>(raw);
  BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_SCALAR_FROM_RAW)
#undef BEF_SCALAR_FROM_RAW
  return Refuse(what + " has an unsupported datatype");
}

absl::StatusOr<RCReference<AsyncValue>> TensorFromRaw(const ProtocolDatatype& datatype,
                                                      const InputTensor& input, int64_t count,
                                                      HostAllocator* allocator,
                                                      const std::string& what) {
  TensorShape shape(input.shape);
  if (datatype.bytes) {
    absl::StatusOr<std::vector<std::string>> strings = SplitLengthPrefixed(input.raw, count, what);
    if (!strings.ok()) return strings.status();
    return MakeAvailableAsyncValueRef<StringHostTensor>(std::move(shape), std::move(*strings))
        .ReleaseRCRef();
  }
  size_t element = DTypeSize(datatype.dtype);
  // Element count x size, overflow-checked (the tensor layer's one rule):
  // a shape of 2^62+1 INT32 elements never wraps around to 4 bytes.
  absl::StatusOr<size_t> needed = DenseHostTensor::DataSizeOf(datatype.dtype, shape);
  if (!needed.ok()) return Refuse(absl::StrCat(what, ": ", needed.status().message()));
  if (input.raw.size() != *needed) {
    return Refuse(absl::StrCat(what, " has ", input.raw.size(), " bytes; its shape and ",
                               std::string(datatype.name), " need ", *needed));
  }
  if (datatype.dtype == DType::kI1) {
    for (char byte : input.raw) {
      if (static_cast<uint8_t>(byte) > 1) return Refuse(what + " BOOL bytes must be 0 or 1");
    }
  }
  RCReference<HostBuffer> buffer;
  if (input.raw_owner && reinterpret_cast<uintptr_t>(input.raw.data()) % element == 0) {
    // Zero copy: the tensor views the request's bytes and keeps them alive.
    buffer = HostBuffer::View(input.raw.data(), input.raw.size(), input.raw_owner);
  } else {
    buffer = DenseHostTensor::AllocateBuffer(allocator, datatype.dtype, shape);
    if (!buffer) return Refuse(what + " cannot be allocated");
    std::memcpy(buffer->data(), input.raw.data(), input.raw.size());
  }
  return MakeAvailableAsyncValueRef<DenseHostTensor>(datatype.dtype, std::move(shape),
                                                     std::move(buffer))
      .ReleaseRCRef();
}

// Writes `number` (finite) in nlohmann::json's dump layout: fixed notation
// for decimal exponents in (-4, 15], ".0" on integral values, otherwise
// d.ddde+XX; the digits are the shortest that round-trip (std::to_chars;
// nlohmann's Grisu2 sometimes writes one more, the value is the same).
void AppendDoubleText(double number, std::string* text) {
  char buffer[64];
  char* end = std::to_chars(buffer, buffer + sizeof(buffer), number, std::chars_format::scientific).ptr;
  const char* p = buffer;
  if (*p == '-') {
    text->push_back('-');
    ++p;
  }
  char digits[32];
  int k = 0;
  const char* e = std::find(p, static_cast<const char*>(end), 'e');
  for (const char* c = p; c < e; ++c) {
    if (*c != '.') digits[k++] = *c;
  }
  int exponent = 0;
  std::from_chars(e + (e[1] == '+' ? 2 : 1), end, exponent);
  const int n = exponent + 1;  // the decimal point sits after n digits
  if (k <= n && n <= 15) {
    text->append(digits, k);
    text->append(n - k, '0');
    text->append(".0");
  } else if (0 < n && n <= 15) {
    text->append(digits, n);
    text->push_back('.');
    text->append(digits + n, k - n);
  } else if (-4 < n && n <= 0) {
    text->append("0.");
    text->append(-n, '0');
    text->append(digits, k);
  } else {
    text->push_back(digits[0]);
    if (k > 1) {
      text->push_back('.');
      text->append(digits + 1, k - 1);
    }
    const int shown = n - 1;
    text->push_back('e');
    text->push_back(shown < 0 ? '-' : '+');
    const int magnitude = shown < 0 ? -shown : shown;
    if (magnitude < 10) text->push_back('0');
    char exponent_text[8];
    text->append(exponent_text, std::to_chars(exponent_text, exponent_text + 8, magnitude).ptr);
  }
}

// One element as JSON text, as the protocol's JSON carries it (NaN and
// infinities as the strings "nan", "inf", "-inf"), without a JSON tree.
template <typename T>
void AppendElementText(T value, std::string* text) {
  char buffer[64];
  if constexpr (std::is_same_v<T, bool>) {
    text->append(value ? "true" : "false");
  } else if constexpr (std::is_floating_point_v<T>) {
    const double number = value;
    if (std::isnan(number)) {
      text->append("\"nan\"");
    } else if (std::isinf(number)) {
      text->append(number > 0 ? "\"inf\"" : "\"-inf\"");
    } else {
      AppendDoubleText(number, text);
    }
  } else {
    char* end = std::to_chars(buffer, buffer + sizeof(buffer), value).ptr;
    text->append(buffer, end);
  }
}

template <typename T>
void AppendElementsText(std::string_view raw, std::string* text) {
  size_t count = raw.size() / sizeof(T);
  if constexpr (std::is_floating_point_v<T>) {
    text->reserve(text->size() + count * 16 + 2);
    for (size_t i = 0; i < count; ++i) {
      T value;
      std::memcpy(&value, raw.data() + i * sizeof(T), sizeof(T));
      if (i > 0) text->push_back(',');
      AppendElementText(value, text);
    }
  } else {
    // Integers and booleans: written in place into room for the longest
    // element each (a sign, the digits, a comma), then cut to size.
    constexpr size_t kLongest = std::is_same_v<T, bool> ? 6 : std::numeric_limits<T>::digits10 + 3;
    const size_t start = text->size();
    text->resize(start + count * kLongest);
    char* out = text->data() + start;
    char* const end = text->data() + text->size();
    for (size_t i = 0; i < count; ++i) {
      T value;
      std::memcpy(&value, raw.data() + i * sizeof(T), sizeof(T));
      if (i > 0) *out++ = ',';
      if constexpr (std::is_same_v<T, bool>) {
        const std::string_view word = value ? "true" : "false";
        out = std::copy(word.begin(), word.end(), out);
      } else {
        out = std::to_chars(out, end, value).ptr;
      }
    }
    text->resize(static_cast<size_t>(out - text->data()));
  }
}

// An output's "data" as JSON text: the elements, flat.
void AppendDataText(const OutputTensor& output, std::string* text) {
  text->push_back('[');
  if (output.datatype->bytes) {
    for (size_t i = 0; i < output.strings.size(); ++i) {
      if (i > 0) text->push_back(',');
      AppendJsonString(output.strings[i], text);
    }
  } else {
    switch (output.datatype->dtype) {
#define BEF_APPEND_ELEMENTS_TEXT(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS) \
  case DTYPE:                                                             \
    AppendElementsText<TYPE>(output.raw, text);                           \
    break;
      BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_APPEND_ELEMENTS_TEXT)
#undef BEF_APPEND_ELEMENTS_TEXT
      default:
        break;
    }
  }
  text->push_back(']');
}

// The longest JSON text of one element of type T, its comma included.
template <typename T>
constexpr uint64_t LongestElementText() {
  if constexpr (std::is_same_v<T, bool>) {
    return 6;  // "false,"
  } else if constexpr (std::is_floating_point_v<T>) {
    return 26;  // "-1.2345678901234567e-308,"
  } else {
    return std::numeric_limits<T>::digits10 + 3;  // a sign, the digits, a comma
  }
}

template <typename T>
std::string_view BytesOf(AsyncValue* value) {
  return std::string_view(reinterpret_cast<const char*>(&value->get<T>()), sizeof(T));
}

}  // namespace

absl::StatusOr<size_t> BindInput(const LoadedModel& model, std::string_view name,
                                 const std::vector<RCReference<AsyncValue>>& bound) {
  const std::vector<TensorSpec>& specs = model.inputs();
  size_t index = 0;
  while (index < specs.size() && specs[index].name != name) ++index;
  if (index == specs.size()) {
    return Refuse(absl::StrCat("model '", model.name(), "' has no input '", EchoName(name), "'"));
  }
  if (bound[index]) return Refuse(absl::StrCat("input '", specs[index].name, "' given twice"));
  return index;
}

absl::Status CheckEveryInputBound(const LoadedModel& model,
                                  const std::vector<RCReference<AsyncValue>>& bound) {
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    if (!bound[i]) return Refuse(absl::StrCat("missing input '", model.inputs()[i].name, "'"));
  }
  return absl::OkStatus();
}

absl::Status BindOutput(const LoadedModel& model, std::string_view name,
                        std::vector<size_t>& requested) {
  const std::vector<TensorSpec>& specs = model.outputs();
  size_t index = 0;
  while (index < specs.size() && specs[index].name != name) ++index;
  if (index == specs.size()) {
    return Refuse(absl::StrCat("model '", model.name(), "' has no output '", EchoName(name), "'"));
  }
  if (std::find(requested.begin(), requested.end(), index) != requested.end()) {
    return Refuse(absl::StrCat("output '", specs[index].name, "' requested twice"));
  }
  requested.push_back(index);
  return absl::OkStatus();
}

void AppendRawOutput(const OutputTensor& output, std::string* raw) {
  if (!output.datatype->bytes) {
    raw->append(output.raw);
    return;
  }
  for (const std::string& element : output.strings) AppendLengthPrefixed(element, raw);
}

absl::StatusOr<RCReference<AsyncValue>> DecodeInput(const TensorSpec& spec,
                                                    const InputTensor& input,
                                                    HostAllocator* allocator) {
  std::string what = absl::StrCat("input '", input.name, "'");
  const ProtocolDatatype* datatype = input.datatype;
  BEF_DEBUG_CHECK(datatype != nullptr, "every front end resolves an input's datatype");
  if (spec.datatype != nullptr && spec.datatype != datatype) {
    return Refuse(absl::StrCat(what, " has datatype ", ToAbsl(datatype->name), "; the model takes ",
                               ToAbsl(spec.datatype->name)));
  }
  absl::StatusOr<int64_t> count = ElementCount(input.shape, what);
  if (!count.ok()) return count.status();
  bool scalar = spec.bef_type != kDenseHostTensorTypeName;
  // A scalar's shape is [] (or [1], as KServe's clients write one value);
  // [1, 1] or [3] is not the model's shape.
  if (scalar && !(input.shape.empty() || (input.shape.size() == 1 && input.shape[0] == 1))) {
    return Refuse(absl::StrCat(what, " is a scalar (shape []); the request's shape is ",
                               TensorShape(input.shape).ToString()));
  }
  if (!scalar && !(spec.shape.size() == 1 && spec.shape[0] == -1)) {
    bool fits = spec.shape.size() == input.shape.size();
    for (size_t i = 0; fits && i < spec.shape.size(); ++i) {
      fits = spec.shape[i] == -1 || spec.shape[i] == input.shape[i];
    }
    if (!fits) return Refuse(absl::StrCat(what, " has a shape the model does not take"));
  }
  if (input.streamed) return input.streamed.CopyRef();  // its count checked as it was read
  if (input.json_data == nullptr) {
    if (scalar) return ScalarFromRaw(*datatype, input.raw, what);
    return TensorFromRaw(*datatype, input, *count, allocator, what);
  }
  Json& data = *static_cast<Json*>(input.json_data);
  Json flat = Json::array();
  absl::Status flattened = absl::OkStatus();
  if (data.is_array()) {
    DataNesting nesting(scalar ? std::span<const int64_t>() : std::span<const int64_t>(input.shape),
                        what);
    flattened = Flatten(data, flat, nesting, what, input.shape.size());
  } else {
    flat.push_back(std::move(data));
  }
  if (!flattened.ok()) return flattened;
  if (static_cast<int64_t>(flat.size()) != *count) {
    return Refuse(absl::StrCat(what, " has ", flat.size(), " data elements, its shape needs ",
                               *count));
  }
  if (scalar) return ArgumentFromJson(spec.bef_type, flat[0], allocator, what);
  // The /v1/ API's tensor form ("string" for BYTES).
  Json tensor = {{"dtype", datatype->bytes ? std::string_view("string") : datatype->bef_scalar},
                 {"shape", input.shape},
                 {"values", std::move(flat)}};
  return ArgumentFromJson(spec.bef_type, tensor, allocator, what);
}

absl::StatusOr<OutputTensor> DescribeOutput(const TensorSpec& spec, RCReference<AsyncValue> value) {
  OutputTensor output;
  output.name = spec.name;
  AsyncValue* v = value.get();
  if (v->IsType<DenseHostTensor>()) {
    const DenseHostTensor& tensor = v->get<DenseHostTensor>();
    const ProtocolDatatype* datatype = DatatypeOfDType(tensor.dtype());
    if (datatype == nullptr) {
      return absl::UnimplementedError(absl::StrCat("output '", spec.name,
                                                   "' is a tensor of a dtype the protocol "
                                                   "cannot carry"));
    }
    output.datatype = datatype;
    output.shape = tensor.shape().dims();
    output.raw = std::string_view(static_cast<const char*>(tensor.data()), tensor.DataSize());
  } else if (v->IsType<StringHostTensor>()) {
    const StringHostTensor& tensor = v->get<StringHostTensor>();
    output.datatype = &BytesDatatype();
    output.shape = tensor.shape().dims();
    output.strings = tensor.values();
  } else if (v->IsType<std::string>()) {
    output.datatype = &BytesDatatype();
    output.strings = {v->get<std::string>()};
#define BEF_SCALAR_OUTPUT(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS) \
  }                                                                \
  else if (v->IsType<TYPE>()) {                                    \
    output.datatype = DatatypeOfDType(DTYPE), output.raw = BytesOf<TYPE>(v);
    BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_SCALAR_OUTPUT)
#undef BEF_SCALAR_OUTPUT
  } else {
    return absl::UnimplementedError(absl::StrCat("output '", spec.name, "' of type ",
                                                 spec.bef_type, " has no protocol form"));
  }
  output.value = std::move(value);
  return output;
}

absl::StatusOr<HttpInferRequest> DecodeHttpInferRequest(const LoadedModel& model,
                                                        std::shared_ptr<const std::string> body,
                                                        std::optional<size_t> json_length,
                                                        HostAllocator* allocator) {
  size_t header_size = json_length.value_or(body->size());
  if (header_size > body->size()) {
    return Refuse("Inference-Header-Content-Length is larger than the body");
  }
  // The form nearly every client sends, without a JSON tree; anything else
  // (errors included) is decoded below.
  if (std::optional<HttpInferRequest> compact =
          DecodeCompactInferRequest(model, body, header_size, allocator)) {
    return std::move(*compact);
  }
  // One pass: a tensor input's JSON data goes straight into its tensor.
  const std::vector<TensorSpec>& input_specs = model.inputs();
  auto is_tensor_input = [&input_specs](std::string_view name) {
    for (const TensorSpec& spec : input_specs) {
      if (spec.name == name) return spec.bef_type == kDenseHostTensorTypeName;
    }
    return false;
  };
  absl::StatusOr<InferRequestJson> parsed = ParseInferRequestJson(
      std::string_view(*body).substr(0, header_size), is_tensor_input, allocator);
  if (!parsed.ok()) return parsed.status();
  Json& request = parsed->body;
  std::vector<RCReference<AsyncValue>>& streamed = parsed->streamed;
  if (!request.is_object()) return Refuse("the body must be a JSON object with \"inputs\"");
  std::string_view binary = std::string_view(*body).substr(header_size);

  HttpInferRequest decoded;
  bool binary_outputs = false;
  if (Json* id = Field(request, "id")) {
    if (!id->is_string()) return Refuse("\"id\" must be a string");
    decoded.id = std::move(id->get_ref<std::string&>());
    decoded.has_id = true;
  }
  if (Json* parameters = Field(request, "parameters")) {
    if (!parameters->is_object()) return Refuse("\"parameters\" must be an object");
    if (const Json* timeout = Field(*parameters, "timeout_ms")) {
      if (!timeout->is_number() || timeout->is_boolean() || !(timeout->get<double>() > 0)) {
        return Refuse("parameter \"timeout_ms\" must be a positive number");
      }
      decoded.timeout = absl::Milliseconds(timeout->get<double>());
    }
    if (const Json* binary_output = Field(*parameters, "binary_data_output")) {
      if (!binary_output->is_boolean()) {
        return Refuse("parameter \"binary_data_output\" must be true or false");
      }
      binary_outputs = binary_output->get<bool>();
    }
  }
  Json* inputs = Field(request, "inputs");
  if (inputs == nullptr || !inputs->is_array()) return Refuse("\"inputs\" must be an array");
  const std::vector<TensorSpec>& specs = model.inputs();
  decoded.inputs.resize(specs.size());
  size_t binary_offset = 0;
  size_t position = 0;
  for (Json& input_json : *inputs) {
    const size_t at = position++;
    Json* name = input_json.is_object() ? Field(input_json, "name") : nullptr;
    Json* datatype = name != nullptr ? Field(input_json, "datatype") : nullptr;
    Json* shape = datatype != nullptr ? Field(input_json, "shape") : nullptr;
    if (name == nullptr || !name->is_string() || datatype == nullptr || !datatype->is_string() ||
        shape == nullptr || !shape->is_array()) {
      return Refuse("each input needs \"name\", \"datatype\" and \"shape\"");
    }
    InputTensor input;
    input.name = std::move(name->get_ref<std::string&>());
    BEF_ASSIGN_OR_RETURN(const size_t index, BindInput(model, input.name, decoded.inputs));
    BEF_ASSIGN_OR_RETURN(input.datatype, ResolveDatatype(datatype->get_ref<const std::string&>(),
                                                         absl::StrCat("input '", input.name, "'")));
    input.shape.reserve(shape->size());
    for (const Json& dim : *shape) {
      if (!dim.is_number_integer()) return Refuse("shapes are arrays of integers");
      input.shape.push_back(dim.get<int64_t>());
    }
    std::optional<uint64_t> binary_size;
    Json* parameters = Field(input_json, "parameters");
    if (const Json* size = parameters != nullptr && parameters->is_object()
                               ? Field(*parameters, "binary_data_size")
                               : nullptr) {
      if (!size->is_number_unsigned()) return Refuse("\"binary_data_size\" must be a size");
      binary_size = size->get<uint64_t>();
    }
    Json* data = Field(input_json, "data");
    if (binary_size) {
      if (data != nullptr) {
        return Refuse(absl::StrCat("input '", input.name, "' has both data and binary data"));
      }
      if (*binary_size > binary.size() - binary_offset) {
        return Refuse(absl::StrCat("input '", input.name,
                                   "' has more binary data than the body holds"));
      }
      input.raw = binary.substr(binary_offset, *binary_size);
      input.raw_owner = body;
      binary_offset += *binary_size;
    } else {
      if (data == nullptr) return Refuse(absl::StrCat("input '", input.name, "' has no data"));
      input.json_data = data;
      if (at < streamed.size() && streamed[at]) input.streamed = std::move(streamed[at]);
    }
    absl::StatusOr<RCReference<AsyncValue>> value = DecodeInput(specs[index], input, allocator);
    if (!value.ok()) return value.status();
    decoded.inputs[index] = std::move(*value);
  }
  if (binary_offset != binary.size()) {
    return Refuse("the body has binary data no input claims");
  }
  BEF_RETURN_IF_ERROR(CheckEveryInputBound(model, decoded.inputs));
  const std::vector<TensorSpec>& outputs = model.outputs();
  if (const Json* requested = Field(request, "outputs")) {
    if (!requested->is_array()) return Refuse("\"outputs\" must be an array");
    for (const Json& output : *requested) {
      const Json* name = output.is_object() ? Field(output, "name") : nullptr;
      if (name == nullptr || !name->is_string()) {
        return Refuse("each requested output needs a \"name\"");
      }
      BEF_RETURN_IF_ERROR(BindOutput(model, name->get_ref<const std::string&>(), decoded.outputs));
      bool binary_output = binary_outputs;
      const Json* parameters = Field(output, "parameters");
      if (const Json* binary_data = parameters != nullptr && parameters->is_object()
                                        ? Field(*parameters, "binary_data")
                                        : nullptr) {
        if (!binary_data->is_boolean()) {
          return Refuse("parameter \"binary_data\" must be true or false");
        }
        binary_output = binary_data->get<bool>();
      }
      decoded.binary_outputs.push_back(binary_output);
    }
  } else {
    decoded.outputs.reserve(outputs.size());
    decoded.binary_outputs.reserve(outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      decoded.outputs.push_back(i);
      decoded.binary_outputs.push_back(binary_outputs);
    }
  }
  return decoded;
}

uint64_t AnswerBytesBound(const OutputTensor& output, bool binary) {
  uint64_t bound = 128 + 2 * output.name.size() + 21 * output.shape.size();
  for (const std::string& element : output.strings) bound += 6 * element.size() + 4 + 3;
  if (output.datatype->bytes) return bound;
  if (binary) return bound + output.raw.size();
  switch (output.datatype->dtype) {
#define BEF_TEXT_BOUND(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS) \
  case DTYPE:                                                   \
    return bound +                                              \
           output.raw.size() / sizeof(TYPE) * std::max<uint64_t>(LongestElementText<TYPE>(), 10);
    BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_TEXT_BOUND)
#undef BEF_TEXT_BOUND
    default:
      return bound + output.raw.size() * 26;
  }
}

absl::Status ReserveAnswerBytes(ByteBudget& budget, uint64_t bound, uint64_t total,
                                ByteBudget::Reservation& reservation, std::string_view remedy) {
  if (reservation.Grow(budget, bound)) return absl::OkStatus();
  if (total > budget.limit()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the answer would take up to ", total, " bytes, more than the server's limit of ",
        budget.limit(), " (--max_response_bytes)", remedy.empty() ? "" : ": ", ToAbsl(remedy)));
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "the server holds its limit of ", budget.limit(),
      " bytes of answers being written (--max_response_bytes); try again"));
}

absl::StatusOr<HttpInferResponse> EncodeHttpInferResponse(
    const LoadedModel& model, const HttpInferRequest& request,
    std::vector<RCReference<AsyncValue>> outputs, ByteBudget& budget) {
  // Written as text, no tree, keys in the order nlohmann's (sorted) objects
  // print them: {"id", "model_name", "model_version", "outputs": [{"data",
  // "datatype", "name", "parameters", "shape"}]}; an output's "data" goes
  // straight from the tensor into the body.
  HttpInferResponse encoded;
  std::string& body = encoded.body;
  uint64_t total_bound = 256 + request.id.size() * 6 + model.name().size();
  BEF_RETURN_IF_ERROR(
      ReserveAnswerBytes(budget, total_bound, total_bound, encoded.reservation, kFewerOutputs));
  body.push_back('{');
  if (request.has_id) {
    body.append("\"id\":");
    AppendJsonString(request.id, &body);
    body.push_back(',');
  }
  body.append("\"model_name\":");
  AppendJsonString(model.name(), &body);
  body.append(",\"model_version\":\"");
  absl::StrAppend(&body, model.version());
  body.append("\",\"outputs\":[");
  std::string binary;
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    size_t index = request.outputs[i];
    absl::StatusOr<OutputTensor> output =
        DescribeOutput(model.outputs()[index], outputs[index].CopyRef());
    if (!output.ok()) return output.status();
    const uint64_t bound = AnswerBytesBound(*output, request.binary_outputs[i]);
    total_bound += bound;
    BEF_RETURN_IF_ERROR(
        ReserveAnswerBytes(budget, bound, total_bound, encoded.reservation, kFewerOutputs));
    if (i > 0) body.push_back(',');
    body.push_back('{');
    size_t binary_size = 0;
    if (request.binary_outputs[i]) {
      size_t before = binary.size();
      AppendRawOutput(*output, &binary);
      binary_size = binary.size() - before;
    } else {
      // JSON strings are Unicode: bytes that are not UTF-8 cannot travel
      // in them without being changed, so they are refused.
      for (size_t e = 0; e < output->strings.size(); ++e) {
        if (!IsUtf8(output->strings[e])) {
          return Refuse(absl::StrCat(
              "output '", output->name, "' element ", e,
              " is not valid UTF-8, which JSON cannot carry: ask for the output as binary data "
              "(\"parameters\": {\"binary_data\": true})"));
        }
      }
      body.append("\"data\":");
      AppendDataText(*output, &body);
      body.push_back(',');
    }
    body.append("\"datatype\":");
    AppendJsonString(output->datatype->name, &body);
    body.append(",\"name\":");
    AppendJsonString(output->name, &body);
    if (request.binary_outputs[i]) {
      absl::StrAppend(&body, ",\"parameters\":{\"binary_data_size\":", binary_size, "}");
    }
    body.append(",\"shape\":[");
    for (size_t d = 0; d < output->shape.size(); ++d) {
      if (d > 0) body.push_back(',');
      absl::StrAppend(&body, output->shape[d]);
    }
    body.append("]}");
  }
  body.append("]}");
  if (!binary.empty() || std::find(request.binary_outputs.begin(), request.binary_outputs.end(),
                                   true) != request.binary_outputs.end()) {
    encoded.json_length = encoded.body.size();
    encoded.body += binary;
  }
  encoded.reservation.ShrinkTo(encoded.body.size());
  return encoded;
}

std::string ModelMetadataJson(const LoadedModel& model, const std::vector<int64_t>& versions) {
  auto tensors = [](const std::vector<TensorSpec>& specs) {
    Json list = Json::array();
    for (const TensorSpec& spec : specs) {
      list.push_back({{"name", spec.name},
                      {"datatype", std::string(DatatypeName(spec.datatype))},
                      {"shape", spec.shape}});
    }
    return list;
  };
  Json version_names = Json::array();
  for (int64_t version : versions) version_names.push_back(std::to_string(version));
  return DumpJson(Json{{"name", model.name()},
                       {"versions", std::move(version_names)},
                       {"platform", "bef"},
                       {"inputs", tensors(model.inputs())},
                       {"outputs", tensors(model.outputs())}});
}

std::string ProtocolErrorJson(std::string_view message) {
  return DumpJson(Json{{"error", std::string(message)}});
}

}  // namespace bef::serving
