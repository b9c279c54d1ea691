#include "tools/serving/json_codec.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/function_run.h"
#include "bef/kernels/kernel_types.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"
#include "bef/tensor/sparse_and_string_tensors.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/reader.h"
#include "tools/serving/protocol_datatypes.h"

namespace bef {
namespace {

// The /v1/ API's tensor dtypes are the BEF scalar types of the protocol's
// numeric datatypes ("f32"): one table (protocol_datatypes.h).
using DTypeInfo = serving::ProtocolDatatype;

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
  if (value.is_number() && !value.is_boolean()) {
    // A finite number the type cannot hold is refused, as an integer out of
    // range is (never silently infinite).
    double number = value.get<double>();
    T narrowed = static_cast<T>(number);
    if (std::isfinite(number) && !std::isfinite(narrowed)) return Refuse(what, " is out of range");
    return narrowed;
  }
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

// What a tensor argument's "dtype" and "shape" say: its dtype (`dtype`
// unset for string tensors), shape and element count.
struct TensorHeader {
  const DTypeInfo* dtype = nullptr;
  TensorShape shape;
  int64_t count = 1;
};

absl::StatusOr<TensorHeader> TensorHeaderFrom(const Json& value, const std::string& what) {
  const Json& dtype_json = value["dtype"];
  const Json& shape_json = value["shape"];
  if (!dtype_json.is_string()) return Refuse(what, " dtype must be a string");
  const std::string& dtype_name = dtype_json.get_ref<const std::string&>();
  if (!shape_json.is_array()) return Refuse(what, " shape must be an array");
  TensorHeader header;
  std::vector<int64_t> dims;
  for (const Json& dim : shape_json) {
    BEF_ASSIGN_OR_RETURN(int64_t d, IntegerFrom<int64_t>(dim, absl::StrCat(what, " dimension")));
    if (d < 0) return Refuse(what, " dimensions must not be negative");
    if (__builtin_mul_overflow(header.count, d, &header.count)) {
      return Refuse(what, " shape is too large");
    }
    dims.push_back(d);
  }
  header.shape = TensorShape(std::move(dims));
  if (dtype_name == "string") return header;
  const DTypeInfo* datatype = serving::DatatypeOfBefScalar(dtype_name);
  if (datatype != nullptr && !datatype->bytes) header.dtype = datatype;
  if (header.dtype == nullptr) {
    std::string names;
    for (const DTypeInfo& candidate : serving::ProtocolDatatypes()) {
      if (!candidate.bytes) absl::StrAppend(&names, ToAbsl(candidate.bef_scalar), ", ");
    }
    return Refuse(what, absl::StrCat(" has an unsupported dtype '", dtype_name, "' (", names,
                                     "string)"));
  }
  return header;
}

// Stores element `index` of a dense tensor from its JSON value; on a bad
// value, the problem (" must be an integer") without the element's name.
using ElementStore = absl::Status (*)(void* data, size_t index, const Json& value);

template <typename T>
absl::Status StoreElement(void* data, size_t index, const Json& value) {
  static const std::string kNoName;
  BEF_ASSIGN_OR_RETURN(static_cast<T*>(data)[index], ScalarFrom<T>(value, kNoName));
  return absl::OkStatus();
}

ElementStore ElementStoreFor(DType dtype) {
#define BEF_ELEMENT_STORE(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS) \
  if (dtype == DTYPE) return &StoreElement<TYPE>;
  BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_ELEMENT_STORE)
#undef BEF_ELEMENT_STORE
  return nullptr;
}

template <typename T, typename Integer>
bool StoreInteger(void* data, size_t index, Integer value) {
  if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else if constexpr (std::is_floating_point_v<T>) {
    static_cast<T*>(data)[index] = static_cast<T>(static_cast<double>(value));
    return true;
  } else {
    if (!std::in_range<T>(value)) return false;
    static_cast<T*>(data)[index] = static_cast<T>(value);
    return true;
  }
}

template <typename T>
bool StoreDouble(void* data, size_t index, double value) {
  if constexpr (std::is_floating_point_v<T>) {
    const T narrowed = static_cast<T>(value);
    if (std::isfinite(value) && !std::isfinite(narrowed)) return false;  // out of range
    static_cast<T*>(data)[index] = narrowed;
    return true;
  } else {
    return false;
  }
}

absl::Status ElementError(const std::string& what, size_t index, const absl::Status& problem) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " value ", index, problem.message()));
}

absl::Status CountError(const std::string& what, uint64_t have, int64_t need,
                        std::string_view elements = "values") {
  return Refuse(what, absl::StrCat(" has ", have, " ", ToAbsl(elements), ", its shape needs ", need));
}

// A tensor argument being filled element by element: a dense tensor's
// buffer, or a string tensor's strings.
class TensorFiller {
 public:
  // `most_elements`: how many elements the rest of the text can hold at
  // most (a shape that claims more is refused before anything is
  // allocated for it).
  static absl::StatusOr<TensorFiller> Start(TensorHeader header, HostAllocator* allocator,
                                            const std::string& what,
                                            int64_t most_elements = INT64_MAX) {
    if (header.count > most_elements) {
      return Refuse(what, absl::StrCat(" has shape ", header.shape.ToString(), " of ",
                                       header.count, " elements; the body holds at most ",
                                       most_elements));
    }
    TensorFiller filler;
    filler.what_ = what;
    filler.count_ = header.count;
    if (header.dtype == nullptr) {
      filler.shape_ = std::move(header.shape);
      filler.strings_.reserve(static_cast<size_t>(std::min<int64_t>(header.count, 1 << 20)));
      return filler;
    }
    RCReference<HostBuffer> buffer =
        DenseHostTensor::AllocateBuffer(allocator, header.dtype->dtype, header.shape);
    if (!buffer) return Refuse(what, " cannot be allocated");
    filler.dense_.emplace(header.dtype->dtype, std::move(header.shape), std::move(buffer));
    filler.store_ = ElementStoreFor(header.dtype->dtype);
    filler.number_stores_ = NumberStoresFor(header.dtype->dtype);
    return filler;
  }

  // A number element as the parser read it: stored at once when the
  // tensor's type holds it; anything else through Add (the same checks
  // and messages).
  absl::Status AddSigned(int64_t value) { return AddNumber(number_stores_.from_signed, value); }
  absl::Status AddUnsigned(uint64_t value) {
    return AddNumber(number_stores_.from_unsigned, value);
  }
  absl::Status AddDouble(double value) { return AddNumber(number_stores_.from_double, value); }

  absl::Status Add(const Json& value) {
    uint64_t index = received_++;
    if (index >= static_cast<uint64_t>(count_)) return absl::OkStatus();  // counted only
    if (!dense_) {
      if (!value.is_string()) return Refuse(what_, " values must be strings");
      strings_.push_back(value.get<std::string>());
      return absl::OkStatus();
    }
    absl::Status stored = store_(dense_->writable_data(), index, value);
    if (!stored.ok()) return ElementError(what_, index, stored);
    return absl::OkStatus();
  }

  template <typename Number>
  absl::Status AddNumber(bool (*store)(void* data, size_t index, Number value), Number value) {
    if (dense_ && received_ < static_cast<uint64_t>(count_) &&
        store(dense_->writable_data(), received_, value)) {
      ++received_;
      return absl::OkStatus();
    }
    return Add(Json(value));
  }

  // The tensor's dimensions.
  std::span<const int64_t> dims() const {
    return dense_ ? std::span<const int64_t>(dense_->shape().dims())
                  : std::span<const int64_t>(shape_.dims());
  }

  // What errors call the elements ("values" in /v1/, "data elements" in
  // the protocol's form).
  void set_element_noun(std::string_view noun) { element_noun_ = noun; }

  absl::StatusOr<RCReference<AsyncValue>> Finish() {
    if (received_ != static_cast<uint64_t>(count_)) {
      return CountError(what_, received_, count_, element_noun_);
    }
    if (!dense_) {
      return MakeAvailableAsyncValueRef<StringHostTensor>(std::move(shape_), std::move(strings_))
          .ReleaseRCRef();
    }
    return MakeAvailableAsyncValueRef<DenseHostTensor>(std::move(*dense_)).ReleaseRCRef();
  }

 private:
  std::string what_;
  std::string_view element_noun_ = "values";
  int64_t count_ = 0;
  uint64_t received_ = 0;
  std::optional<DenseHostTensor> dense_;
  ElementStore store_ = nullptr;
  NumberStores number_stores_;
  TensorShape shape_;
  std::vector<std::string> strings_;
};

absl::StatusOr<RCReference<AsyncValue>> TensorFrom(const Json& value,
                                                   HostAllocator* allocator,
                                                   const std::string& what) {
  if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") ||
      !value.contains("values")) {
    return Refuse(what, " must be a tensor: {\"dtype\", \"shape\", \"values\"}");
  }
  BEF_ASSIGN_OR_RETURN(TensorHeader header, TensorHeaderFrom(value, what));
  const Json& values = value["values"];
  if (!values.is_array()) return Refuse(what, " values must be an array");
  if (static_cast<uint64_t>(header.count) != values.size()) {
    return CountError(what, values.size(), header.count);
  }
  BEF_ASSIGN_OR_RETURN(TensorFiller filler, TensorFiller::Start(std::move(header), allocator, what));
  for (const Json& element : values) BEF_RETURN_IF_ERROR(filler.Add(element));
  return filler.Finish();
}

template <typename T>
absl::StatusOr<RCReference<AsyncValue>> ScalarValueFrom(const Json& value,
                                                        const std::string& what) {
  BEF_ASSIGN_OR_RETURN(T scalar, ScalarFrom<T>(value, what));
  return MakeAvailableAsyncValueRef<T>(scalar).ReleaseRCRef();
}

}  // namespace

absl::StatusOr<RCReference<AsyncValue>> ArgumentFromJson(std::string_view type,
                                                         const Json& value,
                                                         HostAllocator* allocator,
                                                         const std::string& what) {
#define BEF_SCALAR_FROM_JSON(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS) \
  if (type == BEF_SCALAR) return ScalarValueFrom<TYPE>(value, what);
  BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_SCALAR_FROM_JSON)
#undef BEF_SCALAR_FROM_JSON
  if (type == BefTypeName<std::string>::value) {
    if (!value.is_string()) return Refuse(what, " must be a string");
    return MakeAvailableAsyncValueRef<std::string>(value.get<std::string>()).ReleaseRCRef();
  }
  if (type == kChainTypeName) {
    if (!value.is_null()) return Refuse(what, " (a chain) must be null");
    return MakeAvailableAsyncValueRef<Chain>().ReleaseRCRef();
  }
  if (type == kDenseHostTensorTypeName) return TensorFrom(value, allocator, what);
  return Refuse(what, absl::StrCat(" has type ", ToAbsl(type), ", which requests cannot supply"));
}

NumberStores NumberStoresFor(DType dtype) {
#define BEF_NUMBER_STORES(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS)                            \
  if (dtype == DTYPE) {                                                                       \
    return {&StoreInteger<TYPE, int64_t>, &StoreInteger<TYPE, uint64_t>, &StoreDouble<TYPE>}; \
  }
  BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_NUMBER_STORES)
#undef BEF_NUMBER_STORES
  return {};
}

void DataNesting::OpenArray() {
  if (!open_.empty()) {
    ++open_.back().children;
    open_.back().arrays = true;
  }
  open_.push_back({});
}

absl::Status DataNesting::CloseArray() {
  const Open array = open_.back();
  open_.pop_back();
  const size_t depth = open_.size();
  auto ragged = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(what_, " data is ragged: ", why, " (shape ",
                                                   TensorShape(shape_).ToString(), ")"));
  };
  if (array.arrays && array.elements) {
    return ragged(absl::StrCat("an array at depth ", depth, " mixes arrays and elements"));
  }
  if (array.arrays) {
    if (depth >= shape_.size() || array.children != shape_[depth]) {
      return ragged(absl::StrCat("an array at depth ", depth, " holds ", array.children,
                                 " arrays"));
    }
    return absl::OkStatus();
  }
  if (innermost_depth_ < 0) innermost_depth_ = static_cast<int>(depth);
  if (static_cast<int>(depth) != innermost_depth_) {
    return ragged(absl::StrCat("elements at depths ", innermost_depth_, " and ", depth));
  }
  // Flat data: its count is checked against the shape's with the reader's
  // own message ("has 1 data elements, its shape needs 3").
  if (depth == 0) return absl::OkStatus();
  int64_t needed = 1;
  for (size_t d = depth; d < shape_.size(); ++d) {
    if (__builtin_mul_overflow(needed, shape_[d], &needed)) needed = -1;
  }
  if (array.children != needed) {
    return ragged(absl::StrCat("an array at depth ", depth, " holds ", array.children,
                               " elements"));
  }
  return absl::OkStatus();
}

namespace {

// The SAX reader of a request body: builds the JSON of the body, except
// that the elements of a tensor's values go straight into the tensor when
// what the tensor is came before them (as every client of the documented
// forms sends it), so a large tensor never exists as a JSON tree:
//   - kRunRequest (/v1/): "values" of args[i], a tensor argument whose
//     "dtype" and "shape" precede it; flat;
//   - kInferRequest (the protocol's JSON): "data" of inputs[i], a tensor
//     input (is_tensor_input) whose "name", "datatype" and "shape" precede
//     it; flat or nested as deep as the shape has dimensions.
// Refuses nesting deeper than kMaxJsonDepth while parsing.
class StreamingReader {
 public:
  enum class Form { kRunRequest, kInferRequest };

  StreamingReader(Form form, const std::vector<std::string_view>* argument_types,
                  const std::function<bool(std::string_view)>* is_tensor_input,
                  HostAllocator* allocator, size_t text_size)
      : most_elements_(static_cast<int64_t>(text_size / 2 + 1)),
        form_(form),
        argument_types_(argument_types),
        is_tensor_input_(is_tensor_input),
        allocator_(allocator) {}

  Json& body() { return body_; }
  const absl::Status& status() const { return status_; }
  // Per element of "args" or "inputs": the tensor its values were read
  // straight into, or null.
  std::vector<RCReference<AsyncValue>>& streamed() { return streamed_; }

  // --- nlohmann's SAX interface ---
  bool null() { return Value(Json(nullptr)); }
  bool boolean(bool value) { return Value(Json(value)); }
  // Numbers inside a streamed tensor's values go straight to the filler.
  bool number_integer(Json::number_integer_t value) {
    if (Streaming()) return Element() && Check(filler_->AddSigned(value));
    return Value(Json(value));
  }
  bool number_unsigned(Json::number_unsigned_t value) {
    if (Streaming()) return Element() && Check(filler_->AddUnsigned(value));
    return Value(Json(value));
  }
  bool number_float(Json::number_float_t value, const Json::string_t&) {
    if (Streaming()) return Element() && Check(filler_->AddDouble(value));
    return Value(Json(value));
  }
  bool string(Json::string_t& value) { return Value(Json(std::move(value))); }
  bool binary(Json::binary_t&) { return Fail(absl::InvalidArgumentError("the body is not valid JSON")); }
  bool key(Json::string_t& key) {
    levels_.back().key = std::move(key);
    return true;
  }
  bool start_object(size_t) { return Open(Json::object()); }
  bool end_object() { return Close(); }
  bool start_array(size_t) {
    if (filler_) return OpenNested();
    std::optional<Stream> stream = StreamStartingHere();
    if (!status_.ok()) return false;
    if (stream) return BeginStream(std::move(*stream));
    return Open(Json::array());
  }
  bool end_array() {
    if (filler_ && levels_.back().container == nullptr) {
      if (nested_ > 0) {
        --nested_;
        levels_.pop_back();
        return Check(nesting_->CloseArray());
      }
      return EndStream();
    }
    return Close();
  }

 private:
  struct Level {
    Json* container;  // nullptr: a streamed array (or one nested in it)
    std::string key;  // the pending key, in an object
  };
  // A tensor about to be streamed.
  struct Stream {
    TensorHeader header;
    std::string what;
    size_t index;       // in "args" or "inputs"
    size_t max_depth;   // arrays allowed inside the values, plus 1
    size_t rank = 0;
  };

  bool Fail(absl::Status status) {
    if (status_.ok()) status_ = std::move(status);
    return false;
  }
  bool Check(absl::Status status) { return status.ok() || Fail(std::move(status)); }
  // An element of the streamed data, for its nesting.
  bool Element() {
    nesting_->AddElement();
    return true;
  }
  // Whether values now go into the filler (inside a streamed array).
  bool Streaming() const { return !levels_.empty() && levels_.back().container == nullptr; }

  // Where a new value goes: the root, the end of an array, or the pending
  // key of an object.
  Json* Insert(Json&& value) {
    if (levels_.empty()) {
      body_ = std::move(value);
      return &body_;
    }
    Json& container = *levels_.back().container;
    if (container.is_array()) {
      container.push_back(std::move(value));
      return &container.back();
    }
    // A key said twice is refused: which one a reader takes differs from
    // reader to reader (nlohmann's tree took the last, the streamed path
    // the first).
    // (The key stays: the stream's checks read the keys of open levels.)
    auto [slot, inserted] =
        container.get_ref<Json::object_t&>().try_emplace(levels_.back().key, nullptr);
    if (!inserted) {
      Fail(absl::InvalidArgumentError(
          absl::StrCat("the body has the key '", EchoName(slot->first), "' twice in one object")));
      return nullptr;
    }
    slot->second = std::move(value);
    return &slot->second;
  }

  bool Value(Json&& value) {
    if (!levels_.empty() && levels_.back().container == nullptr) {
      Element();
      absl::Status added = filler_->Add(value);
      return added.ok() || Fail(std::move(added));
    }
    return Insert(std::move(value)) != nullptr;
  }

  bool Open(Json&& container) {
    if (levels_.size() >= static_cast<size_t>(kMaxJsonDepth)) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
          "the body nests arrays or objects more than ", kMaxJsonDepth, " levels deep")));
    }
    if (!levels_.empty() && levels_.back().container == nullptr) {
      return Fail(Refuse(filler_what_, " values must be numbers, booleans or strings"));
    }
    Json* inserted = Insert(std::move(container));
    if (inserted == nullptr) return false;
    levels_.push_back({inserted, {}});
    return true;
  }

  // An array inside streamed values: the nesting of the protocol's "data".
  bool OpenNested() {
    if (nested_ + 1 >= max_depth_) {
      if (form_ == Form::kRunRequest) {
        return Fail(Refuse(filler_what_, " values must be numbers, booleans or strings"));
      }
      return Fail(Refuse(filler_what_, absl::StrCat(" data is nested deeper than its shape's ",
                                                    rank_, " dimensions")));
    }
    ++nested_;
    nesting_->OpenArray();
    levels_.push_back({nullptr, {}});
    return true;
  }

  bool Close() {
    levels_.pop_back();
    return true;
  }

  // The stream that the array about to open starts, if it is one.
  std::optional<Stream> StreamStartingHere() {
    if (levels_.size() != 3) return std::nullopt;
    const Json& root = *levels_[0].container;
    const Json& list = *levels_[1].container;
    const Json& item = *levels_[2].container;
    if (!root.is_object() || !list.is_array() || !item.is_object()) return std::nullopt;
    Stream stream;
    stream.index = list.size() - 1;
    if (form_ == Form::kRunRequest) {
      if (levels_[0].key != "args" || levels_[2].key != "values" || !item.contains("dtype") ||
          !item.contains("shape") || item.contains("values") ||
          stream.index >= argument_types_->size() ||
          (*argument_types_)[stream.index] != kDenseHostTensorTypeName) {
        return std::nullopt;
      }
      stream.what = absl::StrCat("argument ", stream.index);
      absl::StatusOr<TensorHeader> header = TensorHeaderFrom(item, stream.what);
      if (!header.ok()) {
        Fail(header.status());
        return std::nullopt;
      }
      stream.header = std::move(*header);
      stream.max_depth = 1;
      return stream;
    }
    // The protocol's input: streamed only when everything about it is
    // known and well formed; anything else is left to the tree and the
    // checks that name the problem.
    // (Each key looked up once; the name first: most inputs of small
    // requests are scalars, not tensors.)
    if (levels_[0].key != "inputs" || levels_[2].key != "data") return std::nullopt;
    const auto name = item.find("name");
    if (name == item.end() || !name->is_string() ||
        !(*is_tensor_input_)(name->get_ref<const std::string&>())) {
      return std::nullopt;
    }
    const auto datatype_name = item.find("datatype");
    const auto shape = item.find("shape");
    if (datatype_name == item.end() || !datatype_name->is_string() || shape == item.end() ||
        !shape->is_array() || item.contains("data") || item.contains("parameters")) {
      return std::nullopt;
    }
    const serving::ProtocolDatatype* datatype =
        serving::FindDatatype(datatype_name->get_ref<const std::string&>());
    if (datatype == nullptr) return std::nullopt;
    std::vector<int64_t> dims;
    for (const Json& dim : *shape) {
      if (!dim.is_number_integer() || dim.get<int64_t>() < 0) return std::nullopt;
      if (__builtin_mul_overflow(stream.header.count, dim.get<int64_t>(), &stream.header.count)) {
        return std::nullopt;
      }
      dims.push_back(dim.get<int64_t>());
    }
    stream.max_depth = std::max<size_t>(dims.size(), 1);
    stream.rank = dims.size();
    stream.header.shape = TensorShape(std::move(dims));
    stream.header.dtype = datatype->bytes ? nullptr : datatype;
    stream.what = absl::StrCat("input '", name->get_ref<const std::string&>(), "'");
    return stream;
  }

  bool BeginStream(Stream stream) {
    if (!status_.ok()) return false;
    filler_what_ = stream.what;
    absl::StatusOr<TensorFiller> filler =
        TensorFiller::Start(std::move(stream.header), allocator_, filler_what_, most_elements_);
    if (!filler.ok()) return Fail(filler.status());
    filler_.emplace(std::move(*filler));
    nesting_.emplace(filler_->dims(), filler_what_);
    nesting_->OpenArray();
    if (form_ == Form::kInferRequest) filler_->set_element_noun("data elements");
    stream_index_ = stream.index;
    max_depth_ = stream.max_depth;
    rank_ = stream.rank;
    nested_ = 0;
    levels_.push_back({nullptr, {}});
    return true;
  }

  bool EndStream() {
    levels_.pop_back();
    if (!Check(nesting_->CloseArray())) return false;
    absl::StatusOr<RCReference<AsyncValue>> tensor = filler_->Finish();
    filler_.reset();
    if (!tensor.ok()) return Fail(tensor.status());
    if (streamed_.size() <= stream_index_) streamed_.resize(stream_index_ + 1);
    streamed_[stream_index_] = std::move(*tensor);
    // The tensor holds the values.
    (*levels_.back().container)[levels_.back().key] = Json::array();
    return true;
  }

  // Elements are separated by commas: a text of N bytes holds at most
  // N / 2 + 1 of them.
  const int64_t most_elements_;
  const Form form_;
  const std::vector<std::string_view>* argument_types_;
  const std::function<bool(std::string_view)>* is_tensor_input_;
  HostAllocator* allocator_;
  Json body_;
  std::vector<Level> levels_;
  absl::Status status_;
  std::vector<RCReference<AsyncValue>> streamed_;
  std::optional<TensorFiller> filler_;
  std::optional<DataNesting> nesting_;
  std::string filler_what_;
  size_t stream_index_ = 0;
  size_t max_depth_ = 1;
  size_t rank_ = 0;
  size_t nested_ = 0;
};

// RapidJSON's SAX events (its Reader: several times nlohmann's lexer on
// numbers, the bulk of tensor bodies; docs/serving.md "JSON") handed to a
// StreamingReader, which takes nlohmann's SAX interface. Integers arrive
// as nlohmann reports them: unsigned when not negative.
class RapidJsonEvents {
 public:
  explicit RapidJsonEvents(StreamingReader* reader) : reader_(reader) {}
  bool Null() { return reader_->null(); }
  bool Bool(bool value) { return reader_->boolean(value); }
  bool Int(int value) { return reader_->number_integer(value); }
  bool Uint(unsigned value) { return reader_->number_unsigned(value); }
  bool Int64(int64_t value) { return reader_->number_integer(value); }
  bool Uint64(uint64_t value) { return reader_->number_unsigned(value); }
  bool Double(double value) { return reader_->number_float(value, kNoText); }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return false; }  // not asked for
  bool String(const char* text, rapidjson::SizeType length, bool) {
    std::string value(text, length);
    return reader_->string(value);
  }
  bool StartObject() { return reader_->start_object(0); }
  bool Key(const char* text, rapidjson::SizeType length, bool) {
    std::string key(text, length);
    return reader_->key(key);
  }
  bool EndObject(rapidjson::SizeType) { return reader_->end_object(); }
  bool StartArray() { return reader_->start_array(0); }
  bool EndArray(rapidjson::SizeType) { return reader_->end_array(); }

 private:
  static inline const std::string kNoText;
  StreamingReader* reader_;
};

// Parses `text` into `reader`: strict JSON (one value, valid UTF-8, no NaN
// or Infinity literals), doubles correctly rounded, without recursion.
// False when the text is not JSON or the reader refused it.
bool ParseInto(std::string_view text, StreamingReader* reader) {
  rapidjson::MemoryStream stream(text.data(), text.size());
  RapidJsonEvents events(reader);
  rapidjson::Reader parser;
  constexpr unsigned kFlags = rapidjson::kParseValidateEncodingFlag |
                              rapidjson::kParseFullPrecisionFlag |
                              rapidjson::kParseIterativeFlag;
  return !parser.Parse<kFlags>(stream, events).IsError();
}

}  // namespace

absl::StatusOr<RunRequest> DecodeRunRequest(std::string_view body, std::string_view function_name,
                                            const std::vector<std::string_view>& argument_types,
                                            HostAllocator* allocator) {
  StreamingReader reader(StreamingReader::Form::kRunRequest, &argument_types, nullptr, allocator,
                         body.size());
  bool parsed = ParseInto(body, &reader);
  if (!reader.status().ok()) return reader.status();
  if (!parsed) return absl::InvalidArgumentError("the body is not valid JSON");
  reader.streamed().resize(argument_types.size());
  const Json& request = reader.body();
  if (!request.is_object()) {
    return absl::InvalidArgumentError("the body must be a JSON object with \"args\"");
  }
  for (const auto& [key, unused] : request.items()) {
    if (key != "args" && key != "deadline_ms") {
      return absl::InvalidArgumentError(absl::StrCat("unknown field '", key, "'"));
    }
  }
  static const Json kNoArguments = Json::array();
  const Json& args = request.contains("args") ? request["args"] : kNoArguments;
  if (!args.is_array()) return absl::InvalidArgumentError("\"args\" must be an array");
  if (args.size() != argument_types.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", ToAbsl(function_name), "' takes ", argument_types.size(),
                     " arguments, the request has ", args.size()));
  }
  RunRequest decoded;
  if (request.contains("deadline_ms")) {
    const Json& value = request["deadline_ms"];
    if (!value.is_number() || value.is_boolean() || !(value.get<double>() > 0)) {
      return absl::InvalidArgumentError("\"deadline_ms\" must be a positive number");
    }
    decoded.deadline = absl::Milliseconds(value.get<double>());
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (reader.streamed()[i]) {
      decoded.arguments.push_back(std::move(reader.streamed()[i]));
      continue;
    }
    BEF_ASSIGN_OR_RETURN(RCReference<AsyncValue> argument,
                         ArgumentFromJson(argument_types[i], args[i], allocator,
                                          absl::StrCat("argument ", i)));
    // A chain is checked (null) and left to the run, which supplies it.
    if (argument_types[i] != kChainTypeName) decoded.arguments.push_back(std::move(argument));
  }
  return decoded;
}

absl::StatusOr<InferRequestJson> ParseInferRequestJson(
    std::string_view text, const std::function<bool(std::string_view)>& is_tensor_input,
    HostAllocator* allocator) {
  StreamingReader reader(StreamingReader::Form::kInferRequest, nullptr, &is_tensor_input,
                         allocator, text.size());
  bool parsed = ParseInto(text, &reader);
  if (!reader.status().ok()) return reader.status();
  if (!parsed) return absl::InvalidArgumentError("the body is not valid JSON");
  InferRequestJson request;
  request.body = std::move(reader.body());
  request.streamed = std::move(reader.streamed());
  return request;
}

}  // namespace bef
