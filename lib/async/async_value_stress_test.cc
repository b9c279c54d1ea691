// Concurrency stress test (run under --config=tsan too): one million values,
// several threads adding waiters while others set them, refcounts dropped
// from every thread. Every waiter must run exactly once and every payload be
// destroyed exactly once.
#include <atomic>
#include <thread>
#include <vector>

#include "bef/async/async_value.h"
#include "bef/async/async_value_ref.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

struct Counted {
  static std::atomic<int64_t> live;
  explicit Counted(int v) : value(v) { live.fetch_add(1); }
  ~Counted() { live.fetch_sub(1); }
  int value;
};
std::atomic<int64_t> Counted::live{0};

TEST(AsyncValueStressTest, ConcurrentWaitersAndSetters) {
  constexpr int kValues = 1'000'000;
  constexpr int kWaiterThreads = 3;
  std::vector<AsyncValueRef<Counted>> values;
  values.reserve(kValues);
  for (int i = 0; i < kValues; ++i) {
    values.push_back(MakeUnconstructedAsyncValueRef<Counted>());
  }
  std::atomic<int64_t> runs{0};
  std::atomic<int64_t> sum{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kWaiterThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kValues; ++i) {
        if (i % kWaiterThreads != t && i % 7 != 0) continue;
        AsyncValue* value = values[i].GetAsyncValue();
        value->AddRef();
        value->AndThen([value, &runs, &sum] {
          runs.fetch_add(1, std::memory_order_relaxed);
          if (value->IsConcrete()) {
            sum.fetch_add(value->get<Counted>().value,
                          std::memory_order_relaxed);
          }
          value->DropRef();
        });
      }
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < kValues; ++i) {
      if (i % 1000 == 999) {
        values[i].SetError(absl::InternalError("e"));
      } else {
        values[i].emplace(1);
      }
    }
  });
  for (auto& thread : threads) thread.join();

  int64_t expected_waiters = 0;
  int64_t expected_sum = 0;
  for (int i = 0; i < kValues; ++i) {
    int waiters = 0;
    for (int t = 0; t < kWaiterThreads; ++t) {
      if (i % kWaiterThreads == t || i % 7 == 0) ++waiters;
    }
    expected_waiters += waiters;
    if (i % 1000 != 999) expected_sum += waiters;
  }
  EXPECT_EQ(runs.load(), expected_waiters);
  EXPECT_EQ(sum.load(), expected_sum);
  values.clear();
  EXPECT_EQ(Counted::live.load(), 0);
}

TEST(AsyncValueStressTest, ConcurrentIndirectForwarding) {
  constexpr int kValues = 100'000;
  std::vector<RCReference<IndirectAsyncValue>> indirect;
  std::vector<AsyncValueRef<int>> targets;
  for (int i = 0; i < kValues; ++i) {
    indirect.push_back(MakeIndirectAsyncValue());
    targets.push_back(MakeUnconstructedAsyncValueRef<int>());
  }
  std::atomic<int> seen{0};
  std::thread forwarder([&] {
    for (int i = 0; i < kValues; ++i) indirect[i]->ForwardTo(targets[i].CopyRCRef());
  });
  std::thread setter([&] {
    for (int i = 0; i < kValues; ++i) targets[i].emplace(i);
  });
  std::thread waiter([&] {
    for (int i = 0; i < kValues; ++i) {
      IndirectAsyncValue* value = indirect[i].get();
      value->AddRef();
      value->AndThen([value, i, &seen] {
        if (value->get<int>() == i) seen.fetch_add(1);
        value->DropRef();
      });
    }
  });
  forwarder.join();
  setter.join();
  waiter.join();
  EXPECT_EQ(seen.load(), kValues);
}

}  // namespace
}  // namespace bef
