// ParallelFor (bef/host/parallel_for.h): the ranges cover [0, count) once
// each, a range is never shorter than the minimum (but the last), small
// work runs on the caller with no task, every range has run when it
// returns, the first error wins, and a range no other thread starts is run
// by the caller (never waited for in the queue). Under TSan (tag
// concurrency): the ranges write disjoint parts of one array from the work
// queue's threads, read by the caller after the return.
#include "bef/host/parallel_for.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
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

TEST(ParallelForTest, CoversEveryIndexOnceOnTwoThreads) {
  auto host = MakeHost("mstd:2");
  for (int64_t count : {1, 2, 7, 100, 1001}) {
    std::vector<int> hits(count, 0);  // plain ints: written by the ranges, read here
    std::atomic<int> ranges{0};
    absl::Status status =
        ParallelFor(host.get(), count, /*min_block=*/3, [&](int64_t begin, int64_t end) {
          EXPECT_LT(begin, end);
          EXPECT_LE(end, count);
          if (end != count) {
            EXPECT_GE(end - begin, 3);
          }
          for (int64_t i = begin; i < end; ++i) ++hits[i];
          ranges.fetch_add(1);
          return absl::OkStatus();
        });
    ASSERT_TRUE(status.ok()) << status;
    for (int64_t i = 0; i < count; ++i) EXPECT_EQ(hits[i], 1) << i;
    EXPECT_EQ(ranges.load(), count >= 6 ? 2 : 1) << count;  // two threads at most
  }
}

TEST(ParallelForTest, SmallWorkRunsHere) {
  auto host = MakeHost("mstd:2");
  const std::thread::id caller = std::this_thread::get_id();
  int calls = 0;
  absl::Status status =
      ParallelFor(host.get(), 5, /*min_block=*/10, [&](int64_t begin, int64_t end) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        EXPECT_EQ(begin, 0);
        EXPECT_EQ(end, 5);
        ++calls;
        return absl::OkStatus();
      });
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(calls, 1);
  absl::Status failed = ParallelFor(
      host.get(), 5, 10, [](int64_t, int64_t) { return absl::InternalError("part failed"); });
  EXPECT_EQ(failed.message(), "part failed");
}

TEST(ParallelForTest, OneThreadRunsEverythingHere) {
  auto host = MakeHost("s");
  int calls = 0;
  absl::Status status = ParallelFor(host.get(), 1000, 1, [&calls](int64_t begin, int64_t end) {
    ++calls;
    EXPECT_EQ(end - begin, 1000);
    return absl::OkStatus();
  });
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(calls, 1);
}

TEST(ParallelForTest, AnErrorOfAnyRangeIsTheResult) {
  auto host = MakeHost("mstd:2");
  for (int round = 0; round < 20; ++round) {
    absl::Status status = ParallelFor(host.get(), 100, 10, [](int64_t begin, int64_t) {
      if (begin != 0) return absl::InternalError("the second range failed");
      return absl::OkStatus();
    });
    EXPECT_EQ(status.message(), "the second range failed");
  }
}

// Both compute threads are held by other tasks: the offered range waits in
// the queue, and the caller runs it itself instead of waiting for it. The
// task found later has nothing left to run.
// A split that begins while another runs takes its share of the threads:
// on two threads, none to spare, so it runs whole on its caller. When both
// have ended, the next split takes both threads again.
TEST(ParallelForTest, SplitsAtOnceShareTheThreads) {
  auto host = MakeHost("mstd:2");
  std::atomic<int> outer_ranges{0};
  std::atomic<int> inner_calls{0};
  absl::Status status = ParallelFor(host.get(), 100, 10, [&](int64_t begin, int64_t end) {
    outer_ranges.fetch_add(1);
    const std::thread::id here = std::this_thread::get_id();
    return ParallelFor(host.get(), 1000, 10, [&](int64_t inner_begin, int64_t inner_end) {
      EXPECT_EQ(std::this_thread::get_id(), here);
      EXPECT_EQ(inner_begin, 0);
      EXPECT_EQ(inner_end, 1000);
      inner_calls.fetch_add(1);
      return absl::OkStatus();
    });
  });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(outer_ranges.load(), 2);
  EXPECT_EQ(inner_calls.load(), 2);  // one whole call per outer range
  std::atomic<int> ranges{0};
  status = ParallelFor(host.get(), 100, 10, [&](int64_t, int64_t) {
    ranges.fetch_add(1);
    return absl::OkStatus();
  });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(ranges.load(), 2);
}

TEST(ParallelForTest, TheCallerRunsRangesNoThreadStarted) {
  auto host = MakeHost("mstd:2");
  std::mutex mutex;
  std::condition_variable released;
  bool release = false;
  std::atomic<int> holding{0};
  for (int i = 0; i < 2; ++i) {
    host->EnqueueWork([&] {
      holding.fetch_add(1);
      std::unique_lock<std::mutex> lock(mutex);
      released.wait(lock, [&] { return release; });
    });
  }
  // (Released on every way out, so the host's threads can end.)
  struct Release {
    std::mutex& mutex;
    std::condition_variable& released;
    bool& release;
    ~Release() {
      {
        std::lock_guard<std::mutex> lock(mutex);
        release = true;
      }
      released.notify_all();
    }
  };
  {
    Release guard{mutex, released, release};
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (holding.load() < 2 && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    ASSERT_EQ(holding.load(), 2);
    const std::thread::id caller = std::this_thread::get_id();
    std::set<int64_t> begins;
    absl::Status status = ParallelFor(host.get(), 100, 10, [&](int64_t begin, int64_t) {
      EXPECT_EQ(std::this_thread::get_id(), caller);
      begins.insert(begin);
      return absl::OkStatus();
    });
    EXPECT_TRUE(status.ok());
    EXPECT_EQ(begins, (std::set<int64_t>{0, 50}));
  }
  host->Quiesce();
}

}  // namespace
}  // namespace bef
