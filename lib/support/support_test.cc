#include <memory>
#include <string>

#include "bef/support/logging.h"
#include "bef/support/unique_function.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

TEST(UniqueFunctionTest, SmallAndLargeCallablesMoveOnly) {
  auto owned = std::make_unique<int>(5);
  UniqueFunction<int(int)> small = [p = std::move(owned)](int x) { return *p + x; };
  EXPECT_EQ(small(2), 7);
  UniqueFunction<int(int)> moved = std::move(small);
  EXPECT_FALSE(small);
  EXPECT_EQ(moved(3), 8);

  std::string big(200, 'x');
  char padding[100] = {};
  UniqueFunction<size_t()> large = [big, padding] { return big.size() + sizeof(padding); };
  UniqueFunction<size_t()> large_moved = std::move(large);
  EXPECT_EQ(large_moved(), 300u);
  large_moved = nullptr;
  EXPECT_FALSE(large_moved);
}

TEST(UniqueFunctionTest, DestroysCapturesOnce) {
  auto counter = std::make_shared<int>(0);
  {
    UniqueFunction<void()> f = [counter] {};
    EXPECT_EQ(counter.use_count(), 2);
    UniqueFunction<void()> g = std::move(f);
    EXPECT_EQ(counter.use_count(), 2);
  }
  EXPECT_EQ(counter.use_count(), 1);
}

// A trivially copyable callable (what executor tasks capture: pointers and
// indices) is moved by copying its bytes; it keeps every capture through
// moves and assignments, and the moved-from function is empty.
TEST(UniqueFunctionTest, TriviallyCopyableCallablesMoveByTheirBytes) {
  int total = 0;
  int* sink = &total;
  uint32_t a = 7, b = 11, c = 13;
  uint64_t d = 1000;
  UniqueFunction<void()> f = [sink, a, b, c, d] { *sink += static_cast<int>(a + b + c + d); };
  UniqueFunction<void()> g = std::move(f);
  EXPECT_FALSE(f);
  UniqueFunction<void()> h;
  h = std::move(g);
  EXPECT_FALSE(g);
  h();
  EXPECT_EQ(total, 1031);
  h = [sink] { *sink = -1; };
  h();
  EXPECT_EQ(total, -1);
}

TEST(LoggingTest, TfrtLineFormat) {
  ::testing::internal::CaptureStderr();
  LogLine(LogSeverity::kError, "static_registration.cc", 34,
          "Invalid argument for s work queue: 4");
  std::string line = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(line, ::testing::MatchesRegex(
                        "E [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}"
                        "\\.[0-9]{6} [0-9]+ static_registration\\.cc:34\\] "
                        "Invalid argument for s work queue: 4\n"));
}

}  // namespace
}  // namespace bef
