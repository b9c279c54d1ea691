// ServiceMetrics: bef_serve's Prometheus counters (request counts by
// outcome, runs in flight, a latency histogram), updated lock-free by the
// HTTP threads and printed for GET /metrics.
#ifndef BEF_TOOLS_SERVING_SERVICE_METRICS_H_
#define BEF_TOOLS_SERVING_SERVICE_METRICS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace bef {

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

}  // namespace bef

#endif  // BEF_TOOLS_SERVING_SERVICE_METRICS_H_
