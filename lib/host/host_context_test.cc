// HostContext and per-request state: diagnostics, shared contexts,
// cancellation, deadlines (timer queue), resource contexts, request data.
#include "bef/host/host_context.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "bef/host/async_dispatch.h"
#include "bef/host/execution_context.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

std::unique_ptr<HostContext> MakeHost(std::vector<std::string>* messages = nullptr) {
  return std::make_unique<HostContext>(
      [messages](const DecodedDiagnostic& diagnostic) {
        if (messages) messages->push_back(diagnostic.message());
      },
      CreateMallocAllocator(), CreateSingleThreadedWorkQueue());
}

TEST(HostContextTest, EmitErrorReachesTheHandler) {
  std::vector<std::string> messages;
  auto host = MakeHost(&messages);
  host->EmitError({std::nullopt, absl::InternalError("loader failed")});
  EXPECT_THAT(messages, ::testing::ElementsAre("loader failed"));
}

struct CountingContext : SharedContext {
  static std::atomic<int> created;
  static std::atomic<int> destroyed;
  explicit CountingContext(HostContext* host) : host(host) { ++created; }
  ~CountingContext() override { ++destroyed; }
  HostContext* host;
};
std::atomic<int> CountingContext::created{0};
std::atomic<int> CountingContext::destroyed{0};

TEST(HostContextTest, SharedContextsAreCreatedOncePerHost) {
  {
    auto host = MakeHost();
    CountingContext& a = host->GetOrCreateSharedContext<CountingContext>();
    CountingContext& b = host->GetOrCreateSharedContext<CountingContext>();
    EXPECT_EQ(&a, &b);
    EXPECT_EQ(a.host, host.get());
    EXPECT_EQ(CountingContext::created.load(), 1);
    auto other = MakeHost();
    EXPECT_NE(&other->GetOrCreateSharedContext<CountingContext>(), &a);
  }
  EXPECT_EQ(CountingContext::destroyed.load(), 2);
}

TEST(HostContextTest, WorkAndQuiesce) {
  auto host = MakeHost();
  int runs = 0;
  host->EnqueueWork([&] { ++runs; });
  EXPECT_TRUE(host->EnqueueBlockingWork([&] { ++runs; }));
  EXPECT_FALSE(host->RunBlockingWork([&] { ++runs; }));  // `s` refuses
  EXPECT_EQ(runs, 0);
  host->Quiesce();
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(host->GetNumWorkerThreads(), 1);
  EXPECT_EQ(host->host_device_name(), "CPU:0");
}

TEST(RequestContextTest, CancellationIsFirstWins) {
  auto host = MakeHost();
  RCReference<RequestContext> request = RequestContext::Create(host.get(), nullptr);
  EXPECT_FALSE(request->IsCancelled());
  EXPECT_EQ(request->GetCancelAsyncValue(), nullptr);
  request->Cancel();
  request->Cancel(absl::AbortedError("second"));
  ASSERT_TRUE(request->IsCancelled());
  const absl::Status& error = request->GetCancelAsyncValue()->GetError();
  EXPECT_EQ(error.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(error.message(), "Cancelled");
  ExecutionContext context(request);
  EXPECT_TRUE(context.IsCancelled());
}

TEST(RequestContextTest, DeadlineCancels) {
  auto host = MakeHost();
  RCReference<RequestContext> request = RequestContext::Create(host.get(), nullptr);
  request->SetDeadline(absl::Now() + absl::Milliseconds(20));
  EXPECT_FALSE(request->IsCancelled());
  auto start = std::chrono::steady_clock::now();
  while (!request->IsCancelled() &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(request->IsCancelled());
  EXPECT_EQ(request->GetCancelAsyncValue()->GetError().code(),
            absl::StatusCode::kDeadlineExceeded);

  RCReference<RequestContext> past = RequestContext::Create(host.get(), nullptr);
  past->SetDeadline(absl::Now() - absl::Seconds(1));
  EXPECT_TRUE(past->IsCancelled());
}

TEST(RequestContextTest, DeadlineDoesNotOutliveTheRequest) {
  auto host = MakeHost();
  for (int i = 0; i < 100; ++i) {
    RCReference<RequestContext> request =
        RequestContext::Create(host.get(), nullptr);
    request->SetDeadline(absl::Now() + absl::Milliseconds(i % 3));
    request->SetDeadline(absl::Now() + absl::Hours(1));  // replaces
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

TEST(RequestContextTest, ResourcesAndData) {
  auto host = MakeHost();
  ResourceContext resources;
  RCReference<RequestContext> request =
      RequestContext::Create(host.get(), &resources, 7);
  EXPECT_EQ(request->id(), 7);
  int makes = 0;
  int* a = resources.GetOrCreate<int>("x", [&] { ++makes; return 5; });
  int* b = resources.GetOrCreate<int>("x", [&] { ++makes; return 6; });
  EXPECT_EQ(a, b);
  EXPECT_EQ(*a, 5);
  EXPECT_EQ(makes, 1);
  EXPECT_EQ(resources.Get<int>("y"), nullptr);
  EXPECT_EQ(request->resource_context(), &resources);

  EXPECT_EQ(request->GetData<std::string>(), nullptr);
  request->SetData(std::string("payload"));
  ASSERT_NE(request->GetData<std::string>(), nullptr);
  EXPECT_EQ(*request->GetData<std::string>(), "payload");
}

TEST(TimerQueueTest, RunsInDeadlineOrderAndCancels) {
  TimerQueue timers;
  std::vector<int> order;
  std::mutex mutex;
  auto record = [&](int i) {
    return [&, i] {
      std::lock_guard<std::mutex> lock(mutex);
      order.push_back(i);
    };
  };
  absl::Time now = absl::Now();
  timers.ScheduleAt(now + absl::Milliseconds(30), record(3));
  timers.ScheduleAt(now + absl::Milliseconds(10), record(1));
  TimerQueue::TimerId cancelled =
      timers.ScheduleAt(now + absl::Milliseconds(20), record(2));
  EXPECT_TRUE(timers.Cancel(cancelled));
  EXPECT_FALSE(timers.Cancel(cancelled));
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (order.size() == 2) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_THAT(order, ::testing::ElementsAre(1, 3));
}


// What a server does between requests that run one after another: each
// request's deadline is set after the last one's was cancelled, later than
// the time the timer thread sleeps toward (which is not woken for it), and
// still runs on time; an earlier one set afterwards wakes it.
TEST(TimerQueueTest, LaterDeadlinesAfterACancelledOneStillRun) {
  TimerQueue timers;
  std::atomic<int> ran{0};
  std::atomic<int64_t> late_by_nanos{0};
  absl::Time now = absl::Now();
  for (int i = 1; i <= 20; ++i) {
    TimerQueue::TimerId id =
        timers.ScheduleAt(now + absl::Milliseconds(10 * i), [&] { ran.fetch_add(100); });
    EXPECT_TRUE(timers.Cancel(id));
  }
  const absl::Time due = now + absl::Milliseconds(250);
  timers.ScheduleAt(due, [&] {
    late_by_nanos.store(absl::ToInt64Nanoseconds(absl::Now() - due));
    ran.fetch_add(1);
  });
  // Earlier than anything the thread sleeps toward: it is woken.
  timers.ScheduleAt(now + absl::Milliseconds(5), [&] { ran.fetch_add(10); });
  auto start = std::chrono::steady_clock::now();
  while (ran.load() != 11 && std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(ran.load(), 11);
  EXPECT_GE(late_by_nanos.load(), 0);
}

// EnqueueWork (async_dispatch.h): the work runs on a task, not in the call;
// what it returns (a value, StatusOr, Status) becomes the value; a work returning
// nothing is a task and returns nothing, as TFRT's.
TEST(EnqueueWorkTest, EveryKindOfResult) {
  auto host = MakeHost();
  ExecutionContext context(RequestContext::Create(host.get(), nullptr));
  int runs = 0;
  AsyncValueRef<int32_t> sum = EnqueueWork(context, [&runs] {
    ++runs;
    return int32_t{42};
  });
  AsyncValueRef<int64_t> value =
      EnqueueWork(context, [] { return absl::StatusOr<int64_t>(int64_t{7}); });
  AsyncValueRef<int64_t> failed = EnqueueWork(
      context, [] { return absl::StatusOr<int64_t>(absl::InvalidArgumentError("no")); });
  AsyncValueRef<Chain> done = EnqueueWork(context, [] { return absl::OkStatus(); });
  AsyncValueRef<Chain> status = EnqueueWork(context, [] { return absl::InternalError("bad"); });
  EnqueueWork(context, [&runs] { ++runs; });  // nothing returned, as TFRT's
  // The single-threaded queue runs tasks when waited on: nothing ran yet.
  EXPECT_EQ(runs, 0);
  EXPECT_FALSE(sum.IsAvailable());
  host->Quiesce();
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(sum.get(), 42);
  EXPECT_EQ(value.get(), 7);
  ASSERT_TRUE(failed.IsError());
  EXPECT_EQ(failed.GetError().message(), "no");
  EXPECT_TRUE(done.IsConcrete());
  ASSERT_TRUE(status.IsError());
  EXPECT_EQ(status.GetError().code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace bef
