// A binary that links the runtime but no oneTBB arena source cannot make an
// `mstd` queue, and is told what to link (no silent fallback to blocking
// threads, no search for a plugin).
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

}  // namespace
}  // namespace bef
