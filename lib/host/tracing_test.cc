// TraceRecorder and TraceSpan: recording only while a recorder is alive,
// spans of several threads, the JSON form.
#include "bef/host/tracing.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace bef {
namespace {

TEST(TracingTest, RecordsOnlyWhileARecorderIsAlive) {
  { TraceSpan before("kernel", "before"); }
  EXPECT_FALSE(IsTracing());
  auto recorder = TraceRecorder::Start();
  ASSERT_TRUE(recorder.ok());
  EXPECT_TRUE(IsTracing());
  EXPECT_EQ(TraceRecorder::Start().status().code(),
            absl::StatusCode::kFailedPrecondition);
  {
    TraceSpan outer("function", "outer \"quoted\"");
    TraceSpan inner("kernel", "inner", TraceArgs({{"location", "a.mlir:1:2"}}));
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 100; ++i) TraceSpan span("task", "work");
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ((*recorder)->num_spans(), 302u);
  std::string json = (*recorder)->ToChromeTraceJson();
  EXPECT_FALSE(IsTracing());
  { TraceSpan after("kernel", "after"); }
  EXPECT_EQ((*recorder)->num_spans(), 302u);
  EXPECT_NE(json.find("\"name\": \"outer \\\"quoted\\\"\", \"cat\": \"function\""),
            std::string::npos);
  EXPECT_NE(json.find("\"args\": {\"location\": \"a.mlir:1:2\"}"), std::string::npos);
  EXPECT_EQ(json.find("before"), std::string::npos);
  EXPECT_EQ(json.find("after"), std::string::npos);
  // One thread-name record per thread that recorded: this one and three.
  size_t names = 0;
  for (size_t at = 0; (at = json.find("thread_name", at)) != std::string::npos; ++at) {
    ++names;
  }
  EXPECT_EQ(names, 4u);
  // A new recorder starts empty.
  recorder->reset();
  auto second = TraceRecorder::Start();
  ASSERT_TRUE(second.ok());
  { TraceSpan span("kernel", "again"); }
  EXPECT_EQ((*second)->num_spans(), 1u);
}

}  // namespace
}  // namespace bef
