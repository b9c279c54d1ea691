#include "bef/host/tracing.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace bef {
namespace internal {

std::atomic<bool> tracing_enabled{false};

int64_t TraceClockNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace internal

namespace {

struct Span {
  const char* category;
  std::string name;
  std::string args_json;
  int64_t start_nanos;
  int64_t end_nanos;
};

struct ThreadBuffer {
  explicit ThreadBuffer(uint32_t id) : thread_id(id) {}
  uint32_t thread_id;
  std::mutex mutex;
  std::vector<Span> spans;
};

}  // namespace

struct TraceRecorder::State {
  uint64_t generation = 0;
  int64_t start_nanos = 0;
  std::mutex mutex;  // guards threads and recording
  bool recording = true;
  std::vector<std::shared_ptr<ThreadBuffer>> threads;
};

namespace {

// The active recorder's state (null when none) and a generation counter so
// threads notice a new recorder.
std::mutex active_mutex;
std::shared_ptr<TraceRecorder::State> active_state;
std::atomic<uint64_t> active_generation{0};

struct ThreadSlot {
  uint64_t generation = 0;
  std::shared_ptr<ThreadBuffer> buffer;
  std::weak_ptr<TraceRecorder::State> state;
};
thread_local ThreadSlot thread_slot;

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace

void internal::RecordSpan(const char* category, std::string name,
                          std::string args_json, int64_t start_nanos,
                          int64_t end_nanos) {
  uint64_t generation = active_generation.load(std::memory_order_acquire);
  ThreadSlot& slot = thread_slot;
  if (slot.generation != generation || !slot.buffer) {
    std::shared_ptr<TraceRecorder::State> state;
    {
      std::lock_guard<std::mutex> lock(active_mutex);
      state = active_state;
    }
    if (state == nullptr) return;
    std::lock_guard<std::mutex> lock(state->mutex);
    if (!state->recording) return;
    slot.buffer = std::make_shared<ThreadBuffer>(
        static_cast<uint32_t>(state->threads.size() + 1));
    state->threads.push_back(slot.buffer);
    slot.generation = state->generation;
    slot.state = state;
  }
  std::shared_ptr<TraceRecorder::State> state = slot.state.lock();
  if (state == nullptr) return;
  std::lock_guard<std::mutex> lock(slot.buffer->mutex);
  slot.buffer->spans.push_back(Span{category, std::move(name),
                                    std::move(args_json), start_nanos,
                                    end_nanos});
}

absl::StatusOr<std::unique_ptr<TraceRecorder>> TraceRecorder::Start() {
  std::lock_guard<std::mutex> lock(active_mutex);
  if (active_state != nullptr) {
    return absl::FailedPreconditionError("a TraceRecorder is already active");
  }
  auto state = std::make_shared<State>();
  state->generation = active_generation.load() + 1;
  state->start_nanos = internal::TraceClockNanos();
  active_state = state;
  active_generation.store(state->generation, std::memory_order_release);
  internal::tracing_enabled.store(true, std::memory_order_relaxed);
  return std::unique_ptr<TraceRecorder>(new TraceRecorder(std::move(state)));
}

TraceRecorder::TraceRecorder(std::shared_ptr<State> state)
    : state_(std::move(state)) {}

TraceRecorder::~TraceRecorder() { Stop(); }

void TraceRecorder::Stop() {
  std::lock_guard<std::mutex> lock(active_mutex);
  if (active_state == state_) {
    internal::tracing_enabled.store(false, std::memory_order_relaxed);
    active_state.reset();
  }
  std::lock_guard<std::mutex> state_lock(state_->mutex);
  state_->recording = false;
}

size_t TraceRecorder::num_spans() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  size_t count = 0;
  for (const auto& thread : state_->threads) {
    std::lock_guard<std::mutex> thread_lock(thread->mutex);
    count += thread->spans.size();
  }
  return count;
}

std::string TraceRecorder::ToChromeTraceJson() {
  Stop();
  std::string json = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
  bool first = true;
  auto separator = [&] {
    json += first ? "\n" : ",\n";
    first = false;
  };
  std::lock_guard<std::mutex> lock(state_->mutex);
  for (const auto& thread : state_->threads) {
    std::lock_guard<std::mutex> thread_lock(thread->mutex);
    separator();
    absl::StrAppend(&json,
                    "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, "
                    "\"tid\": ", thread->thread_id,
                    ", \"args\": {\"name\": \"bef thread ", thread->thread_id,
                    "\"}}");
    std::vector<const Span*> spans;
    for (const Span& span : thread->spans) spans.push_back(&span);
    // Start order; an enclosing span (ending later) before its children.
    std::stable_sort(spans.begin(), spans.end(), [](const Span* a, const Span* b) {
      if (a->start_nanos != b->start_nanos) return a->start_nanos < b->start_nanos;
      return a->end_nanos > b->end_nanos;
    });
    for (const Span* span : spans) {
      separator();
      // Microseconds with nanosecond precision, relative to the start.
      int64_t start = span->start_nanos - state_->start_nanos;
      int64_t duration = span->end_nanos - span->start_nanos;
      absl::StrAppend(&json, "{\"name\": \"", Escape(span->name),
                      "\", \"cat\": \"", span->category,
                      "\", \"ph\": \"X\", \"pid\": 1, \"tid\": ",
                      thread->thread_id, ", \"ts\": ",
                      absl::StrFormat("%.3f", start / 1000.0), ", \"dur\": ",
                      absl::StrFormat("%.3f", duration / 1000.0),
                      ", \"args\": {", span->args_json, "}}");
    }
  }
  json += "\n]}\n";
  return json;
}

absl::Status TraceRecorder::WriteChromeTraceJson(const std::string& path) {
  std::string json = ToChromeTraceJson();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return absl::NotFoundError(absl::StrCat("cannot open trace file '", path,
                                            "' for writing"));
  }
  out << json;
  out.close();
  if (!out) {
    return absl::InternalError(absl::StrCat("cannot write trace file '", path, "'"));
  }
  return absl::OkStatus();
}

std::string TraceArgs(
    std::initializer_list<std::pair<std::string_view, std::string_view>> args) {
  std::string json;
  for (const auto& [key, value] : args) {
    absl::StrAppend(&json, json.empty() ? "" : ", ", "\"", Escape(key),
                    "\": \"", Escape(value), "\"");
  }
  return json;
}

}  // namespace bef
