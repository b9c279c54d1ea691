// The Open Inference Protocol's gRPC service (`inference.GRPCInferenceService`
// of grpc_predict_v2.proto) over a ModelRepository: the six RPCs, typed
// `contents` and `raw_input_contents`/`raw_output_contents` (the response is
// raw when the request was). Errors are gRPC statuses with the runtime's
// code and message (and the kernel's location); a request's deadline
// (`grpc-timeout`) or its `timeout_ms` parameter cancels the run.
//
// gRPC's synchronous server runs the handlers on its own threads, one per
// call in progress. At most `max_concurrent_infers` ModelInfer calls run at
// once (bef_serve --max_concurrent_requests); the next is answered
// RESOURCE_EXHAUSTED at once, while health and metadata calls, which never
// run a program, are always answered. A cancelled call (the client went
// away, its deadline passed, the server shut down) cancels its run.
//
// A ModelInfer request that names an output twice is INVALID_ARGUMENT, as
// over HTTP; an answer larger than the server's answer budget
// (RunLimits::response_bytes, --max_response_bytes) is RESOURCE_EXHAUSTED
// before it is built. A request that is not a valid protobuf message is
// INVALID_ARGUMENT with a message naming the method (ParseErrorInterceptors:
// gRPC itself answers INTERNAL with an empty message).
#ifndef BEF_TOOLS_SERVING_GRPC_INFERENCE_SERVICE_H_
#define BEF_TOOLS_SERVING_GRPC_INFERENCE_SERVICE_H_

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "grpcpp/support/server_interceptor.h"

#include "bef/host/host_context.h"
#include "tools/serving/grpc_predict_v2.grpc.pb.h"
#include "tools/serving/model_repository.h"

namespace bef::serving {

// The interceptor factories bef_serve's gRPC server registers: a request
// gRPC could not parse is answered INVALID_ARGUMENT "the request is not a
// valid protobuf message of /inference.GRPCInferenceService/ModelInfer".
std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
ParseErrorInterceptors();

class GrpcInferenceService final : public inference::GRPCInferenceService::Service {
 public:
  // Both outlive the service.
  // All three outlive the service; `limits` holds the answer budget.
  GrpcInferenceService(ModelRepository* repository, HostContext* host, RunLimits* limits,
                       size_t max_concurrent_infers)
      : repository_(repository),
        host_(host),
        limits_(limits),
        max_concurrent_infers_(max_concurrent_infers) {}

  grpc::Status ServerLive(grpc::ServerContext*, const inference::ServerLiveRequest*,
                          inference::ServerLiveResponse* response) override;
  grpc::Status ServerReady(grpc::ServerContext*, const inference::ServerReadyRequest*,
                           inference::ServerReadyResponse* response) override;
  grpc::Status ModelReady(grpc::ServerContext*, const inference::ModelReadyRequest* request,
                          inference::ModelReadyResponse* response) override;
  grpc::Status ServerMetadata(grpc::ServerContext*, const inference::ServerMetadataRequest*,
                              inference::ServerMetadataResponse* response) override;
  grpc::Status ModelMetadata(grpc::ServerContext*, const inference::ModelMetadataRequest* request,
                             inference::ModelMetadataResponse* response) override;
  grpc::Status ModelInfer(grpc::ServerContext* context, const inference::ModelInferRequest* request,
                          inference::ModelInferResponse* response) override;

 private:
  ModelRepository* repository_;
  HostContext* host_;
  RunLimits* limits_;
  const size_t max_concurrent_infers_;
  std::atomic<size_t> infers_in_progress_{0};
};

}  // namespace bef::serving

#endif  // BEF_TOOLS_SERVING_GRPC_INFERENCE_SERVICE_H_
