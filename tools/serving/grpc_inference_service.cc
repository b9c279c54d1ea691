#include "tools/serving/grpc_inference_service.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bef/support/string_view.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/proto_buffer_writer.h"
#include "tools/serving/inference_protocol.h"
#include "tools/serving/json_codec.h"
#include "tools/serving/service_metrics.h"
#include "tools/serving/status_mapping.h"

// libgrpc's executor switch (src/core/lib/iomgr/executor.h, not installed):
// the one static member bef_serve calls, by its exported symbol.
namespace grpc_core {
class Executor {
 public:
  static void SetThreadingDefault(bool enable);
};
}  // namespace grpc_core

namespace bef::serving {
namespace {

// The canonical codes are gRPC's, number for number; a run's error gets
// the code HTTP's status for it names (status_mapping.h).
grpc::Status ToGrpc(const absl::Status& status, ErrorSource source = ErrorSource::kRequest) {
  return grpc::Status(static_cast<grpc::StatusCode>(GrpcCode(status.code(), source)),
                      std::string(status.message()));
}

grpc::Status Invalid(const std::string& message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message);
}

// The values of a `contents` field as elements of type T (INT8 and UINT8
// travel in 32-bit fields: range-checked).
template <typename T, typename Field>
absl::Status AppendContents(const Field& values, const std::string& what, std::string* raw) {
  for (auto value : values) {
    if constexpr (!std::is_same_v<decltype(value), T>) {
      if (value < std::numeric_limits<T>::min() || value > std::numeric_limits<T>::max()) {
        return absl::InvalidArgumentError(absl::StrCat(what, " has a value out of range"));
      }
    }
    T element = static_cast<T>(value);
    raw->append(reinterpret_cast<const char*>(&element), sizeof(T));
  }
  return absl::OkStatus();
}

// Typed `contents` in the raw layout of `datatype` (protocol_datatypes.h).
absl::Status ContentsToRaw(const ProtocolDatatype& datatype,
                           const inference::InferTensorContents& c, const std::string& what,
                           std::string* raw) {
  // The contents travel in the one field of the datatype; values in any
  // other field are refused, never silently dropped.
  for (const ProtocolDatatype& other : ProtocolDatatypes()) {
    if (other.grpc_contents == datatype.grpc_contents) continue;
    const int size =
#define BEF_CONTENTS_SIZE(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS) \
  other.grpc_contents == #CONTENTS ? c.CONTENTS##_size():
        BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_CONTENTS_SIZE)
#undef BEF_CONTENTS_SIZE
        c.bytes_contents_size();
    if (size > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " sets ", ToAbsl(other.grpc_contents), ", but a ", ToAbsl(datatype.name),
          " tensor's contents are in ", ToAbsl(datatype.grpc_contents)));
    }
  }
  if (datatype.bytes) {
    for (const std::string& value : c.bytes_contents()) AppendLengthPrefixed(value, raw);
    return absl::OkStatus();
  }
  switch (datatype.dtype) {
#define BEF_CONTENTS_TO_RAW(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS) \
  case DTYPE:                                                        \
    return AppendContents<TYPE>(c.CONTENTS(), what, raw);
    BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_CONTENTS_TO_RAW)
#undef BEF_CONTENTS_TO_RAW
    default:
      return absl::OkStatus();
  }
}

template <typename T, typename Add>
void ForEachElement(std::string_view raw, Add add) {
  for (size_t i = 0; i + sizeof(T) <= raw.size(); i += sizeof(T)) {
    T value;
    std::memcpy(&value, raw.data() + i, sizeof(T));
    add(value);
  }
}

// An output's elements as typed `contents`.
void OutputToContents(const OutputTensor& output, inference::InferTensorContents* c) {
  if (output.datatype->bytes) {
    for (const std::string& value : output.strings) c->add_bytes_contents(value);
    return;
  }
  switch (output.datatype->dtype) {
#define BEF_OUTPUT_TO_CONTENTS(NAME, TYPE, DTYPE, BEF_SCALAR, CONTENTS)              \
  case DTYPE:                                                                        \
    ForEachElement<TYPE>(output.raw, [&](TYPE value) { c->add_##CONTENTS(value); }); \
    break;
    BEF_FOR_EACH_NUMERIC_DATATYPE(BEF_OUTPUT_TO_CONTENTS)
#undef BEF_OUTPUT_TO_CONTENTS
    default:
      break;
  }
}

// A ModelInfer request of this many bytes or more hands its memory back to
// the system when its call ends (malloc_trim).
constexpr size_t kTrimAfterBytes = 1 << 20;
// The block that marks the malloc arena a large request is parsed in (Call).
constexpr size_t kArenaMarkerBytes = 128 << 10;

// What a method answers to bytes that are not a valid protobuf message of
// its request (or no message at all).
grpc::Status NotAMessage(const char* method) {
  return Invalid(
      absl::StrCat("the request is not a valid protobuf message of "
                   "/inference.GRPCInferenceService/",
                   method));
}

// Parses a request's bytes as gRPC's typed handlers would (the reader only
// reads the buffer).
bool Parse(const grpc::ByteBuffer* bytes, google::protobuf::MessageLite* message) {
  if (bytes == nullptr || !bytes->Valid()) return false;
  grpc::ProtoBufferReader reader(const_cast<grpc::ByteBuffer*>(bytes));
  return reader.status().ok() && message->ParseFromZeroCopyStream(&reader);
}

// The answer's bytes for an OK status; any other status is sent as it is.
grpc::Status Serialized(const grpc::Status& status, const google::protobuf::MessageLite& response,
                        grpc::ByteBuffer* answer) {
  if (!status.ok()) return status;
  bool own_buffer;
  return grpc::GenericSerialize<grpc::ProtoBufferWriter, google::protobuf::MessageLite>(
      response, answer, &own_buffer);
}

// A call that needs no run (health, metadata): parsed, answered by
// `body(request, &response)` and finished on the call's own thread, never
// behind a run.
template <typename Request, typename Response, typename Body>
grpc::ServerUnaryReactor* AnswerAtOnce(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* bytes, grpc::ByteBuffer* answer,
                                       const char* method, Body body) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  Request request;
  Response response;
  if (!Parse(bytes, &request)) {
    reactor->Finish(NotAMessage(method));
  } else {
    reactor->Finish(Serialized(body(request, &response), response, answer));
  }
  return reactor;
}

}  // namespace

grpc::ServerUnaryReactor* GrpcInferenceService::ServerLive(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* request,
                                                           grpc::ByteBuffer* answer) {
  return AnswerAtOnce<inference::ServerLiveRequest, inference::ServerLiveResponse>(
      context, request, answer, "ServerLive", [](const auto&, auto* response) {
        response->set_live(true);
        return grpc::Status::OK;
      });
}

grpc::ServerUnaryReactor* GrpcInferenceService::ServerReady(grpc::CallbackServerContext* context,
                                                            const grpc::ByteBuffer* request,
                                                            grpc::ByteBuffer* answer) {
  return AnswerAtOnce<inference::ServerReadyRequest, inference::ServerReadyResponse>(
      context, request, answer, "ServerReady", [this](const auto&, auto* response) {
        response->set_ready(repository_->AllReady());
        return grpc::Status::OK;
      });
}

grpc::ServerUnaryReactor* GrpcInferenceService::ModelReady(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* request,
                                                           grpc::ByteBuffer* answer) {
  return AnswerAtOnce<inference::ModelReadyRequest, inference::ModelReadyResponse>(
      context, request, answer, "ModelReady",
      [this](const inference::ModelReadyRequest& request, auto* response) {
        absl::StatusOr<std::shared_ptr<const LoadedModel>> found =
            repository_->Find(request.name(), request.version());
        if (!found.ok() && found.status().code() == absl::StatusCode::kNotFound &&
            request.version().empty()) {
          return ToGrpc(found.status());  // no such model
        }
        response->set_ready(found.ok());
        return grpc::Status::OK;
      });
}

grpc::ServerUnaryReactor* GrpcInferenceService::ServerMetadata(grpc::CallbackServerContext* context,
                                                               const grpc::ByteBuffer* request,
                                                               grpc::ByteBuffer* answer) {
  return AnswerAtOnce<inference::ServerMetadataRequest, inference::ServerMetadataResponse>(
      context, request, answer, "ServerMetadata", [](const auto&, auto* response) {
        response->set_name("bef_serve");
        response->set_version("1");
        response->add_extensions("binary_tensor_data");
        response->add_extensions("model_repository");
        return grpc::Status::OK;
      });
}

grpc::ServerUnaryReactor* GrpcInferenceService::ModelMetadata(grpc::CallbackServerContext* context,
                                                              const grpc::ByteBuffer* request,
                                                              grpc::ByteBuffer* answer) {
  return AnswerAtOnce<inference::ModelMetadataRequest, inference::ModelMetadataResponse>(
      context, request, answer, "ModelMetadata",
      [this](const inference::ModelMetadataRequest& request,
             inference::ModelMetadataResponse* response) {
        absl::StatusOr<std::shared_ptr<const LoadedModel>> found =
            repository_->Find(request.name(), request.version());
        if (!found.ok()) return ToGrpc(found.status());
        const LoadedModel& model = **found;
        response->set_name(model.name());
        for (int64_t version : repository_->ReadyVersions(model.name())) {
          response->add_versions(std::to_string(version));
        }
        response->set_platform("bef");
        auto describe = [](const std::vector<TensorSpec>& specs, auto add) {
          for (const TensorSpec& spec : specs) {
            auto* tensor = add();
            tensor->set_name(spec.name);
            tensor->set_datatype(std::string(DatatypeName(spec.datatype)));
            for (int64_t dim : spec.shape) tensor->add_shape(dim);
          }
        };
        describe(model.inputs(), [&] { return response->add_inputs(); });
        describe(model.outputs(), [&] { return response->add_outputs(); });
        return grpc::Status::OK;
      });
}

grpc::ServerUnaryReactor* GrpcInferenceService::ModelInfer(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* request_bytes,
                                                           grpc::ByteBuffer* answer) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  // Admission: at most max_concurrent_infers_ calls admitted (running or
  // waiting for a worker); health and metadata calls never wait behind them.
  if (infers_in_progress_.fetch_add(1, std::memory_order_acq_rel) >= max_concurrent_infers_) {
    infers_in_progress_.fetch_sub(1, std::memory_order_acq_rel);
    reactor->Finish(
        grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                     absl::StrCat("the server is at its limit of ", max_concurrent_infers_,
                                  " concurrent inference calls; try again")));
    return reactor;
  }
  // The call's messages, until its answer is serialized. (Not on a
  // protobuf arena: the sanitizer builds compile map fields with another
  // layout than Debian's libprotobuf, whose arena code then reads them
  // wrong.) A large request leaves thousands of small allocations behind
  // it: `trim` hands their pages back to the system when the call ends
  // (under_attack_test, row 16: a request of 300,000 outputs).
  struct Call {
    ~Call() {
      if (trim) {
        // The messages' contents freed first (each swapped into a
        // temporary destroyed at once), then the pages handed back.
        inference::ModelInferRequest().Swap(&request);
        inference::ModelInferResponse().Swap(&response);
        // The small chunks freed merge into the top of the parsing thread's
        // malloc arena, which malloc_trim leaves alone unless it is the
        // main arena; glibc trims an arena's top when a chunk of at least
        // 64 KiB is freed into it: the marker, allocated there before the
        // request was parsed.
        std::free(arena_marker);
        malloc_trim(0);
      }
    }
    // Call on the thread that parses the request, before it parses.
    void MarkArena() {
      trim = true;
      arena_marker = std::malloc(kArenaMarkerBytes);  // under M_MMAP_THRESHOLD
    }
    inference::ModelInferRequest request;
    inference::ModelInferResponse response;
    bool trim = false;
    void* arena_marker = nullptr;
  };
  auto call = std::make_unique<Call>();
  auto finish = [this, reactor, answer](const Call& call, const grpc::Status& status) {
    const grpc::Status sent = Serialized(status, call.response, answer);
    infers_in_progress_.fetch_sub(1, std::memory_order_acq_rel);
    reactor->Finish(sent);
  };
  if (request_bytes != nullptr && request_bytes->Valid() &&
      request_bytes->Length() >= kTrimAfterBytes) {
    call->MarkArena();
  }
  if (!Parse(request_bytes, &call->request)) {
    finish(*call, NotAMessage("ModelInfer"));
    return reactor;
  }
  absl::StatusOr<std::shared_ptr<const LoadedModel>> found =
      repository_->Find(call->request.model_name(), call->request.model_version());
  const bool known_short = found.ok() && (*found)->known_short();
  if (!found.ok()) {
    finish(*call, ToGrpc(found.status()));
  } else if (known_short &&
             inline_infers_.fetch_add(1, std::memory_order_acq_rel) < kMostInlineInfers) {
    // A version whose runs are known to be short runs on the call's own
    // thread, as HTTP runs it on the I/O thread: no hand-off. At most
    // kMostInlineInfers at once, so a known-short version whose runs turn
    // long holds that many of gRPC's threads, not one per admitted call.
    grpc::Status status = Infer(context, &call->request, &call->response, **found);
    inline_infers_.fetch_sub(1, std::memory_order_acq_rel);
    finish(*call, status);
  } else {
    if (known_short) inline_infers_.fetch_sub(1, std::memory_order_acq_rel);  // over the cap
    workers_.Add([this, context, finish, call = std::move(call), model = std::move(*found)] {
      finish(*call, Infer(context, &call->request, &call->response, *model));
    });
  }
  return reactor;
}

grpc::Status GrpcInferenceService::Infer(grpc::CallbackServerContext* context,
                                         const inference::ModelInferRequest* request,
                                         inference::ModelInferResponse* response,
                                         const LoadedModel& model) {
  InferenceMeter meter(model.metrics());

  const std::vector<TensorSpec>& specs = model.inputs();
  bool raw = request->raw_input_contents_size() > 0;
  if (raw && request->raw_input_contents_size() != request->inputs_size()) {
    return Invalid("raw_input_contents needs one entry per input");
  }
  std::vector<RCReference<AsyncValue>> inputs(specs.size());
  for (int i = 0; i < request->inputs_size(); ++i) {
    const auto& tensor = request->inputs(i);
    absl::StatusOr<size_t> index = BindInput(model, tensor.name(), inputs);
    if (!index.ok()) return ToGrpc(index.status());
    InputTensor input;
    input.name = tensor.name();
    const std::string what = absl::StrCat("input '", input.name, "'");
    absl::StatusOr<const ProtocolDatatype*> datatype = ResolveDatatype(tensor.datatype(), what);
    if (!datatype.ok()) return ToGrpc(datatype.status());
    input.datatype = *datatype;
    input.shape.assign(tensor.shape().begin(), tensor.shape().end());
    std::string bytes;
    if (raw) {
      if (tensor.has_contents()) {
        return Invalid("no input may set contents when raw_input_contents is used");
      }
      input.raw = request->raw_input_contents(i);  // copied into the tensor (no owner)
    } else {
      absl::Status converted = ContentsToRaw(**datatype, tensor.contents(), what, &bytes);
      if (!converted.ok()) return ToGrpc(converted);
      input.raw = bytes;
    }
    absl::StatusOr<RCReference<AsyncValue>> value =
        DecodeInput(specs[*index], input, host_->allocator());
    if (!value.ok()) return ToGrpc(value.status());
    inputs[*index] = std::move(*value);
  }
  if (absl::Status bound = CheckEveryInputBound(model, inputs); !bound.ok()) return ToGrpc(bound);

  std::vector<size_t> requested;
  for (const auto& output : request->outputs()) {
    if (absl::Status bound = BindOutput(model, output.name(), requested); !bound.ok()) {
      return ToGrpc(bound);
    }
  }
  if (requested.empty()) {
    for (size_t i = 0; i < model.outputs().size(); ++i) requested.push_back(i);
  }

  std::optional<absl::Time> deadline;
  auto timeout = request->parameters().find("timeout_ms");
  if (timeout != request->parameters().end()) {
    if (timeout->second.parameter_choice_case() != inference::InferParameter::kInt64Param ||
        timeout->second.int64_param() <= 0) {
      return Invalid("parameter timeout_ms must be a positive int64_param");
    }
    deadline = absl::Now() + absl::Milliseconds(timeout->second.int64_param());
  }
  if (context->deadline() != std::chrono::system_clock::time_point::max()) {
    absl::Time client = absl::FromChrono(context->deadline());
    if (!deadline || client < *deadline) deadline = client;
  }

  // A cancelled call (client gone, deadline, server shutdown) cancels the run.
  LoadedModel::Outcome outcome =
      model.Run(std::move(inputs), deadline, [context]() -> absl::Status {
        if (context->IsCancelled()) return absl::CancelledError("the call was cancelled");
        return absl::OkStatus();
      });
  if (context->IsCancelled()) {
    // Nobody reads the status of a cancelled call (the client gave up, its
    // deadline passed or the server is shutting down): an empty message,
    // which gRPC's threads need not copy.
    return grpc::Status(grpc::StatusCode::CANCELLED, "");
  }
  if (!outcome.error.ok()) return ToGrpc(outcome.error, ErrorSource::kRun);
  response->set_model_name(model.name());
  response->set_model_version(std::to_string(model.version()));
  response->set_id(request->id());
  // The answer's bytes are held in the answer budget while it is built
  // (gRPC then owns the serialized message, at most --max_response_bytes).
  ByteBudget::Reservation reservation;
  uint64_t total_bound = 0;
  for (size_t index : requested) {
    absl::StatusOr<OutputTensor> output =
        DescribeOutput(model.outputs()[index], outcome.outputs[index].CopyRef());
    if (!output.ok()) return ToGrpc(output.status());
    const uint64_t bound = AnswerBytesBound(*output, raw);
    total_bound += bound;
    absl::Status reserved =
        ReserveAnswerBytes(limits_->response_bytes, bound, total_bound, reservation, kFewerOutputs);
    if (!reserved.ok()) return ToGrpc(reserved);
    auto* tensor = response->add_outputs();
    tensor->set_name(output->name);
    tensor->set_datatype(std::string(output->datatype->name));
    for (int64_t dim : output->shape) tensor->add_shape(dim);
    if (raw) {
      AppendRawOutput(*output, response->add_raw_output_contents());
    } else {
      OutputToContents(*output, tensor->mutable_contents());
    }
  }
  meter.Succeeded();
  return grpc::Status::OK;
}

void RunGrpcExecutorClosuresInline() { grpc_core::Executor::SetThreadingDefault(false); }

}  // namespace bef::serving
