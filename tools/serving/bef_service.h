// BefService: what bef_serve does with a request, without the HTTP layer.
//
// One service holds one loaded BEF program, its HostContext (work queue and
// allocator) and one ResourceContext shared by every request (so tfrt.once
// runs once per loaded program, as a model's initialisation would). Every
// method is thread-safe; HTTP threads call them concurrently.
//
// JSON forms (docs/serving.md):
//   arguments/results: i1 -> true/false; i8..i64, ui8..ui64 -> integers;
//   f32/f64 -> numbers ("nan", "inf", "-inf" as strings); !tfrt.string ->
//   strings; !tfrt.chain -> null; !tfrt_tensor.tensor -> {"dtype": "f32",
//   "shape": [2, 3], "values": [...]} (dense, row-major; string tensors
//   have dtype "string").
//   errors: {"error": {"code": "INVALID_ARGUMENT", "message": "...",
//   "location": "file.mlir:3:8"}} (location when the runtime knows one).
#ifndef BEF_TOOLS_SERVING_BEF_SERVICE_H_
#define BEF_TOOLS_SERVING_BEF_SERVICE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "bef/executor/bef_program.h"
#include "bef/host/execution_context.h"
#include "bef/host/host_context.h"

namespace bef {

struct ServiceResponse {
  int http_status = 200;
  std::string json;
};

// Prometheus counters of the service.
struct ServiceMetrics {
  // Upper bounds of the latency histogram buckets, in seconds.
  static constexpr std::array<double, 14> kLatencyBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
      0.025,  0.05,    0.1,    0.25,  0.5,    1.0,   5.0};
  std::atomic<uint64_t> requests{0};        // every request to /v1/...
  std::atomic<uint64_t> bad_requests{0};    // 4xx
  std::atomic<uint64_t> runtime_errors{0};  // a function reported an error
  std::atomic<uint64_t> cancelled{0};       // deadline exceeded
  std::atomic<int64_t> in_flight{0};
  std::array<std::atomic<uint64_t>, kLatencyBuckets.size() + 1> latency_buckets{};
  std::atomic<uint64_t> latency_count{0};
  std::atomic<uint64_t> latency_sum_nanos{0};

  void ObserveLatency(int64_t nanos);
  // Prometheus text exposition format.
  std::string ToPrometheusText() const;
};

class BefService {
 public:
  // Loads `path` on a work queue made from `work_queue_type` (bef_executor's
  // syntax, e.g. "mstd:2") with the malloc allocator.
  static absl::StatusOr<std::unique_ptr<BefService>> Create(
      const std::string& path, const std::string& work_queue_type);
  ~BefService();

  // GET /v1/functions: {"functions": [{"name", "arguments", "results"}]}
  // (named BEF functions; the types as BEF names them).
  ServiceResponse ListFunctions() const;
  // POST /v1/functions/NAME:run with `body` = {"args": [...],
  // "deadline_ms": optional positive number}.
  ServiceResponse Run(std::string_view name, std::string_view body);

  ServiceMetrics& metrics() { return metrics_; }
  // Waits for work the runtime still has queued.
  void Quiesce();

 private:
  BefService() = default;
  std::unique_ptr<HostContext> host_;
  std::unique_ptr<BefProgram> program_;
  std::unique_ptr<ResourceContext> resources_;
  std::atomic<int64_t> next_request_id_{1};
  ServiceMetrics metrics_;
};

// {"error": {"code": ..., "message": ...}} with `http_status`.
ServiceResponse ErrorResponse(int http_status, std::string_view code,
                              std::string_view message);

}  // namespace bef

#endif  // BEF_TOOLS_SERVING_BEF_SERVICE_H_
