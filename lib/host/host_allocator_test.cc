// Host allocators: malloc, profiled (profile on destruction), leak check
// (silent when clean; profile, message and exit 1 on a leak), fixed-size 1k
// (TFRT's log lines, budget, unaccounted small allocations).
#include "bef/host/host_allocator.h"
#include "bef/support/sanitizers.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

using ::testing::HasSubstr;

TEST(HostAllocatorTest, MallocHonoursAlignment) {
  std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();
  for (size_t alignment : {1, 8, 16, 64, 4096}) {
    void* pointer = allocator->AllocateBytes(100, alignment);
    ASSERT_NE(pointer, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pointer) % alignment, 0u);
    allocator->DeallocateBytes(pointer, 100);
  }
  int* value = allocator->New<int>(7);
  EXPECT_EQ(*value, 7);
  allocator->Delete(value);
}

// A freed large block serves the next request of its page count (a model's
// tensors of every run reuse the first run's pages); other sizes, larger
// alignments and blocks past the bound get their own.
TEST(HostAllocatorTest, MallocKeepsLargeBlocksForTheSameSize) {
  std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator(/*max_kept_bytes=*/1 << 20);
  void* first = allocator->AllocateBytes(kLargeBlock + 100, 64);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 4096, 0u);
  static_cast<char*>(first)[kLargeBlock + 99] = 1;
  allocator->DeallocateBytes(first, kLargeBlock + 100);
  void* again = allocator->AllocateBytes(kLargeBlock + 200, 16);  // the same page count
  EXPECT_EQ(again, first);
  void* other = allocator->AllocateBytes(kLargeBlock + 8192, 64);  // two pages more
  EXPECT_NE(other, first);
  allocator->DeallocateBytes(again, kLargeBlock + 200);
  void* aligned = allocator->AllocateBytes(kLargeBlock + 100, 8192);
  EXPECT_NE(aligned, first);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned) % 8192, 0u);
  allocator->DeallocateBytes(aligned, kLargeBlock + 100);
  allocator->DeallocateBytes(other, kLargeBlock + 8192);
  // 2 MiB does not fit a 1 MiB bound: freed at once, so a second one is
  // another block (malloc may hand back the same address; only the kept
  // blocks are checked here).
  void* big = allocator->AllocateBytes(size_t{2} << 20, 64);
  allocator->DeallocateBytes(big, size_t{2} << 20);
  void* small_again = allocator->AllocateBytes(kLargeBlock + 100, 64);
  EXPECT_TRUE(small_again == first || small_again == aligned);
  allocator->DeallocateBytes(small_again, kLargeBlock + 100);
}

TEST(HostAllocatorTest, ProfiledAllocatorPrintsItsProfile) {
  ::testing::internal::CaptureStdout();
  {
    std::unique_ptr<HostAllocator> allocator =
        CreateProfiledAllocator(CreateMallocAllocator());
    void* a = allocator->AllocateBytes(100, 8);
    void* b = allocator->AllocateBytes(28, 4);
    allocator->DeallocateBytes(a, 100);
    void* c = allocator->AllocateBytes(4, 4);
    allocator->DeallocateBytes(b, 28);
    allocator->DeallocateBytes(c, 4);
  }
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "HostAllocator profile:\n"
            "Current number of allocations = 0\n"
            "Max number of allocations = 2\n"
            "Total number of allocations = 3\n"
            "Current number of bytes allocated = 0\n"
            "Max number of bytes allocated = 128\n");
}

TEST(HostAllocatorTest, LeakCheckIsSilentWhenClean) {
  ::testing::internal::CaptureStdout();
  {
    auto allocator = CreateHostAllocator("leak_check_allocator").value();
    allocator->DeallocateBytes(allocator->AllocateBytes(16, 8), 16);
  }
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
}

TEST(HostAllocatorDeathTest, LeakCheckReportsAndExits) {
  EXPECT_EXIT(
      {
        auto allocator = CreateHostAllocator("leak_check_allocator").value();
        IgnoreIntentionalLeak(allocator->AllocateBytes(4, 4));
        void* freed = allocator->AllocateBytes(600, 8);
        allocator->DeallocateBytes(freed, 600);
        allocator.reset();
      },
      ::testing::ExitedWithCode(1), "");
}

TEST(HostAllocatorTest, LeakCheckOutput) {
  // The same as above, checking stdout in a child process.
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  pid_t child = fork();
  if (child == 0) {
    dup2(pipe_fds[1], 1);
    auto allocator = CreateHostAllocator("leak_check_allocator").value();
    IgnoreIntentionalLeak(allocator->AllocateBytes(4, 4));
    void* freed = allocator->AllocateBytes(600, 8);
    allocator->DeallocateBytes(freed, 600);
    allocator.reset();
    _exit(0);  // not reached: the leak check exits with 1
  }
  close(pipe_fds[1]);
  std::string output;
  char buffer[256];
  ssize_t n;
  while ((n = read(pipe_fds[0], buffer, sizeof(buffer))) > 0) output.append(buffer, n);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(output,
            "HostAllocator profile:\n"
            "Current number of allocations = 1\n"
            "Max number of allocations = 2\n"
            "Total number of allocations = 2\n"
            "Current number of bytes allocated = 4\n"
            "Max number of bytes allocated = 604\n"
            "Memory leak detected: 1 alive allocations, 4 alive bytes\n");
}

TEST(HostAllocatorTest, FixedSizeAllocatorBudgetAndLogs) {
  auto allocator = CreateHostAllocator("test_fixed_size_1k").value();
  ::testing::internal::CaptureStderr();
  void* small = allocator->AllocateBytes(32, 8);  // not accounted
  void* a = allocator->AllocateBytes(608, 8);
  void* too_big = allocator->AllocateBytes(1000, 8);
  allocator->DeallocateBytes(a, 608);
  allocator->DeallocateBytes(small, 32);
  std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(small, nullptr);
  EXPECT_NE(a, nullptr);
  EXPECT_EQ(too_big, nullptr);
  EXPECT_THAT(log, HasSubstr("test_fixed_size_allocator.cc:67] Allocating 608 "
                             "bytes. 416 remaining.\n"));
  EXPECT_THAT(log, HasSubstr("test_fixed_size_allocator.cc:71] Attempted to "
                             "allocate 1000 bytes. However current capacity is "
                             "only 416.\n"));
  EXPECT_THAT(log, HasSubstr("test_fixed_size_allocator.cc:44] Freeing 608 "
                             "bytes. 1024 available.\n"));
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 3);
  EXPECT_EQ(log.substr(0, 2), "I ");
}

TEST(HostAllocatorTest, UnknownTypeIsAnError) {
  EXPECT_FALSE(CreateHostAllocator("tcmalloc").ok());
}

}  // namespace
}  // namespace bef
