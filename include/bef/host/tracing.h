// Tracing: a timeline of one run in Chrome's Trace Event Format, for
// Perfetto (ui.perfetto.dev) or chrome://tracing.
//
// While a TraceRecorder is alive, the runtime records one complete span
// ("ph": "X") per kernel (category "kernel": the kernel's name, its
// function and location), per function execution ("function") and per
// work-queue task ("task"), each on the thread that ran it. Spans of one
// thread nest: a kernel runs inside its function's execution or inside the
// task that resumed it, and functions called by kernels nest inside them.
//
// Cost: with no recorder, the runtime's only work is one relaxed load of a
// process-wide flag per kernel (BM_ChainTracing in
// benchmarks/tracing_benchmark.cc shows the difference). With a recorder,
// each span takes two clock reads and an append to its thread's buffer
// (an uncontended lock): spans are never lost and never cross threads.
//
// One recorder at a time per process. Threads keep their buffers in the
// recorder, so spans of threads that have exited are kept.
#ifndef BEF_HOST_TRACING_H_
#define BEF_HOST_TRACING_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace bef {

namespace internal {
extern std::atomic<bool> tracing_enabled;
// Monotonic nanoseconds.
int64_t TraceClockNanos();
// Records a finished span on this thread (REQUIRES: called only while
// tracing_enabled was observed true; a span arriving after the recorder
// stopped is dropped).
void RecordSpan(const char* category, std::string name, std::string args_json,
                int64_t start_nanos, int64_t end_nanos);
}  // namespace internal

inline bool IsTracing() {
  return internal::tracing_enabled.load(std::memory_order_relaxed);
}

class TraceRecorder {
 public:
  // Starts recording. Error FAILED_PRECONDITION when a recorder is active.
  static absl::StatusOr<std::unique_ptr<TraceRecorder>> Start();
  // Stops recording (if still recording).
  ~TraceRecorder();
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  // Stops recording; later spans are dropped.
  void Stop();
  // Stops recording and returns the timeline: {"traceEvents": [...]} with a
  // thread-name record per thread and the spans in start order per thread.
  std::string ToChromeTraceJson();
  // The same, written to `path`.
  absl::Status WriteChromeTraceJson(const std::string& path);
  // Number of spans recorded so far.
  size_t num_spans() const;

  struct State;

 private:
  explicit TraceRecorder(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

// A span of the current thread from construction to destruction, recorded
// only if tracing was on at construction.
class TraceSpan {
 public:
  TraceSpan(const char* category, std::string_view name,
            std::string_view args_json = {})
      : active_(IsTracing()) {
    if (active_) [[unlikely]] {
      category_ = category;
      name_ = std::string(name);
      args_ = std::string(args_json);
      start_ = internal::TraceClockNanos();
    }
  }
  ~TraceSpan() {
    if (active_) [[unlikely]] {
      internal::RecordSpan(category_, std::move(name_), std::move(args_), start_,
                           internal::TraceClockNanos());
    }
  }
  TraceSpan(const TraceSpan&) = delete;
  TraceSpan& operator=(const TraceSpan&) = delete;

 private:
  bool active_;
  const char* category_ = nullptr;
  std::string name_;
  std::string args_;
  int64_t start_ = 0;
};

// `"key": "value"` pairs for a span's args, JSON-escaped.
std::string TraceArgs(std::initializer_list<std::pair<std::string_view, std::string_view>> args);

}  // namespace bef

#endif  // BEF_HOST_TRACING_H_
