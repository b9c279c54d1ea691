// The JSON forms of bef_serve's values (docs/serving.md): request arguments
// to values, results to JSON, and the request body's parse, each refusing
// bad input with an absl::Status (INVALID_ARGUMENT for what a client sent,
// UNIMPLEMENTED for a result with no JSON form) -- never an exception.
//
//   i1 -> true/false; i8..i64, ui8..ui64 -> integers (range-checked);
//   f32/f64 -> numbers ("nan", "inf", "-inf" as strings); !tfrt.string ->
//   strings; !tfrt.chain -> null; !tfrt_tensor.tensor -> {"dtype": "f32",
//   "shape": [2, 3], "values": [...]} (dense, row-major; string tensors have
//   dtype "string").
#ifndef BEF_TOOLS_SERVING_JSON_CODEC_H_
#define BEF_TOOLS_SERVING_JSON_CODEC_H_

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bef/async/async_value.h"
#include "bef/async/rc_reference.h"
#include "bef/host/host_allocator.h"
#include "bef/tensor/dense_host_tensor.h"
#include "nlohmann/json.hpp"

namespace bef {

using Json = nlohmann::json;

// How deep a request body may nest arrays and objects: the body is refused
// while parsing, before anything deeper is built (nlohmann copies and
// destroys trees recursively).
inline constexpr int kMaxJsonDepth = 64;

// A run request's body decoded against the function's argument types in
// one pass (RunRequestReader in json_codec.cc): {"args": [...],
// "deadline_ms": optional positive number}. A tensor argument whose "dtype"
// and "shape" precede its "values" is filled element by element as the body
// is parsed, never held as JSON. INVALID_ARGUMENT for anything a client got
// wrong: not JSON, nested deeper than kMaxJsonDepth, unknown fields, the
// wrong number of arguments, a value that does not fit its type.
struct RunRequest {
  // The run's inputs: every argument but the chains (null in the body, and
  // supplied by FunctionRun), in order.
  std::vector<RCReference<AsyncValue>> arguments;
  std::optional<absl::Duration> deadline;
};
absl::StatusOr<RunRequest> DecodeRunRequest(std::string_view body, std::string_view function_name,
                                            const std::vector<std::string_view>& argument_types,
                                            HostAllocator* allocator);

// The Open Inference Protocol's JSON request (the JSON part of the body)
// parsed in one pass: the tree of the body, except the "data" of each input
// that `is_tensor_input` says is a tensor and whose "name", "datatype" and
// "shape" precede it: those elements go straight into the tensor (flat or
// nested up to the shape's rank; each checked against the datatype as
// DecodeInput would), the tree keeps an empty "data". Inputs with
// "parameters", an unknown datatype or a bad shape are left to the tree.
struct InferRequestJson {
  Json body;
  // Per element of "inputs" (possibly shorter): its streamed tensor, or null.
  std::vector<RCReference<AsyncValue>> streamed;
};
absl::StatusOr<InferRequestJson> ParseInferRequestJson(
    std::string_view text, const std::function<bool(std::string_view)>& is_tensor_input,
    HostAllocator* allocator);

// A number the parser read stored straight into element `index` of a dense
// tensor of `dtype` (no Json, no status): true when the element holds it
// exactly as the JSON decoders' element checks would store it (an integer
// in range, any number for a float type that it does not overflow); false
// for anything those checks refuse or treat otherwise (a number out of
// range, any number for a bool tensor, a fraction for an integer tensor).
// Empty for dtypes the protocol does not carry.
struct NumberStores {
  bool (*from_signed)(void* data, size_t index, int64_t value) = nullptr;
  bool (*from_unsigned)(void* data, size_t index, uint64_t value) = nullptr;
  bool (*from_double)(void* data, size_t index, double value) = nullptr;
};
NumberStores NumberStoresFor(DType dtype);

// A name from a request as error messages repeat it: at most 200 bytes (a
// 100,000-byte name must not turn into a 100,000-byte message, or in gRPC
// overflow the metadata limit).
std::string EchoName(std::string_view name);

// The rule of how a tensor's "data" may nest (the protocol's JSON; the
// tree path and the streaming reader both ask it): flat, or nested as the
// shape is, down to some depth. Every array holds only arrays or only
// elements; an array of arrays at depth d (the data itself is depth 0) has
// shape[d] of them; every array of elements is at the same depth d and
// holds the product of shape[d:] elements. So [[1,2],[3,4]] and [1,2,3,4]
// fill a [2, 2] tensor, and the ragged [[1,2,3],[4]] is refused, never
// read as four elements. Arrays are opened and closed, and elements added,
// in the order the data has them.
class DataNesting {
 public:
  DataNesting(std::span<const int64_t> shape, std::string what)
      : shape_(shape.begin(), shape.end()), what_(std::move(what)) {}
  void OpenArray();
  void AddElement() {
    ++open_.back().children;
    open_.back().elements = true;
  }
  // INVALID_ARGUMENT "input 'x' data is ragged: ..." when the array ending
  // now breaks the rule.
  absl::Status CloseArray();

 private:
  struct Open {
    int64_t children = 0;
    bool arrays = false, elements = false;
  };
  std::vector<int64_t> shape_;
  std::string what_;
  std::vector<Open> open_;
  int innermost_depth_ = -1;
};

// A value of BEF type `type` from its JSON form; `what` names it in errors
// ("argument 2").
absl::StatusOr<RCReference<AsyncValue>> ArgumentFromJson(std::string_view type,
                                                         const Json& value,
                                                         HostAllocator* allocator,
                                                         const std::string& what);

// The JSON form of an available result of BEF type `type`.
absl::StatusOr<Json> ResultToJson(std::string_view type, AsyncValue* value);

// `json` as text; strings that are not valid UTF-8 get U+FFFD in place of
// their bad bytes (a !tfrt.string result may hold any bytes).
std::string DumpJson(const Json& json);
// Appends `text` as a JSON string, exactly as DumpJson(Json(text)) writes it
// (printable ASCII without '"' and '\\' is copied as it is: names, ids,
// datatypes; anything else goes through DumpJson).
void AppendJsonString(std::string_view text, std::string* out);

}  // namespace bef

#endif  // BEF_TOOLS_SERVING_JSON_CODEC_H_
