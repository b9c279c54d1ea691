#include "tools/serving/compact_infer_request.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <system_error>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/time/time.h"
#include "tools/serving/json_codec.h"
#include "tools/serving/protocol_datatypes.h"

namespace bef::serving {
namespace {

// More data elements than this, over all inputs, are left to the general
// decoder, which streams them into their tensors. A shape read before its
// data that claims more hands the request over before the data is scanned,
// so a large JSON tensor costs this reader a few bytes, not 4,096 numbers.
constexpr size_t kMostElements = 4096;
// More inputs or outputs than this are left to the general decoder.
constexpr size_t kMostTensors = 16;

// A JSON number as RapidJSON reports it to the general decoder: an integer
// token as signed (negative) or unsigned, anything with a fraction or an
// exponent as a double.
struct Number {
  enum class Kind : uint8_t { kSigned, kUnsigned, kDouble, kTrue, kFalse } kind;
  union {
    int64_t signed_value;
    uint64_t unsigned_value;
    double double_value;
  };
};

// One pass over the JSON text; every method returns false when the text is
// not what the compact form allows there.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : at_(text.data()), end_(text.data() + text.size()) {}

  bool AtEnd() {
    SkipSpace();
    return at_ == end_;
  }
  bool Take(char c) {
    SkipSpace();
    if (at_ == end_ || *at_ != c) return false;
    ++at_;
    return true;
  }
  bool Next(char c) {
    SkipSpace();
    return at_ != end_ && *at_ == c;
  }
  // A string of printable ASCII without escapes.
  bool String(std::string_view* out) {
    if (!Take('"')) return false;
    const char* start = at_;
    while (at_ != end_ && *at_ != '"') {
      const unsigned char c = static_cast<unsigned char>(*at_);
      if (c < 0x20 || c > 0x7e || c == '\\') return false;
      ++at_;
    }
    if (at_ == end_) return false;
    *out = std::string_view(start, static_cast<size_t>(at_ - start));
    ++at_;
    return true;
  }
  // A number in JSON's strict grammar, or true / false.
  bool Value(Number* out) {
    SkipSpace();
    if (Word("true")) {
      out->kind = Number::Kind::kTrue;
      return true;
    }
    if (Word("false")) {
      out->kind = Number::Kind::kFalse;
      return true;
    }
    const char* start = at_;
    const bool negative = at_ != end_ && *at_ == '-';
    if (negative) ++at_;
    if (at_ == end_ || !IsDigit(*at_)) return false;
    if (*at_ == '0') {
      ++at_;
    } else {
      while (at_ != end_ && IsDigit(*at_)) ++at_;
    }
    bool integer = true;
    if (at_ != end_ && *at_ == '.') {
      integer = false;
      ++at_;
      if (at_ == end_ || !IsDigit(*at_)) return false;
      while (at_ != end_ && IsDigit(*at_)) ++at_;
    }
    if (at_ != end_ && (*at_ == 'e' || *at_ == 'E')) {
      integer = false;
      ++at_;
      if (at_ != end_ && (*at_ == '+' || *at_ == '-')) ++at_;
      if (at_ == end_ || !IsDigit(*at_)) return false;
      while (at_ != end_ && IsDigit(*at_)) ++at_;
    }
    std::from_chars_result read;
    if (!integer) {
      out->kind = Number::Kind::kDouble;
      read = std::from_chars(start, at_, out->double_value);
    } else if (negative) {
      // "-0": which kind RapidJSON reports is its own affair; left to it.
      if (at_ - start == 2 && start[1] == '0') return false;
      out->kind = Number::Kind::kSigned;
      read = std::from_chars(start, at_, out->signed_value);
    } else {
      out->kind = Number::Kind::kUnsigned;
      read = std::from_chars(start, at_, out->unsigned_value);
    }
    // Out of 64 bits (RapidJSON then reads a double) or of a double's range.
    return read.ec == std::errc() && read.ptr == at_;
  }

 private:
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
  void SkipSpace() {
    while (at_ != end_ && (*at_ == ' ' || *at_ == '\t' || *at_ == '\n' || *at_ == '\r')) ++at_;
  }
  bool Word(std::string_view word) {
    if (static_cast<size_t>(end_ - at_) < word.size() ||
        std::memcmp(at_, word.data(), word.size()) != 0) {
      return false;
    }
    at_ += word.size();
    return true;
  }

  const char* at_;
  const char* end_;
};

// Reads an object's members: `member(key)` reads the value of each key (a
// key given twice, which the general decoder refuses, leaves the object to
// it: `seen` is a bit per key the caller numbers).
template <typename Member>
bool Object(Cursor& cursor, Member member) {
  if (!cursor.Take('{')) return false;
  if (cursor.Take('}')) return true;
  uint32_t seen = 0;
  do {
    std::string_view key;
    if (!cursor.String(&key) || !cursor.Take(':')) return false;
    const int bit = member(key);
    if (bit < 0 || (seen & (1u << bit)) != 0) return false;
    seen |= 1u << bit;
  } while (cursor.Take(','));
  return cursor.Take('}');
}

template <typename Element>
bool Array(Cursor& cursor, Element element) {
  if (!cursor.Take('[')) return false;
  if (cursor.Take(']')) return true;
  do {
    if (!element()) return false;
  } while (cursor.Take(','));
  return cursor.Take(']');
}

bool Boolean(Cursor& cursor, bool* out) {
  Number value;
  if (!cursor.Value(&value)) return false;
  if (value.kind != Number::Kind::kTrue && value.kind != Number::Kind::kFalse) return false;
  *out = value.kind == Number::Kind::kTrue;
  return true;
}

struct CompactInput {
  std::string_view name;
  std::string_view datatype;
  absl::InlinedVector<int64_t, 4> shape;
  bool has_shape = false;
  bool has_data = false;
  std::optional<uint64_t> binary_size;
  absl::InlinedVector<Number, 4> data;
};

struct CompactOutput {
  std::string_view name;
  std::optional<bool> binary;
};

struct CompactRequest {
  std::optional<std::string_view> id;
  std::optional<double> timeout_ms;
  bool binary_data_output = false;
  absl::InlinedVector<CompactInput, 4> inputs;
  std::optional<absl::InlinedVector<CompactOutput, 4>> outputs;
};

// `elements_left` is the request's element budget (kMostElements over all
// inputs); the input's data takes from it.
bool ReadInput(Cursor& cursor, CompactInput& input, size_t& elements_left) {
  bool named = false, typed = false;
  const bool read = Object(cursor, [&](std::string_view key) -> int {
    if (key == "name") {
      named = cursor.String(&input.name);
      return named ? 0 : -1;
    }
    if (key == "datatype") {
      typed = cursor.String(&input.datatype);
      return typed ? 1 : -1;
    }
    if (key == "shape") {
      input.has_shape = Array(cursor, [&] {
        Number dim;
        if (!cursor.Value(&dim) || input.shape.size() >= 32) return false;
        if (dim.kind == Number::Kind::kSigned) {
          input.shape.push_back(dim.signed_value);
        } else if (dim.kind == Number::Kind::kUnsigned &&
                   dim.unsigned_value <= static_cast<uint64_t>(INT64_MAX)) {
          input.shape.push_back(static_cast<int64_t>(dim.unsigned_value));
        } else {
          return false;
        }
        return true;
      });
      return input.has_shape ? 2 : -1;
    }
    if (key == "data") {
      if (input.has_shape) {
        // The shape came first (as clients write it): a tensor over the
        // budget is known before its data (a zero anywhere in the shape
        // makes it empty, however large the dimensions before it).
        uint64_t count = 1;
        bool over = false, empty = false;
        for (int64_t dim : input.shape) {
          if (dim < 0) return -1;
          empty |= dim == 0;
          over |= __builtin_mul_overflow(count, static_cast<uint64_t>(dim), &count) ||
                  count > elements_left;
        }
        if (over && !empty) return -1;
      }
      input.has_data = Array(cursor, [&] {
        if (elements_left == 0) return false;
        --elements_left;
        return cursor.Value(&input.data.emplace_back());
      });
      return input.has_data ? 3 : -1;
    }
    if (key == "parameters") {
      const bool parameters = Object(cursor, [&](std::string_view parameter) -> int {
        Number size;
        if (parameter != "binary_data_size" || !cursor.Value(&size) ||
            size.kind != Number::Kind::kUnsigned) {
          return -1;
        }
        input.binary_size = size.unsigned_value;
        return 0;
      });
      return parameters ? 4 : -1;
    }
    return -1;
  });
  return read && named && typed && input.has_shape;
}

bool ReadOutput(Cursor& cursor, CompactOutput& output) {
  bool named = false;
  const bool read = Object(cursor, [&](std::string_view key) -> int {
    if (key == "name") {
      named = cursor.String(&output.name);
      return named ? 0 : -1;
    }
    if (key == "parameters") {
      const bool parameters = Object(cursor, [&](std::string_view parameter) -> int {
        bool binary;
        if (parameter != "binary_data" || !Boolean(cursor, &binary)) return -1;
        output.binary = binary;
        return 0;
      });
      return parameters ? 1 : -1;
    }
    return -1;
  });
  return read && named;
}

bool ReadRequest(std::string_view text, CompactRequest& request) {
  Cursor cursor(text);
  size_t elements_left = kMostElements;
  const bool read = Object(cursor, [&](std::string_view key) -> int {
    if (key == "id") {
      std::string_view id;
      if (!cursor.String(&id)) return -1;
      request.id = id;
      return 0;
    }
    if (key == "inputs") {
      return Array(cursor,
                   [&] {
                     return request.inputs.size() < kMostTensors &&
                            ReadInput(cursor, request.inputs.emplace_back(), elements_left);
                   })
                 ? 1
                 : -1;
    }
    if (key == "outputs") {
      auto& outputs = request.outputs.emplace();
      return Array(cursor,
                   [&] {
                     return outputs.size() < kMostTensors &&
                            ReadOutput(cursor, outputs.emplace_back());
                   })
                 ? 2
                 : -1;
    }
    if (key == "parameters") {
      const bool parameters = Object(cursor, [&](std::string_view parameter) -> int {
        if (parameter == "timeout_ms") {
          Number timeout;
          if (!cursor.Value(&timeout)) return -1;
          double milliseconds;
          switch (timeout.kind) {
            case Number::Kind::kSigned:
              milliseconds = static_cast<double>(timeout.signed_value);
              break;
            case Number::Kind::kUnsigned:
              milliseconds = static_cast<double>(timeout.unsigned_value);
              break;
            case Number::Kind::kDouble:
              milliseconds = timeout.double_value;
              break;
            default:
              return -1;
          }
          if (!(milliseconds > 0)) return -1;
          request.timeout_ms = milliseconds;
          return 0;
        }
        if (parameter == "binary_data_output") {
          return Boolean(cursor, &request.binary_data_output) ? 1 : -1;
        }
        return -1;
      });
      return parameters ? 3 : -1;
    }
    return -1;
  });
  return read && cursor.AtEnd() && !request.inputs.empty();
}

// The data's elements in the raw layout of `datatype`, stored as the
// general decoder stores them; false for anything it would refuse.
bool RawElements(const ProtocolDatatype& datatype, const CompactInput& input, std::string* raw) {
  if (datatype.bytes) return false;
  const size_t size = DTypeSize(datatype.dtype);
  raw->resize(input.data.size() * size);
  if (datatype.dtype == DType::kI1) {
    for (size_t i = 0; i < input.data.size(); ++i) {
      const Number::Kind kind = input.data[i].kind;
      if (kind != Number::Kind::kTrue && kind != Number::Kind::kFalse) return false;
      (*raw)[i] = kind == Number::Kind::kTrue ? 1 : 0;
    }
    return true;
  }
  const NumberStores stores = NumberStoresFor(datatype.dtype);
  if (stores.from_signed == nullptr) return false;
  for (size_t i = 0; i < input.data.size(); ++i) {
    const Number& number = input.data[i];
    bool stored = false;
    switch (number.kind) {
      case Number::Kind::kSigned:
        stored = stores.from_signed(raw->data(), i, number.signed_value);
        break;
      case Number::Kind::kUnsigned:
        stored = stores.from_unsigned(raw->data(), i, number.unsigned_value);
        break;
      case Number::Kind::kDouble:
        stored = stores.from_double(raw->data(), i, number.double_value);
        break;
      default:
        break;
    }
    if (!stored) return false;
  }
  return true;
}

}  // namespace

std::optional<HttpInferRequest> DecodeCompactInferRequest(
    const LoadedModel& model, const std::shared_ptr<const std::string>& body, size_t json_length,
    HostAllocator* allocator) {
  CompactRequest compact;
  if (!ReadRequest(std::string_view(*body).substr(0, json_length), compact)) return std::nullopt;
  const std::string_view binary = std::string_view(*body).substr(json_length);

  HttpInferRequest decoded;
  if (compact.id) {
    decoded.id = std::string(*compact.id);
    decoded.has_id = true;
  }
  if (compact.timeout_ms) decoded.timeout = absl::Milliseconds(*compact.timeout_ms);
  const std::vector<TensorSpec>& specs = model.inputs();
  decoded.inputs.resize(specs.size());
  size_t binary_offset = 0;
  std::string raw;
  for (const CompactInput& given : compact.inputs) {
    absl::StatusOr<size_t> index = BindInput(model, given.name, decoded.inputs);
    if (!index.ok()) return std::nullopt;
    const ProtocolDatatype* datatype = FindDatatype(given.datatype);
    if (datatype == nullptr) return std::nullopt;
    InputTensor input;
    input.name = std::string(given.name);
    input.datatype = datatype;
    input.shape.assign(given.shape.begin(), given.shape.end());
    if (given.binary_size) {
      if (given.has_data || *given.binary_size > binary.size() - binary_offset) {
        return std::nullopt;
      }
      input.raw = binary.substr(binary_offset, *given.binary_size);
      input.raw_owner = body;
      binary_offset += *given.binary_size;
    } else {
      if (!given.has_data || !RawElements(*datatype, given, &raw)) return std::nullopt;
      // The count the shape needs (the general decoder's own message
      // otherwise).
      int64_t count = 1;
      for (int64_t dim : given.shape) {
        if (dim < 0 || __builtin_mul_overflow(count, dim, &count)) return std::nullopt;
      }
      if (static_cast<uint64_t>(count) != given.data.size()) return std::nullopt;
      input.raw = raw;  // copied into the value (no owner)
    }
    absl::StatusOr<RCReference<AsyncValue>> value = DecodeInput(specs[*index], input, allocator);
    if (!value.ok()) return std::nullopt;
    decoded.inputs[*index] = std::move(*value);
  }
  if (binary_offset != binary.size() || !CheckEveryInputBound(model, decoded.inputs).ok()) {
    return std::nullopt;
  }
  if (compact.outputs) {
    for (const CompactOutput& output : *compact.outputs) {
      if (!BindOutput(model, output.name, decoded.outputs).ok()) return std::nullopt;
      decoded.binary_outputs.push_back(output.binary.value_or(compact.binary_data_output));
    }
  } else {
    const size_t outputs = model.outputs().size();
    decoded.outputs.reserve(outputs);
    decoded.binary_outputs.assign(outputs, compact.binary_data_output);
    for (size_t i = 0; i < outputs; ++i) decoded.outputs.push_back(i);
  }
  return decoded;
}

}  // namespace bef::serving
