// ParallelFor (bef/host/parallel_for.h): the ranges cover [0, count) once
// each, a range is never shorter than the minimum (but the last), small
// work runs on the caller with no task, the chain completes after the last
// range, and the first error wins. Under TSan (tag concurrency): the
// ranges write disjoint parts of one array from the work queue's threads.
#include "bef/host/parallel_for.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "bef/host/host_allocator.h"
#include "bef/host/work_queue.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

std::unique_ptr<HostContext> MakeHost(const char* queue) {
  return std::make_unique<HostContext>([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                                       CreateWorkQueue(queue).value());
}

void Wait(HostContext& host, AsyncValueRef<Chain>& done) {
  AsyncValue* value = done.GetAsyncValue();
  host.Await(std::span<AsyncValue* const>(&value, 1));
}

TEST(ParallelForTest, CoversEveryIndexOnceOnTwoThreads) {
  auto host = MakeHost("mstd:2");
  for (int64_t count : {1, 2, 7, 100, 1001}) {
    auto hits = std::make_shared<std::vector<std::atomic<int>>>(count);
    auto ranges = std::make_shared<std::atomic<int>>(0);
    absl::StatusOr<AsyncValueRef<Chain>> done = ParallelFor(
        host.get(), count, /*min_block=*/3, [hits, ranges, count](int64_t begin, int64_t end) {
          EXPECT_LT(begin, end);
          EXPECT_LE(end, count);
          if (end != count) EXPECT_GE(end - begin, 3);
          for (int64_t i = begin; i < end; ++i) (*hits)[i].fetch_add(1);
          ranges->fetch_add(1);
          return absl::OkStatus();
        });
    ASSERT_TRUE(done.ok());
    Wait(*host, *done);
    EXPECT_TRUE(done->IsAvailable());
    EXPECT_FALSE(done->IsError());
    for (int64_t i = 0; i < count; ++i) EXPECT_EQ((*hits)[i].load(), 1) << i;
    EXPECT_EQ(ranges->load(), count >= 6 ? 2 : 1) << count;  // two threads at most
  }
}

TEST(ParallelForTest, SmallWorkRunsHereAndIsReadyOnReturn) {
  auto host = MakeHost("mstd:2");
  const std::thread::id caller = std::this_thread::get_id();
  absl::StatusOr<AsyncValueRef<Chain>> done =
      ParallelFor(host.get(), 5, /*min_block=*/10, [caller](int64_t begin, int64_t end) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        EXPECT_EQ(begin, 0);
        EXPECT_EQ(end, 5);
        return absl::OkStatus();
      });
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->IsAvailable());
  // One range: its error is the result itself, not a chain.
  absl::StatusOr<AsyncValueRef<Chain>> failed = ParallelFor(
      host.get(), 5, 10, [](int64_t, int64_t) { return absl::InternalError("part failed"); });
  EXPECT_EQ(failed.status().message(), "part failed");
}

TEST(ParallelForTest, OneThreadRunsEverythingHere) {
  auto host = MakeHost("s");
  int calls = 0;
  absl::StatusOr<AsyncValueRef<Chain>> done =
      ParallelFor(host.get(), 1000, 1, [&calls](int64_t begin, int64_t end) {
        ++calls;
        EXPECT_EQ(end - begin, 1000);
        return absl::OkStatus();
      });
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->IsAvailable());
  EXPECT_EQ(calls, 1);
}

TEST(ParallelForTest, AnErrorOfAnyRangeMakesTheChainAnError) {
  auto host = MakeHost("mstd:2");
  absl::StatusOr<AsyncValueRef<Chain>> done =
      ParallelFor(host.get(), 100, 10, [](int64_t begin, int64_t) {
        if (begin != 0) return absl::InternalError("the second range failed");
        return absl::OkStatus();
      });
  ASSERT_TRUE(done.ok());
  Wait(*host, *done);
  ASSERT_TRUE(done->IsError());
  EXPECT_EQ(done->GetError().message(), "the second range failed");
}

}  // namespace
}  // namespace bef
