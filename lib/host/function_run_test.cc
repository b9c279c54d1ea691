// FunctionRun: chains filled in, inputs in order, the keep-alive held as
// long as the request, outputs without chains, the first error found; a run
// that can always end (Done at its results or its cancellation, Settle);
// RequestContext::CancellationSignal.
#include "bef/host/function_run.h"

#include <chrono>
#include <memory>
#include <string_view>
#include <vector>

#include "bef/async/async_value_ref.h"
#include "bef/host/execution_context.h"
#include "bef/host/host_context.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

// (chain, i32, chain, i32) -> (i32, chain, i32): the sum of its i32s, a
// chain, and what it saw as its first argument's state; or, when `fail`,
// an error for the last result. Remembers its request.
class SumFunction : public Function {
 public:
  explicit SumFunction(bool fail = false)
      : Function("sum", FunctionKind::kBefFunction,
                 {"!tfrt.chain", "i32", "!tfrt.chain", "i32"},
                 {"i32", "!tfrt.chain", "i32"}),
        fail_(fail) {}

  void Execute(const ExecutionContext& context, std::span<AsyncValue* const> arguments,
               std::span<RCReference<AsyncValue>> results) const override {
    request = FormRef(context.request_context());
    chains_ready = arguments[0]->IsAvailable() && arguments[2]->IsAvailable() &&
                   arguments[0] == arguments[2];
    results[0] = MakeAvailableAsyncValueRef<int32_t>(arguments[1]->get<int32_t>() +
                                                     arguments[3]->get<int32_t>())
                     .ReleaseRCRef();
    results[1] = FormRef(GetReadyChainValue());
    results[2] = fail_ ? MakeErrorAsyncValueRef(absl::InternalError("failed"))
                       : MakeAvailableAsyncValueRef<int32_t>(arguments[1]->get<int32_t>())
                             .ReleaseRCRef();
  }

  mutable RCReference<RequestContext> request;
  mutable bool chains_ready = false;

 private:
  bool fail_;
};

std::unique_ptr<HostContext> MakeHost() {
  return std::make_unique<HostContext>([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                                       CreateSingleThreadedWorkQueue());
}

std::vector<RCReference<AsyncValue>> Inputs(int32_t first, int32_t second) {
  std::vector<RCReference<AsyncValue>> inputs;
  inputs.push_back(MakeAvailableAsyncValueRef<int32_t>(first).ReleaseRCRef());
  inputs.push_back(MakeAvailableAsyncValueRef<int32_t>(second).ReleaseRCRef());
  return inputs;
}

TEST(FunctionRunTest, TakesOneValuePerNonChainArgumentAndFillsTheChains) {
  auto host = MakeHost();
  SumFunction function;
  EXPECT_EQ(FunctionRun::NumInputs(function), 2u);
  ResourceContext resources;
  FunctionRun run(function, host.get(), &resources, Inputs(40, 2), nullptr, 7);
  run.Execute();
  EXPECT_TRUE(function.chains_ready);
  EXPECT_EQ(run.request().id(), 7);
  EXPECT_EQ(run.request().resource_context(), &resources);
  EXPECT_EQ(run.FirstErrorResult(), -1);
  std::vector<RCReference<AsyncValue>> outputs = run.TakeOutputs();
  ASSERT_EQ(outputs.size(), 2u);  // the chain result is left out
  EXPECT_EQ(outputs[0]->get<int32_t>(), 42);
  EXPECT_EQ(outputs[1]->get<int32_t>(), 40);
}

TEST(FunctionRunTest, FindsTheFirstErrorResult) {
  auto host = MakeHost();
  SumFunction function(/*fail=*/true);
  FunctionRun run(function, host.get(), nullptr, Inputs(1, 2), nullptr, 1);
  run.Execute();
  EXPECT_EQ(run.FirstErrorResult(), 2);
  EXPECT_EQ(run.results()[2]->GetErrorInfo().status.message(), "failed");
}

TEST(FunctionRunTest, TheRequestHoldsTheKeepAliveAfterTheRunIsGone) {
  auto host = MakeHost();
  SumFunction function;
  auto owner = std::make_shared<int>(5);
  std::weak_ptr<int> watched = owner;
  {
    FunctionRun run(function, host.get(), nullptr, Inputs(1, 2), std::move(owner), 1);
    run.Execute();
  }
  // The function still holds the request (as the executor does while any
  // of its work is queued): the owner lives on.
  EXPECT_FALSE(watched.expired());
  function.request.reset();
  EXPECT_TRUE(watched.expired());
}

// () -> (i32, i32): 1, and a value the test completes (or never does).
class PendingFunction : public Function {
 public:
  PendingFunction() : Function("pending", FunctionKind::kBefFunction, {}, {"i32", "i32"}) {}
  void Execute(const ExecutionContext&, std::span<AsyncValue* const>,
               std::span<RCReference<AsyncValue>> results) const override {
    results[0] = MakeAvailableAsyncValueRef<int32_t>(1).ReleaseRCRef();
    results[1] = pending.CopyRCRef();
  }
  AsyncValueRef<int32_t> pending = MakeUnconstructedAsyncValueRef<int32_t>();
};

TEST(FunctionRunTest, DoneAtOnceWhenEveryResultIs) {
  auto host = MakeHost();
  SumFunction function;
  FunctionRun run(function, host.get(), nullptr, Inputs(1, 2), nullptr, 1);
  run.Execute();
  EXPECT_TRUE(run.Done()->IsAvailable());
  run.Settle();
  EXPECT_EQ(run.results()[0]->get<int32_t>(), 3);
}

TEST(FunctionRunTest, DoneWhenTheLastResultIs) {
  auto host = MakeHost();
  PendingFunction function;
  FunctionRun run(function, host.get(), nullptr, {}, nullptr, 1);
  run.Execute();
  RCReference<AsyncValue> done = run.Done();
  EXPECT_FALSE(done->IsAvailable());
  function.pending.emplace(5);
  ASSERT_TRUE(done->IsConcrete());
  run.Settle();
  EXPECT_EQ(run.results()[1]->get<int32_t>(), 5);
  EXPECT_EQ(run.FirstErrorResult(), -1);
}

TEST(FunctionRunTest, ARunWhoseResultNeverCompletesEndsWhenCancelled) {
  auto host = MakeHost();
  PendingFunction function;
  FunctionRun run(function, host.get(), nullptr, {}, nullptr, 1);
  run.Execute();
  RCReference<AsyncValue> done = run.Done();
  EXPECT_FALSE(done->IsAvailable());
  run.request().Cancel();
  ASSERT_TRUE(done->IsConcrete());
  run.Settle();
  EXPECT_EQ(run.results()[0]->get<int32_t>(), 1);  // what was there stays
  ASSERT_EQ(run.FirstErrorResult(), 1);
  EXPECT_EQ(run.results()[1]->GetErrorInfo().status.code(), absl::StatusCode::kCancelled);
  function.pending.emplace(5);  // later: unseen
  EXPECT_TRUE(run.results()[1]->IsError());
}

TEST(FunctionRunTest, ARunWhoseResultNeverCompletesEndsAtItsDeadline) {
  // (On the single-threaded queue: its Await is woken by the timer thread.)
  auto host = MakeHost();
  PendingFunction function;
  FunctionRun run(function, host.get(), nullptr, {}, nullptr, 1);
  run.request().SetDeadline(absl::Now() + absl::Milliseconds(20));
  run.Execute();
  const auto start = std::chrono::steady_clock::now();
  RCReference<AsyncValue> done = run.Done();
  host->Await({&done, 1});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  run.Settle();
  ASSERT_EQ(run.FirstErrorResult(), 1);
  EXPECT_EQ(run.results()[1]->GetErrorInfo().status.code(), absl::StatusCode::kDeadlineExceeded);
  function.pending.emplace(5);  // late, unseen: lets Done's waiter go
}

TEST(FunctionRunTest, ARunLetGoAtItsDeadlineByTheWaiterOfItsEnd) {
  // As the Python package does: the waiter of Done settles the run and
  // drops it, on the timer's thread, from inside the deadline's Cancel. The
  // request's last reference goes there (it deadlocked on the deadline's
  // own lock once).
  auto host = MakeHost();
  PendingFunction function;
  auto run = std::make_unique<FunctionRun>(function, host.get(), nullptr,
                                           std::vector<RCReference<AsyncValue>>{}, nullptr, 1);
  run->request().SetDeadline(absl::Now() + absl::Milliseconds(20));
  run->Execute();
  std::vector<RCReference<AsyncValue>> settled;
  AsyncValueRef<Chain> let_go = MakeUnconstructedAsyncValueRef<Chain>();
  RCReference<AsyncValue> done = run->Done();
  done->AndThen([&run, &settled, &let_go] {
    run->Settle();
    for (RCReference<AsyncValue>& result : run->results()) settled.push_back(std::move(result));
    run.reset();  // the request's last reference
    let_go.emplace();
  });
  RCReference<AsyncValue> waited = let_go.CopyRCRef();
  host->Await({&waited, 1});
  ASSERT_EQ(settled.size(), 2u);
  EXPECT_EQ(settled[1]->GetErrorInfo().status.code(), absl::StatusCode::kDeadlineExceeded);
  function.pending.emplace(5);  // late, unseen
}

TEST(RequestContextTest, TheCancellationSignal) {
  auto host = MakeHost();
  // Made before the cancellation: its error from then on.
  RCReference<RequestContext> request = RequestContext::Create(host.get(), nullptr);
  RCReference<AsyncValue> before = request->CancellationSignal();
  EXPECT_FALSE(before->IsAvailable());
  request->Cancel(absl::DeadlineExceededError("late"));
  ASSERT_TRUE(before->IsError());
  EXPECT_EQ(before->GetErrorInfo().status.message(), "late");
  // Asked for after it: the error at once.
  RCReference<AsyncValue> after = request->CancellationSignal();
  ASSERT_TRUE(after->IsError());
  EXPECT_EQ(after->GetErrorInfo().status.code(), absl::StatusCode::kDeadlineExceeded);
  // A request that ends uncancelled: an available chain.
  RCReference<RequestContext> ended = RequestContext::Create(host.get(), nullptr);
  RCReference<AsyncValue> signal = ended->CancellationSignal();
  ended.reset();
  EXPECT_TRUE(signal->IsConcrete());
}

}  // namespace
}  // namespace bef
