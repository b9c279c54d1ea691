#include "tools/serving/service_metrics.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace bef {

void LatencyHistogram::Observe(int64_t nanos) {
  double seconds = nanos / 1e9;
  size_t bucket = 0;
  while (bucket < kBuckets.size() && seconds > kBuckets[bucket]) ++bucket;
  buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  count.fetch_add(1, std::memory_order_relaxed);
  sum_nanos.fetch_add(static_cast<uint64_t>(nanos), std::memory_order_relaxed);
}

void LatencyHistogram::AppendSamples(std::string* text, std::string_view name,
                                     std::string_view labels) const {
  std::string prefix = labels.empty() ? "" : absl::StrCat(std::string(labels), ",");
  std::string braces = labels.empty() ? "" : absl::StrCat("{", std::string(labels), "}");
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= kBuckets.size(); ++i) {
    cumulative += buckets[i].load();
    std::string bound =
        i < kBuckets.size() ? absl::StrFormat("%g", kBuckets[i]) : std::string("+Inf");
    absl::StrAppend(text, std::string(name), "_bucket{", prefix, "le=\"", bound, "\"} ",
                    cumulative, "\n");
  }
  absl::StrAppend(text, std::string(name), "_sum", braces, " ",
                  absl::StrFormat("%.9f", sum_nanos.load() / 1e9), "\n", std::string(name),
                  "_count", braces, " ", count.load(), "\n");
}

namespace {

void Family(std::string* text, const char* name, const char* type, const char* help) {
  absl::StrAppend(text, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

}  // namespace

std::string ServiceMetrics::ToPrometheusText(uint64_t cancelled_runs, uint64_t inline_requests,
                                             uint64_t io_rescues) const {
  std::string text;
  auto counter = [&](const char* name, const char* help, uint64_t value) {
    Family(&text, name, "counter", help);
    absl::StrAppend(&text, name, " ", value, "\n");
  };
  counter("bef_serve_requests_total", "Requests to /v1/ endpoints.", requests.load());
  counter("bef_serve_bad_requests_total", "Requests answered with a 4xx status.",
          bad_requests.load());
  counter("bef_serve_runtime_errors_total", "Runs whose function reported an error.",
          runtime_errors.load());
  counter("bef_serve_cancelled_total",
          "Runs ended early: by their deadline, their client or the server's stop.",
          cancelled_runs);
  counter("bef_serve_inline_requests_total",
          "Run requests of a version known to run short, run on an HTTP I/O thread.",
          inline_requests);
  counter("bef_serve_io_rescues_total",
          "Times runs held every HTTP I/O thread and a rescue thread served the sockets.",
          io_rescues);
  Family(&text, "bef_serve_in_flight", "gauge", "Runs in progress.");
  absl::StrAppend(&text, "bef_serve_in_flight ", in_flight.load(), "\n");
  Family(&text, "bef_serve_run_latency_seconds", "histogram", "Time to answer a run request.");
  latency.AppendSamples(&text, "bef_serve_run_latency_seconds", "");
  return text;
}

int64_t MonotonicNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

InferenceMeter::InferenceMeter(ModelMetrics& metrics)
    : metrics_(metrics), start_nanos_(MonotonicNanos()) {
  metrics_.in_flight.fetch_add(1, std::memory_order_relaxed);
}

InferenceMeter::~InferenceMeter() {
  metrics_.in_flight.fetch_sub(1, std::memory_order_relaxed);
  if (succeeded_) {
    metrics_.success.fetch_add(1, std::memory_order_relaxed);
    metrics_.latency.Observe(MonotonicNanos() - start_nanos_);
  } else {
    metrics_.failure.fetch_add(1, std::memory_order_relaxed);
  }
}

std::string ModelMetricsText(const std::vector<ModelMetricsSample>& samples) {
  std::string text;
  auto labels = [](const ModelMetricsSample& sample) {
    return absl::StrCat("model=\"", sample.model, "\",version=\"", sample.version, "\"");
  };
  Family(&text, "bef_serve_inference_requests_total", "counter",
         "Inference requests of a model version, by outcome.");
  for (const ModelMetricsSample& sample : samples) {
    absl::StrAppend(&text, "bef_serve_inference_requests_total{", labels(sample),
                    ",outcome=\"success\"} ", sample.metrics->success.load(), "\n",
                    "bef_serve_inference_requests_total{", labels(sample),
                    ",outcome=\"failure\"} ", sample.metrics->failure.load(), "\n");
  }
  Family(&text, "bef_serve_inference_in_flight", "gauge",
         "Inference requests of a model version in progress.");
  for (const ModelMetricsSample& sample : samples) {
    absl::StrAppend(&text, "bef_serve_inference_in_flight{", labels(sample), "} ",
                    sample.metrics->in_flight.load(), "\n");
  }
  Family(&text, "bef_serve_inference_latency_seconds", "histogram",
         "Time to answer a successful inference request of a model version.");
  for (const ModelMetricsSample& sample : samples) {
    sample.metrics->latency.AppendSamples(&text, "bef_serve_inference_latency_seconds",
                                          labels(sample));
  }
  return text;
}

}  // namespace bef
