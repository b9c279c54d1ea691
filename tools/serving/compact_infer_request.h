// The protocol's inference request in the form nearly every client sends:
// decoded straight from the body's bytes, without a JSON tree.
//
// A tiny request (`add` of two INT32s: 130 bytes) cost about 33,000
// instructions through the general decoder (RapidJSON's events building an
// nlohmann tree, then flattening its data into values), half of all the
// server's own instructions for the request. The compact form is read in
// one pass over the bytes into small fixed structures; its numbers are
// checked as the general decoder checks them and written in the raw layout
// of their datatype, and each input then goes through the same DecodeInput
// as binary tensor data does (the model's datatype, shape and count rules).
//
// The compact form: one JSON object with "inputs" (objects with "name",
// "datatype", "shape" and either flat "data" of numbers or booleans, or
// "parameters": {"binary_data_size": N}), and optionally "id", "outputs"
// (objects with "name" and optionally "parameters": {"binary_data": B})
// and "parameters" ("timeout_ms", "binary_data_output"); strings of
// printable ASCII without escapes; numbers within 64 bits. Anything else --
// another field, nested or BYTES data, an escape, a value a check refuses,
// any error at all -- is left to the general decoder (nullopt), which
// answers it exactly as before: the compact reader never refuses a request
// and never takes one the general decoder would refuse.
#ifndef BEF_TOOLS_SERVING_COMPACT_INFER_REQUEST_H_
#define BEF_TOOLS_SERVING_COMPACT_INFER_REQUEST_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bef/host/host_allocator.h"
#include "tools/serving/inference_protocol.h"
#include "tools/serving/model_repository.h"

namespace bef::serving {

// `body` is the whole request body, its first `json_length` bytes the JSON
// (the rest binary tensor data); nullopt when the request is not in the
// compact form or is refused.
std::optional<HttpInferRequest> DecodeCompactInferRequest(
    const LoadedModel& model, const std::shared_ptr<const std::string>& body, size_t json_length,
    HostAllocator* allocator);

}  // namespace bef::serving

#endif  // BEF_TOOLS_SERVING_COMPACT_INFER_REQUEST_H_
