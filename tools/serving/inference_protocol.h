// The Open Inference Protocol's (KServe V2) JSON and binary forms for the
// models of a ModelRepository (../shared/spec/open-inference-protocol.md,
// docs/serving.md "Open Inference Protocol").
//
// Inputs: `data` (flat or nested, row-major) or, with the binary tensor
// data extension, `"parameters": {"binary_data_size": B}` and B bytes after
// the JSON header (raw little-endian elements; BYTES as 4-byte length +
// bytes). A binary dense input whose bytes are aligned for its datatype is
// not copied: the tensor views the request body, which it keeps alive.
// Outputs: every output unless `outputs` names some; binary when asked
// (`"binary_data": true` on the output, or `"binary_data_output": true` on
// the request).
//
// Every refusal is an absl::Status (INVALID_ARGUMENT for the client's
// mistakes), never an exception.
#ifndef BEF_TOOLS_SERVING_INFERENCE_PROTOCOL_H_
#define BEF_TOOLS_SERVING_INFERENCE_PROTOCOL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bef/async/async_value.h"
#include "bef/async/rc_reference.h"
#include "bef/host/host_allocator.h"
#include "tools/serving/byte_budget.h"
#include "tools/serving/model_repository.h"
#include "tools/serving/protocol_datatypes.h"

namespace bef::serving {

// An input value before decoding: what protocol front ends (HTTP JSON,
// binary, gRPC) hand to DecodeInput.
struct InputTensor {
  std::string name;
  const ProtocolDatatype* datatype = nullptr;  // resolved where it was parsed
  std::vector<int64_t> shape;
  // Exactly one of:
  // A nlohmann::json array (flat or nested) of the request's body, which
  // DecodeInput consumes (moves its elements into the value).
  void* json_data = nullptr;
  std::string_view raw;              // raw bytes (binary extension, gRPC raw)
  std::shared_ptr<const void> raw_owner;  // keeps `raw` alive (zero-copy views)
  // Or the tensor its JSON data was read into while the body was parsed
  // (ParseInferRequestJson); DecodeInput checks it as it would the data.
  RCReference<AsyncValue> streamed;
};

// The value of `input` for `spec`, checked against it.
absl::StatusOr<RCReference<AsyncValue>> DecodeInput(const TensorSpec& spec,
                                                    const InputTensor& input,
                                                    HostAllocator* allocator);

// An output value in the protocol's terms.
struct OutputTensor {
  std::string name;
  const ProtocolDatatype* datatype = nullptr;
  std::vector<int64_t> shape;
  // Dense elements (row-major, little-endian) or BYTES strings.
  std::string_view raw;          // dense: the tensor's bytes (valid while `value` lives)
  std::vector<std::string> strings;
  RCReference<AsyncValue> value;  // keeps `raw` alive
};
absl::StatusOr<OutputTensor> DescribeOutput(const TensorSpec& spec, RCReference<AsyncValue> value);
// Appends `output` in raw form (the binary tensor data extension, gRPC's
// raw_output_contents): dense elements as they are, BYTES length-prefixed.
void AppendRawOutput(const OutputTensor& output, std::string* raw);

// Binding a request's tensors to the model's by name, for every front end
// (HTTP and gRPC alike); a name a request gave is echoed in errors through
// EchoName (at most 200 bytes).
//
// The index of the model's input `name`, which must not be bound yet
// (`bound[index]` null).
absl::StatusOr<size_t> BindInput(const LoadedModel& model, std::string_view name,
                                 const std::vector<RCReference<AsyncValue>>& bound);
// OK when every input of the model is bound; else "missing input 'NAME'".
absl::Status CheckEveryInputBound(const LoadedModel& model,
                                  const std::vector<RCReference<AsyncValue>>& bound);
// Appends the index of the model's output `name` to `requested`, which
// must not hold it yet.
absl::Status BindOutput(const LoadedModel& model, std::string_view name,
                        std::vector<size_t>& requested);

// --- HTTP/REST (JSON + binary tensor data) ---

struct HttpInferRequest {
  std::string id;
  bool has_id = false;
  std::vector<RCReference<AsyncValue>> inputs;  // in model.inputs() order
  std::vector<size_t> outputs;                  // indices into model.outputs()
  std::vector<bool> binary_outputs;             // per entry of `outputs`
  std::optional<absl::Duration> timeout;        // parameters.timeout_ms
};

// `body` is the whole request body; `json_length` the value of
// Inference-Header-Content-Length (nullopt: the body is all JSON). The
// body is kept alive by inputs that view it.
absl::StatusOr<HttpInferRequest> DecodeHttpInferRequest(const LoadedModel& model,
                                                        std::shared_ptr<const std::string> body,
                                                        std::optional<size_t> json_length,
                                                        HostAllocator* allocator);

// The response body; `json_length` is set when binary outputs follow the
// JSON (send Inference-Header-Content-Length and application/octet-stream).
struct HttpInferResponse {
  std::string body;
  std::optional<size_t> json_length;
  // The body's bytes in the answer budget, held until it is written.
  ByteBudget::Reservation reservation;
};
// Each output's bytes are reserved in `budget` (an upper bound: every
// element at its longest) before it is written, and the reservation cut to
// the body's size at the end: FAILED_PRECONDITION when the answer cannot
// fit the budget's whole limit (--max_response_bytes), RESOURCE_EXHAUSTED
// when answers held now leave no room for it.
absl::StatusOr<HttpInferResponse> EncodeHttpInferResponse(
    const LoadedModel& model, const HttpInferRequest& request,
    std::vector<RCReference<AsyncValue>> outputs, ByteBudget& budget);

// An upper bound of the bytes `output` takes in an answer: as binary (raw
// elements; BYTES with 4-byte lengths; a gRPC raw_output_contents) or as
// text (JSON elements at their longest; BYTES escaped at 6 bytes a byte;
// also bounds a gRPC typed contents, whose varints take at most 10 bytes),
// with room for its name, datatype and shape.
uint64_t AnswerBytesBound(const OutputTensor& output, bool binary);
// Reserves `bound` more bytes of `budget` in `reservation`, or the error
// EncodeHttpInferResponse describes (`total`: the whole answer's bound so
// far, for the message; `remedy`, if any, ends the message of an answer
// too large for the whole limit). Every API's answers reserve through it.
absl::Status ReserveAnswerBytes(ByteBudget& budget, uint64_t bound, uint64_t total,
                                ByteBudget::Reservation& reservation, std::string_view remedy = {});
// The remedy of the protocol's answers.
inline constexpr std::string_view kFewerOutputs = "ask for fewer outputs, or for binary data";

// GET /v2/models/{model}[/versions/{v}] for `model`, with the ready
// versions.
std::string ModelMetadataJson(const LoadedModel& model, const std::vector<int64_t>& versions);
// {"error": message}
std::string ProtocolErrorJson(std::string_view message);

}  // namespace bef::serving

#endif  // BEF_TOOLS_SERVING_INFERENCE_PROTOCOL_H_
