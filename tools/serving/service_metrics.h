// bef_serve's Prometheus metrics: the server's own counters (request counts
// by outcome, runs in flight, a latency histogram) and each model version's
// (inference counts by outcome, in flight, latency), updated lock-free by
// request threads and printed for GET /metrics.
#ifndef BEF_TOOLS_SERVING_SERVICE_METRICS_H_
#define BEF_TOOLS_SERVING_SERVICE_METRICS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bef {

// The steady clock in nanoseconds (latencies).
int64_t MonotonicNanos();

// A Prometheus histogram of latencies.
struct LatencyHistogram {
  // Upper bounds of the buckets, in seconds.
  static constexpr std::array<double, 14> kBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
      0.025,  0.05,    0.1,    0.25,  0.5,    1.0,   5.0};
  std::array<std::atomic<uint64_t>, kBuckets.size() + 1> buckets{};
  std::atomic<uint64_t> count{0};
  std::atomic<uint64_t> sum_nanos{0};

  void Observe(int64_t nanos);
  // `name`_bucket{labels,le=...}, `name`_sum and `name`_count lines;
  // `labels` is "" or `key="value",...`.
  void AppendSamples(std::string* text, std::string_view name, std::string_view labels) const;
};

// Counters of the server (the /v1/ API and the front end's refusals).
struct ServiceMetrics {
  std::atomic<uint64_t> requests{0};        // every request to /v1/...
  std::atomic<uint64_t> bad_requests{0};    // 4xx
  std::atomic<uint64_t> runtime_errors{0};  // a function reported an error
  std::atomic<int64_t> in_flight{0};
  LatencyHistogram latency;

  void ObserveLatency(int64_t nanos) { latency.Observe(nanos); }
  // Prometheus text exposition format; `cancelled_runs` is every run of the
  // server (any API) cancelled or past its deadline (RunLimits::cancelled),
  // `inline_requests` and `io_rescues` the HTTP front end's counters
  // (HttpServerCounters: requests run on an I/O thread, rescues of the
  // sockets from runs holding every I/O thread).
  std::string ToPrometheusText(uint64_t cancelled_runs, uint64_t inline_requests,
                               uint64_t io_rescues) const;
};

// Counters of one model version's inference requests.
struct ModelMetrics {
  std::atomic<uint64_t> success{0};
  std::atomic<uint64_t> failure{0};  // refused or failed (any non-200 answer)
  std::atomic<int64_t> in_flight{0};
  LatencyHistogram latency;  // successful requests
};

// Counts one inference request of a model version: in flight while it
// lives; a success (with its latency) once Succeeded() is called, a failure
// otherwise.
class InferenceMeter {
 public:
  explicit InferenceMeter(ModelMetrics& metrics);
  ~InferenceMeter();
  InferenceMeter(const InferenceMeter&) = delete;
  InferenceMeter& operator=(const InferenceMeter&) = delete;
  void Succeeded() { succeeded_ = true; }

 private:
  ModelMetrics& metrics_;
  int64_t start_nanos_;
  bool succeeded_ = false;
};

// The per-model families (bef_serve_inference_requests_total{model,
// version,outcome}, bef_serve_inference_in_flight, bef_serve_inference_
// latency_seconds) for every (model, version, metrics).
struct ModelMetricsSample {
  std::string model;
  int64_t version;
  const ModelMetrics* metrics;
};
std::string ModelMetricsText(const std::vector<ModelMetricsSample>& samples);

}  // namespace bef

#endif  // BEF_TOOLS_SERVING_SERVICE_METRICS_H_
