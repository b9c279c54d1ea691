// A binary that links the runtime but no oneTBB arena source cannot make an
// `mstd` queue, and is told what to link (no silent fallback to blocking
// threads, no search for a plugin).
#include <atomic>
#include <chrono>

#include "bef/host/work_queue.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

TEST(WorkQueueWithoutArenaTest, MstdNamesWhatToLink) {
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
      CreateMultiThreadedWorkQueue(2, 4);
  ASSERT_FALSE(queue.ok());
  EXPECT_EQ(queue.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(queue.status().message(),
              testing::HasSubstr("link //lib/host:tbb_arena"));
  // The single-threaded queue needs nothing.
  EXPECT_TRUE(CreateWorkQueue("s").ok());
}

// What a forked child uses (Python's os.fork(): oneTBB does not survive a
// fork): `mstd` queues on plain threads, running every task, in parallel.
TEST(WorkQueueWithoutArenaTest, PlainThreadArenasRunMstdQueues) {
  UsePlainThreadArenas();
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue = CreateWorkQueue("mstd:2");
  ASSERT_TRUE(queue.ok()) << queue.status();
  std::atomic<int> ran{0};
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  for (int i = 0; i < 64; ++i) {
    (*queue)->AddTask([&] {
      if (inside.fetch_add(1) > 0) overlapped = true;
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
      while (std::chrono::steady_clock::now() < until && !overlapped) {
      }
      inside.fetch_sub(1);
      ran.fetch_add(1);
    });
  }
  (*queue)->Quiesce();
  EXPECT_EQ(ran.load(), 64);
  EXPECT_TRUE(overlapped.load());  // two threads ran tasks at once
}

}  // namespace
}  // namespace bef
