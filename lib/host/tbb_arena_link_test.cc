// The runtime behaves the same wherever it is linked: a plain binary that
// links the runtime and //lib/host:tbb_arena, as an embedder does (no
// plugin, no runfiles, no environment), runs `mstd` compute tasks on
// oneTBB's arena threads.
#include <atomic>
#include <thread>
#include <vector>

#include "bef/host/host_context.h"
#include "bef/host/work_queue.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oneapi/tbb/task_arena.h"

namespace bef {
namespace {

TEST(TbbArenaLinkTest, MstdComputeTasksRunOnOneTbbArenaThreads) {
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
      CreateWorkQueue("mstd:2");
  ASSERT_TRUE(queue.ok()) << queue.status();
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   *std::move(queue));
  constexpr int kTasks = 200;
  std::atomic<int> on_arena{0};
  std::atomic<int> elsewhere{0};
  for (int i = 0; i < kTasks; ++i) {
    host.EnqueueWork([&] {
      // An arena thread has a slot index; any other thread has none.
      if (tbb::this_task_arena::current_thread_index() >= 0) {
        on_arena.fetch_add(1);
      } else {
        elsewhere.fetch_add(1);
      }
    });
  }
  host.Quiesce();
  EXPECT_EQ(on_arena.load(), kTasks);
  EXPECT_EQ(elsewhere.load(), 0);
}

}  // namespace
}  // namespace bef
