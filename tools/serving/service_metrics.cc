#include "tools/serving/service_metrics.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace bef {

void ServiceMetrics::ObserveLatency(int64_t nanos) {
  double seconds = nanos / 1e9;
  size_t bucket = 0;
  while (bucket < kLatencyBuckets.size() && seconds > kLatencyBuckets[bucket]) ++bucket;
  latency_buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  latency_count.fetch_add(1, std::memory_order_relaxed);
  latency_sum_nanos.fetch_add(static_cast<uint64_t>(nanos), std::memory_order_relaxed);
}

std::string ServiceMetrics::ToPrometheusText() const {
  std::string text;
  auto counter = [&](const char* name, const char* help, uint64_t value) {
    absl::StrAppend(&text, "# HELP ", name, " ", help, "\n# TYPE ", name,
                    " counter\n", name, " ", value, "\n");
  };
  counter("bef_serve_requests_total", "Requests to /v1/ endpoints.", requests.load());
  counter("bef_serve_bad_requests_total", "Requests answered with a 4xx status.",
          bad_requests.load());
  counter("bef_serve_runtime_errors_total", "Runs whose function reported an error.",
          runtime_errors.load());
  counter("bef_serve_cancelled_total", "Runs cancelled by their deadline.",
          cancelled.load());
  absl::StrAppend(&text,
                  "# HELP bef_serve_in_flight Runs in progress.\n"
                  "# TYPE bef_serve_in_flight gauge\nbef_serve_in_flight ",
                  in_flight.load(), "\n");
  absl::StrAppend(&text,
                  "# HELP bef_serve_run_latency_seconds Time to answer a run request.\n"
                  "# TYPE bef_serve_run_latency_seconds histogram\n");
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= kLatencyBuckets.size(); ++i) {
    cumulative += latency_buckets[i].load();
    std::string bound = i < kLatencyBuckets.size()
                            ? absl::StrFormat("%g", kLatencyBuckets[i])
                            : std::string("+Inf");
    absl::StrAppend(&text, "bef_serve_run_latency_seconds_bucket{le=\"", bound,
                    "\"} ", cumulative, "\n");
  }
  absl::StrAppend(&text, "bef_serve_run_latency_seconds_sum ",
                  absl::StrFormat("%.9f", latency_sum_nanos.load() / 1e9),
                  "\nbef_serve_run_latency_seconds_count ", latency_count.load(), "\n");
  return text;
}

}  // namespace bef
