// The Open Inference Protocol's gRPC service (`inference.GRPCInferenceService`
// of grpc_predict_v2.proto) over a ModelRepository: the six RPCs, typed
// `contents` and `raw_input_contents`/`raw_output_contents` (the response is
// raw when the request was). Errors are gRPC statuses from status_mapping.h
// (a request's mistake keeps its code, a run's error gets its HTTP status's
// code) with HTTP's messages; a request's deadline (`grpc-timeout`) or its
// `timeout_ms` parameter cancels the run.
//
// gRPC's callback API: every call is answered by a reactor on gRPC's own
// callback threads. Health and metadata calls are answered at once on the
// call's thread; a ModelInfer of a version whose runs are known to be short
// (ShortRunStreak, as HTTP's inline runs) runs there too, with no hand-off;
// any other run goes to the service's worker threads and its reactor
// finishes from there, so a long run never holds gRPC's threads. At most
// `max_concurrent_infers` ModelInfer calls run at once (bef_serve
// --max_concurrent_requests); the next is answered RESOURCE_EXHAUSTED at
// once. A cancelled call (the client went away, its deadline passed, the
// server shut down) cancels its run.
//
// A ModelInfer request that names an output twice is INVALID_ARGUMENT, as
// over HTTP; an answer larger than the server's answer budget
// (RunLimits::response_bytes, --max_response_bytes) is RESOURCE_EXHAUSTED
// before it is built. A request that is not a valid protobuf message is
// INVALID_ARGUMENT with a message naming the method (gRPC's typed handlers
// answer INTERNAL or UNIMPLEMENTED with an empty message): every method
// takes the request's bytes and parses and serializes its messages itself,
// as gRPC's typed handlers would, so no interceptor runs on every call (one
// did, for this message alone: the tiny ModelInfer runs 1.24x as fast
// without it).
#ifndef BEF_TOOLS_SERVING_GRPC_INFERENCE_SERVICE_H_
#define BEF_TOOLS_SERVING_GRPC_INFERENCE_SERVICE_H_

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "bef/host/host_context.h"
#include "bef/support/fifo_thread_pool.h"
#include "grpcpp/support/byte_buffer.h"
#include "tools/serving/grpc_predict_v2.grpc.pb.h"
#include "tools/serving/model_repository.h"

namespace bef::serving {

// The six methods of the service on gRPC's callback API, each given the
// request's bytes (GrpcInferenceService parses them).
using RawCallbackInferenceService =
    inference::GRPCInferenceService::WithRawCallbackMethod_ServerLive<
        inference::GRPCInferenceService::WithRawCallbackMethod_ServerReady<
            inference::GRPCInferenceService::WithRawCallbackMethod_ModelReady<
                inference::GRPCInferenceService::WithRawCallbackMethod_ServerMetadata<
                    inference::GRPCInferenceService::WithRawCallbackMethod_ModelMetadata<
                        inference::GRPCInferenceService::WithRawCallbackMethod_ModelInfer<
                            inference::GRPCInferenceService::Service>>>>>>;

class GrpcInferenceService final : public RawCallbackInferenceService {
 public:
  // All three outlive the service; `limits` holds the answer budget. Runs
  // not known to be short go to `worker_threads` threads of the service's.
  GrpcInferenceService(ModelRepository* repository, HostContext* host, RunLimits* limits,
                       size_t max_concurrent_infers, int worker_threads)
      : repository_(repository),
        host_(host),
        limits_(limits),
        max_concurrent_infers_(max_concurrent_infers),
        workers_(worker_threads) {}

  grpc::ServerUnaryReactor* ServerLive(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* answer) override;
  grpc::ServerUnaryReactor* ServerReady(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* answer) override;
  grpc::ServerUnaryReactor* ModelReady(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* answer) override;
  grpc::ServerUnaryReactor* ServerMetadata(grpc::CallbackServerContext* context,
                                           const grpc::ByteBuffer* request,
                                           grpc::ByteBuffer* answer) override;
  grpc::ServerUnaryReactor* ModelMetadata(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* answer) override;
  grpc::ServerUnaryReactor* ModelInfer(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* answer) override;

  // Runs what the workers still have and joins them. After the server's
  // Wait() and before the server is destroyed: a worker's last Finish
  // (which reads the server) is then over before the server goes, as a
  // join shows it (gRPC's own ordering of the two is inside libgrpc, which
  // ThreadSanitizer does not see).
  void StopWorkers() { workers_.Stop(); }

 private:
  // One ModelInfer call of `model`, from admission to the answer.
  grpc::Status Infer(grpc::CallbackServerContext* context,
                     const inference::ModelInferRequest* request,
                     inference::ModelInferResponse* response, const LoadedModel& model);

  ModelRepository* repository_;
  HostContext* host_;
  RunLimits* limits_;
  const size_t max_concurrent_infers_;
  std::atomic<size_t> infers_in_progress_{0};
  // Calls running on gRPC's own threads (known-short versions), at most
  // kMostInlineInfers; the rest go to `workers_`.
  static constexpr size_t kMostInlineInfers = 8;
  std::atomic<size_t> inline_infers_{0};
  // Last: destroyed first, running what is queued (every reactor finishes)
  // while the rest of the service still lives.
  FifoThreadPool workers_;
};

// Makes gRPC run the closures it would hand to its default executor (a
// pool of its own threads: callback completions, a busy combiner's queued
// work) on the thread that schedules them, once the server has started:
// that hand-off, and the wake-ups of a third and fourth thread on a
// two-core machine, were about a seventh of a tiny call's server time
// (docs/performance.md, "gRPC without its executor's threads"). Nothing
// gRPC's server schedules there blocks (name resolution has an executor
// of its own, which stays threaded), and the service's own long runs go
// to its worker threads. libgrpc exports the switch without a public
// header (gRPC 1.51, Debian's): it is declared in the .cc.
void RunGrpcExecutorClosuresInline();

}  // namespace bef::serving

#endif  // BEF_TOOLS_SERVING_GRPC_INFERENCE_SERVICE_H_
