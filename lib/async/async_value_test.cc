// AsyncValue: every state transition, waiters before and after availability,
// indirect forwarding (including chains), errors, and reference counts that
// reach zero exactly once.
#include "bef/async/async_value.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bef/async/async_value_ref.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

using ::testing::ElementsAre;

// Counts constructions and destructions of payloads.
struct Tracked {
  static int live;
  static int destroyed;
  explicit Tracked(int v) : value(v) { ++live; }
  Tracked(Tracked&& other) : value(other.value) { ++live; }
  ~Tracked() {
    --live;
    ++destroyed;
  }
  int value;
};
int Tracked::live = 0;
int Tracked::destroyed = 0;

class AsyncValueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Tracked::live = 0;
    Tracked::destroyed = 0;
  }
  void TearDown() override { EXPECT_EQ(Tracked::live, 0); }
};

TEST_F(AsyncValueTest, AvailableValue) {
  AsyncValueRef<int32_t> value = MakeAvailableAsyncValueRef<int32_t>(42);
  EXPECT_TRUE(value.IsAvailable());
  EXPECT_TRUE(value.IsConcrete());
  EXPECT_FALSE(value.IsError());
  EXPECT_EQ(value.get(), 42);
  EXPECT_TRUE(value->IsType<int32_t>());
  EXPECT_FALSE(value->IsType<int64_t>());
  EXPECT_EQ(value->state(), AsyncValue::State::kConcrete);
}

TEST_F(AsyncValueTest, UnconstructedToConcreteRunsWaiters) {
  AsyncValueRef<Tracked> value = MakeUnconstructedAsyncValueRef<Tracked>();
  EXPECT_TRUE(value->IsUnconstructed());
  EXPECT_EQ(Tracked::live, 0);
  std::vector<int> order;
  value.AndThen([&] { order.push_back(1); });
  value.AndThen([&] { order.push_back(2); });
  EXPECT_TRUE(order.empty());
  value.emplace(7);
  // Waiters run in reverse order of registration, like TFRT's.
  EXPECT_THAT(order, ElementsAre(2, 1));
  EXPECT_EQ(value.get().value, 7);
  value.AndThen([&] { order.push_back(3); });  // already available: now
  EXPECT_THAT(order, ElementsAre(2, 1, 3));
}

TEST_F(AsyncValueTest, ConstructedThenConcrete) {
  AsyncValueRef<Tracked> value = MakeConstructedAsyncValueRef<Tracked>(5);
  EXPECT_TRUE(value->IsConstructed());
  EXPECT_FALSE(value.IsAvailable());
  EXPECT_EQ(Tracked::live, 1);
  bool ran = false;
  value.AndThen([&] { ran = true; });
  value.SetStateConcrete();
  EXPECT_TRUE(ran);
  EXPECT_EQ(value.get().value, 5);
}

TEST_F(AsyncValueTest, ErrorCarriesStatusAndLocation) {
  AsyncValueRef<Tracked> value = MakeUnconstructedAsyncValueRef<Tracked>();
  bool ran = false;
  value.AndThen([&] { ran = true; });
  value.SetError(absl::InternalError("boom"), Location{nullptr, 17});
  EXPECT_TRUE(ran);
  EXPECT_TRUE(value.IsError());
  EXPECT_TRUE(value.IsAvailable());
  EXPECT_EQ(value.GetError().message(), "boom");
  EXPECT_EQ(value->GetErrorInfo().location.data, 17u);
}

TEST_F(AsyncValueTest, ErrorReplacesAConstructedPayload) {
  AsyncValueRef<Tracked> value = MakeConstructedAsyncValueRef<Tracked>(1);
  value.SetError(absl::InternalError("late failure"));
  EXPECT_EQ(Tracked::live, 0);  // payload destroyed when the error was set
  EXPECT_TRUE(value.IsError());
}

TEST_F(AsyncValueTest, ErrorValueWithoutPayloadType) {
  RCReference<AsyncValue> error =
      MakeErrorAsyncValueRef(absl::CancelledError("Cancelled"));
  EXPECT_TRUE(error->IsError());
  EXPECT_EQ(error->GetError().code(), absl::StatusCode::kCancelled);
}

TEST_F(AsyncValueTest, ReferenceCountReachesZeroOnce) {
  {
    AsyncValueRef<Tracked> value = MakeAvailableAsyncValueRef<Tracked>(3);
    EXPECT_EQ(value->NumRef(), 1u);
    AsyncValueRef<Tracked> copy = value.CopyRef();
    EXPECT_EQ(value->NumRef(), 2u);
    value->AddRef(3);
    EXPECT_EQ(value->NumRef(), 5u);
    value->DropRef(3);
    copy.reset();
    EXPECT_TRUE(value->IsUnique());
    EXPECT_EQ(Tracked::destroyed, 0);
  }
  EXPECT_EQ(Tracked::destroyed, 1);
}

TEST_F(AsyncValueTest, UnconstructedValueDestroyedWithoutPayload) {
  { AsyncValueRef<Tracked> value = MakeUnconstructedAsyncValueRef<Tracked>(); }
  EXPECT_EQ(Tracked::destroyed, 0);
}

TEST_F(AsyncValueTest, ReadyChainIsNotCounted) {
  AsyncValue* chain = GetReadyChainValue();
  EXPECT_TRUE(chain->IsConcrete());
  EXPECT_TRUE(chain->IsType<Chain>());
  for (int i = 0; i < 10; ++i) {
    AsyncValueRef<Chain> ref = GetReadyChain();
    EXPECT_EQ(ref.GetAsyncValue(), chain);
  }
  EXPECT_TRUE(GetReadyChainValue()->IsConcrete());
}

TEST_F(AsyncValueTest, IndirectForwardedToAvailableValue) {
  RCReference<IndirectAsyncValue> indirect = MakeIndirectAsyncValue();
  EXPECT_TRUE(indirect->IsIndirect());
  EXPECT_FALSE(indirect->IsAvailable());
  bool ran = false;
  indirect->AndThen([&] { ran = true; });
  AsyncValueRef<Tracked> value = MakeAvailableAsyncValueRef<Tracked>(9);
  indirect->ForwardTo(value.CopyRCRef());
  EXPECT_TRUE(ran);
  EXPECT_TRUE(indirect->IsConcrete());
  EXPECT_TRUE(indirect->IsType<Tracked>());
  EXPECT_EQ(indirect->get<Tracked>().value, 9);
  value.reset();
  EXPECT_EQ(Tracked::destroyed, 0);  // the indirect value holds it
  indirect.reset();
  EXPECT_EQ(Tracked::destroyed, 1);
}

TEST_F(AsyncValueTest, IndirectValueIsUniqueOnlyWhenItsTargetIs) {
  RCReference<IndirectAsyncValue> indirect = MakeIndirectAsyncValue();
  EXPECT_FALSE(indirect->IsUnique());  // not forwarded yet
  AsyncValueRef<int32_t> value = MakeAvailableAsyncValueRef<int32_t>(3);
  indirect->ForwardTo(value.CopyRCRef());
  // One reference to the indirect value, but the payload is shared.
  EXPECT_EQ(indirect->NumRef(), 1u);
  EXPECT_FALSE(indirect->IsUnique());
  RCReference<IndirectAsyncValue> outer = MakeIndirectAsyncValue();
  outer->ForwardTo(indirect);
  indirect.reset();
  EXPECT_FALSE(outer->IsUnique());  // two levels down, still shared
  value.reset();
  EXPECT_TRUE(outer->IsUnique());
  RCReference<IndirectAsyncValue> second = outer;
  EXPECT_FALSE(outer->IsUnique());
}

TEST_F(AsyncValueTest, ScalarPayloadIsThePayloadOfEveryScalarType) {
  auto i8 = MakeAvailableAsyncValueRef<int8_t>(-3);
  auto i32 = MakeAvailableAsyncValueRef<int32_t>(7);
  auto i64 = MakeAvailableAsyncValueRef<int64_t>(int64_t{1} << 40);
  auto f64 = MakeAvailableAsyncValueRef<double>(2.5);
  auto flag = MakeAvailableAsyncValueRef<bool>(true);
  EXPECT_EQ(i8->ScalarPayload(), &i8.get());
  EXPECT_EQ(i32->ScalarPayload(), &i32.get());
  EXPECT_EQ(i64->ScalarPayload(), &i64.get());
  EXPECT_EQ(f64->ScalarPayload(), &f64.get());
  EXPECT_EQ(flag->ScalarPayload(), &flag.get());
  // Through forwarding (twice).
  RCReference<IndirectAsyncValue> outer = MakeIndirectAsyncValue();
  RCReference<IndirectAsyncValue> inner = MakeIndirectAsyncValue();
  outer->ForwardTo(inner);
  inner->ForwardTo(i64.CopyRCRef());
  EXPECT_EQ(outer->ScalarPayload(), &i64.get());
  EXPECT_EQ(*static_cast<int64_t*>(outer->ScalarPayload()), int64_t{1} << 40);
}

TEST_F(AsyncValueTest, IndirectForwardedToPendingValue) {
  RCReference<IndirectAsyncValue> indirect = MakeIndirectAsyncValue();
  AsyncValueRef<Tracked> value = MakeUnconstructedAsyncValueRef<Tracked>();
  indirect->ForwardTo(value.CopyRCRef());
  EXPECT_FALSE(indirect->IsAvailable());
  int runs = 0;
  indirect->AndThen([&] { ++runs; });
  value.emplace(4);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(indirect->get<Tracked>().value, 4);
}

TEST_F(AsyncValueTest, IndirectChainsAndErrors) {
  // a -> b -> c, c becomes an error.
  RCReference<IndirectAsyncValue> a = MakeIndirectAsyncValue();
  RCReference<IndirectAsyncValue> b = MakeIndirectAsyncValue();
  AsyncValueRef<int32_t> c = MakeUnconstructedAsyncValueRef<int32_t>();
  a->ForwardTo(b);
  b->ForwardTo(c.CopyRCRef());
  EXPECT_FALSE(a->IsAvailable());
  c.SetError(absl::InternalError("deep"));
  EXPECT_TRUE(b->IsError());
  EXPECT_TRUE(a->IsError());
  EXPECT_EQ(a->GetError().message(), "deep");
  // Forwarding to an already forwarded indirect value collapses the chain.
  RCReference<IndirectAsyncValue> d = MakeIndirectAsyncValue();
  d->ForwardTo(a);
  EXPECT_EQ(d->forwarded(), c.GetAsyncValue());
}

TEST_F(AsyncValueTest, DeepForwardingChainsDoNotGrowTheStack) {
  // A chain of one million indirect values, each forwarded to the next
  // before the last becomes available: resolving it runs a million nested
  // notifications, which must not recurse a million frames deep.
  constexpr int kDepth = 1'000'000;
  std::vector<RCReference<IndirectAsyncValue>> chain;
  chain.reserve(kDepth);
  for (int i = 0; i < kDepth; ++i) chain.push_back(MakeIndirectAsyncValue());
  for (int i = 0; i + 1 < kDepth; ++i) chain[i]->ForwardTo(chain[i + 1]);
  AsyncValueRef<int> end = MakeUnconstructedAsyncValueRef<int>();
  chain.back()->ForwardTo(end.CopyRCRef());
  bool first_ready = false;
  chain.front()->AndThen([&] { first_ready = true; });
  end.emplace(42);
  EXPECT_TRUE(first_ready);
  EXPECT_EQ(chain.front()->get<int>(), 42);
  chain.clear();
}

TEST_F(AsyncValueTest, RunWhenReady) {
  AsyncValueRef<int32_t> a = MakeUnconstructedAsyncValueRef<int32_t>();
  AsyncValueRef<int32_t> b = MakeAvailableAsyncValueRef<int32_t>(1);
  AsyncValueRef<int32_t> c = MakeUnconstructedAsyncValueRef<int32_t>();
  AsyncValue* values[] = {a.GetAsyncValue(), b.GetAsyncValue(),
                          c.GetAsyncValue()};
  int runs = 0;
  RunWhenReady(values, [&] { ++runs; });
  EXPECT_EQ(runs, 0);
  a.emplace(1);
  EXPECT_EQ(runs, 0);
  c.SetError(absl::InternalError("x"));
  EXPECT_EQ(runs, 1);
  RunWhenReady(values, [&] { ++runs; });  // all available: now
  EXPECT_EQ(runs, 2);
}

TEST_F(AsyncValueTest, NonTrivialPayloads) {
  AsyncValueRef<std::string> text =
      MakeAvailableAsyncValueRef<std::string>(1000, 'x');
  EXPECT_EQ(text.get().size(), 1000u);
  AsyncValueRef<std::unique_ptr<int>> owned =
      MakeUnconstructedAsyncValueRef<std::unique_ptr<int>>();
  owned.emplace(new int(5));
  EXPECT_EQ(*owned.get(), 5);
}

// Values made on one thread and freed on another: the freeing thread's
// full free list hands batches to the transfer store, and the making
// thread's empty list takes them back, so the memory circulates instead of
// the maker asking malloc for every value (value_memory.cc).
TEST(ValueMemoryTest, BlocksFreedOnAnotherThreadComeBack) {
  if (!internal::kValueFreeLists) GTEST_SKIP() << "sanitizer builds use malloc only";
  constexpr size_t kSize = 48;  // a class no other test here fills
  ASSERT_EQ(internal::ValueTransferBatchesForTesting(kSize), 0);
  // The other thread's list holds 4,096 blocks; the next 16 x 256 fill the
  // store, the rest go to malloc.
  std::vector<void*> made(4096 + 16 * 256 + 1000);
  for (void*& block : made) block = internal::AllocateValueMemory(kSize);
  std::thread([&made] {
    for (void* block : made) internal::FreeValueMemory(block, kSize);
  }).join();
  EXPECT_EQ(internal::ValueTransferBatchesForTesting(kSize), 16);
  // This thread's list is empty: the first allocation takes a batch, the
  // next 255 come from it without touching the store.
  std::set<void*> given(made.begin() + 4096, made.begin() + 4096 + 16 * 256);
  std::vector<void*> again(256);
  for (void*& block : again) {
    block = internal::AllocateValueMemory(kSize);
    EXPECT_EQ(given.count(block), 1u);
  }
  EXPECT_EQ(internal::ValueTransferBatchesForTesting(kSize), 15);
  for (void* block : again) internal::FreeValueMemory(block, kSize);
}

// A fork while another thread holds a transfer store's lock (inside
// TakeBatch or GiveBatch): the child, which has only the forking thread,
// must still find the store free (value_memory.cc locks every store around
// a fork), or its first batch from the store would spin for ever.
TEST(ValueMemoryTest, ChildOfAForkFindsTheTransferStoreFree) {
  if (!internal::kValueFreeLists) GTEST_SKIP() << "sanitizer builds use malloc only";
  constexpr size_t kSize = 80;  // a class no other test here fills
  // Batches in the store: this thread's list of the class is empty (it only
  // made blocks), another thread's filled and gave the rest away.
  std::vector<void*> made(4096 + 2 * 256);
  for (void*& block : made) block = internal::AllocateValueMemory(kSize);
  std::thread([&made] {
    for (void* block : made) internal::FreeValueMemory(block, kSize);
  }).join();
  ASSERT_GT(internal::ValueTransferBatchesForTesting(kSize), 0);
  std::atomic<bool> holding{false};
  std::thread holder([&holding] {
    internal::HoldValueTransferStoreForTesting(kSize);
    holding.store(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    internal::ReleaseValueTransferStoreForTesting(kSize);
  });
  while (!holding.load()) std::this_thread::yield();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The class's list is empty here: this takes a batch from the store.
    void* block = internal::AllocateValueMemory(kSize);
    internal::FreeValueMemory(block, kSize);
    _exit(0);
  }
  holder.join();
  // Bounded: 10 s for a child that needs microseconds.
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 1000 && done == 0; ++i) {
    done = waitpid(child, &status, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (done == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "the child of the fork hung taking a batch from the transfer store";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace bef
