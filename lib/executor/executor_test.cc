// The executor on programs built with BefWriter: dataflow shapes, async
// kernels, errors, cancellation, sync and native functions, calls, deep
// recursion and long chains on the default stack, and concurrent executions.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bef/async/async_value_ref.h"
#include "bef/executor/bef_program.h"
#include "bef/format/bef_writer.h"
#include "bef/format/format_error.h"
#include "bef/host/async_dispatch.h"
#include "bef/host/kernel_utils.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/executor/execution_plan.h"
#include "lib/executor/executor_test_fixture.h"
#include "lib/executor/line_cursor.h"

namespace bef {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// Kernels local to this test (the kernel libraries are linked too).
// test.counted_add_one has an effect (the count), so it must not have a
// direct entry point (docs/writing-kernels.md): the frame parameter opts out.
std::atomic<int> test_runs{0};
int32_t CountedAddOne(Argument<int32_t> x, AsyncKernelFrame*) {
  test_runs.fetch_add(1);
  return *x + 1;
}
// A value produced on another thread after a short delay.
RCReference<AsyncValue> ThreadAddOne(Argument<int32_t> x) {
  AsyncValueRef<int32_t> result = MakeUnconstructedAsyncValueRef<int32_t>();
  int32_t value = *x + 1;
  std::thread([result = result.CopyRef(), value] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    result.emplace(value);
  }).detach();
  return result.ReleaseRCRef();
}
// 1 when run on the thread that started the execution (`starting_thread`,
// set by the test), else 0. A frame kernel: never on the straight line.
std::thread::id starting_thread;
int32_t OnStartingThread(AsyncKernelFrame*) {
  return std::this_thread::get_id() == starting_thread ? 1 : 0;
}
// Keeps its operand: the result is the operand's value itself.
RCReference<AsyncValue> Forward(Argument<int32_t> x) {
  return x.ValueRef().ReleaseRCRef();
}
// A direct kernel that cancels `request_to_cancel` (set by the test).
RequestContext* request_to_cancel = nullptr;
int32_t CancelAndAddOne(Argument<int32_t> x) {
  request_to_cancel->Cancel();
  return *x + 1;
}
// An error produced on another thread after a short delay (an async kernel
// that fails).
RCReference<AsyncValue> ThreadFail(Argument<int32_t>) {
  AsyncValueRef<int32_t> result = MakeUnconstructedAsyncValueRef<int32_t>();
  std::thread([result = result.CopyRef()] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    result.SetError(absl::InternalError("failed later"));
  }).detach();
  return result.ReleaseRCRef();
}
// Appends its operand to `logged` (an effect: runs through its frame), so
// a test sees the order kernels ran in.
std::mutex logged_mutex;
std::vector<int32_t> logged;
int32_t LoggedAddOne(Argument<int32_t> x, AsyncKernelFrame*) {
  std::lock_guard<std::mutex> lock(logged_mutex);
  logged.push_back(*x);
  return *x + 1;
}
// A synchronous kernel written as kernel authors write them (Result<>s, an
// error handler, an effect: the log), which its signature gives the call
// entry point (DirectKernel::call): it runs in segments, once, in the
// dataflow path's order. Fails on a negative operand, after logging it, with
// its first result set and its chain not.
void LoggedCall(Argument<int32_t> x, Argument<Chain>, Result<int32_t> out, Result<Chain> chain,
                KernelErrorHandler handler) {
  {
    std::lock_guard<std::mutex> lock(logged_mutex);
    logged.push_back(*x);
  }
  test_runs.fetch_add(1);
  out.Emplace(*x + 1);
  if (*x < 0) {
    handler.ReportError(absl::InvalidArgumentError(absl::StrCat("negative: ", *x)));
    return;
  }
  chain.Emplace();
}
// The same contract with the return value: absl::StatusOr of a pair.
absl::StatusOr<std::pair<int32_t, Chain>> CheckedDouble(Argument<int32_t> x, Argument<Chain>) {
  test_runs.fetch_add(1);
  if (*x > 1000) return absl::OutOfRangeError("too large");
  return std::pair<int32_t, Chain>(2 * *x, Chain());
}
// Async kernels written with EnqueueWork (async_dispatch.h), each using
// the value it returns in its own way: handed back untouched (the executor
// runs the work into the result's register), observed (a waiter on it),
// dropped for another value, or failing in the work (at the kernel's
// location). Each logs its operand when its work runs.
void LogWork(int32_t x) {
  std::lock_guard<std::mutex> lock(logged_mutex);
  logged.push_back(x);
}
AsyncValueRef<int32_t> WorkPlain(Argument<int32_t> x, const ExecutionContext& context) {
  test_runs.fetch_add(1);
  return EnqueueWork(context, [x = *x] {
    LogWork(x);
    return x + 1;
  });
}
AsyncValueRef<int32_t> WorkObserved(Argument<int32_t> x, const ExecutionContext& context) {
  test_runs.fetch_add(1);
  AsyncValueRef<int32_t> value = EnqueueWork(context, [x = *x] {
    LogWork(x);
    return x + 2;
  });
  value.AndThen([value = value.CopyRef(), x = *x] { EXPECT_EQ(value.get(), x + 2); });
  return value;
}
AsyncValueRef<int32_t> WorkDropped(Argument<int32_t> x, const ExecutionContext& context) {
  test_runs.fetch_add(1);
  (void)EnqueueWork(context, [x = *x] {
    LogWork(x);
    return absl::OkStatus();
  });
  return MakeAvailableAsyncValueRef<int32_t>(*x + 3);
}
AsyncValueRef<int32_t> WorkChecked(Argument<int32_t> x, const ExecutionContext& context) {
  test_runs.fetch_add(1);
  return EnqueueWork(context, [x = *x]() -> absl::StatusOr<int32_t> {
    LogWork(x);
    if (x > 1000) return absl::OutOfRangeError(absl::StrCat("too large: ", x));
    return x + 4;
  });
}
// Its work too large for a register (it holds a string past the short
// string's size): kept in the capture block, which the step then owns.
AsyncValueRef<int32_t> WorkWide(Argument<int32_t> x, const ExecutionContext& context) {
  test_runs.fetch_add(1);
  return EnqueueWork(context, [x = *x, label = std::string(40, 'w')] {
    LogWork(x);
    return x + static_cast<int32_t>(label.size() / 8);  // x + 5
  });
}
void RegisterExecutorTestKernels(KernelRegistry* registry) {
  registry->AddKernel("test.work_plain", BEF_KERNEL(WorkPlain));
  registry->AddKernel("test.work_wide", BEF_KERNEL(WorkWide));
  registry->AddKernel("test.work_observed", BEF_KERNEL(WorkObserved));
  registry->AddKernel("test.work_dropped", BEF_KERNEL(WorkDropped));
  registry->AddKernel("test.work_checked", BEF_KERNEL(WorkChecked));
  registry->AddKernel("test.logged_call", BEF_KERNEL(LoggedCall));
  registry->AddKernel("test.checked_double", BEF_KERNEL(CheckedDouble));
  registry->AddKernel("test.logged_add_one", BEF_KERNEL(LoggedAddOne));
  registry->AddKernel("test.thread_fail", BEF_KERNEL(ThreadFail));
  registry->AddKernel("test.cancel_and_add_one", BEF_KERNEL(CancelAndAddOne));
  registry->AddKernel("test.forward", BEF_KERNEL(Forward));
  registry->AddKernel("test.counted_add_one", BEF_KERNEL(CountedAddOne));
  registry->AddKernel("test.thread_add_one", BEF_KERNEL(ThreadAddOne));
  registry->AddKernel("test.on_starting_thread", BEF_KERNEL(OnStartingThread));
}
BEF_STATIC_KERNEL_REGISTRATION(RegisterExecutorTestKernels);

using ExecutorTest = testing::ExecutorFixture;
using testing::Add;
using testing::Constant;

TEST_P(ExecutorTest, SingleKernel) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
  f.Return({Constant(f, 42)});
  auto program = Load(writer);
  EXPECT_EQ(I32(Run(*program, "f")[0]), 42);
}

TEST_P(ExecutorTest, DiamondAndFanOut) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32"});
  uint32_t left = Add(f, 0, 0);
  uint32_t right = f.AddKernel("tfrt.mul.i32").AddArgument(0).AddArgument(0).AddResult("i32");
  uint32_t sum = Add(f, left, right);
  // Fan-out: one value used by 100 kernels, all summed.
  uint32_t total = sum;
  for (int i = 0; i < 100; ++i) total = Add(f, total, sum);
  f.Return({total});
  auto program = Load(writer);
  AsyncValueRef<int32_t> three = MakeAvailableAsyncValueRef<int32_t>(3);
  // (3+3) + (3*3) = 15; 15 * 101.
  EXPECT_EQ(I32(Run(*program, "f", {three.GetAsyncValue()})[0]), 15 * 101);
  // The caller's argument reference is untouched.
  EXPECT_EQ(three->NumRef(), 1u);
}

TEST_P(ExecutorTest, UnusedArgumentAndResultReturnedTwice) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32", "i32"},
                               {"i32", "i32", "i32"});
  uint32_t one = Constant(f, 1);
  f.Return({one, one, 0});  // argument 1 unused, argument 0 returned
  auto program = Load(writer);
  AsyncValueRef<int32_t> a = MakeAvailableAsyncValueRef<int32_t>(7);
  AsyncValueRef<int32_t> b = MakeAvailableAsyncValueRef<int32_t>(8);
  auto results = Run(*program, "f", {a.GetAsyncValue(), b.GetAsyncValue()});
  EXPECT_EQ(results[0].get(), results[1].get());  // the same value twice
  EXPECT_EQ(I32(results[0]), 1);
  EXPECT_EQ(I32(results[2]), 7);
  results.clear();
  EXPECT_EQ(a->NumRef(), 1u);
  EXPECT_EQ(b->NumRef(), 1u);
}

TEST_P(ExecutorTest, AsyncKernelsCompletingOnAnotherThread) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
  uint32_t value = Constant(f, 0);
  for (int i = 0; i < 20; ++i) {
    value = f.AddKernel(i % 2 ? "test.thread_add_one" : "tfrt_test.async_copy.i32")
                .AddArgument(value)
                .AddResult("i32");
  }
  f.Return({value});
  auto program = Load(writer);
  EXPECT_EQ(I32(Run(*program, "f")[0]), 10);
}

TEST_P(ExecutorTest, ErrorSkipsOnlyItsDependents) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32", "i32"});
  uint32_t bad = f.AddKernel("tfrt_test.fail").AddResult("i32");
  uint32_t downstream = f.AddKernel("test.counted_add_one").AddArgument(bad).AddResult("i32");
  uint32_t one = Constant(f, 1);
  uint32_t good = f.AddKernel("test.counted_add_one").AddArgument(one).AddResult("i32");
  f.Return({downstream, good});
  auto program = Load(writer);
  test_runs = 0;
  auto results = Run(*program, "f");
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().message(), "something bad happened");
  EXPECT_EQ(I32(results[1]), 2);
  EXPECT_EQ(test_runs.load(), 1);  // the dependent kernel did not run
  EXPECT_THAT(diagnostics_, ElementsAre("something bad happened"));  // once
}

// A kernel budget ends a legal infinite loop (here endless recursion through
// tfrt.call): the request is cancelled with RESOURCE_EXHAUSTED.
TEST_P(ExecutorTest, KernelBudgetEndsAnInfiniteRecursion) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "forever", {"i32"}, {"i32"});
  uint32_t next = Add(f, 0, Constant(f, 1));
  uint32_t result = f.AddKernel("tfrt.call").AddArgument(next).AddFunction(0).AddResult("i32");
  f.Return({result});
  auto program = Load(writer);
  RCReference<RequestContext> request = RequestContext::Create(host_.get(), &resources_);
  request->SetKernelBudget(10000);
  AsyncValueRef<int32_t> zero = MakeAvailableAsyncValueRef<int32_t>(0);
  auto results = Run(*program, "forever", {zero.GetAsyncValue()}, request);
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(results[0]->GetError().message(), "kernel budget of 10000 kernels exhausted");
  // Without a budget nothing is counted.
  EXPECT_FALSE(RequestContext::Create(host_.get(), &resources_)->has_kernel_budget());
}

TEST_P(ExecutorTest, CancellationBeforeAndDuringARun) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32", "i32"});
  uint32_t one = Constant(f, 1);
  uint32_t before = f.AddKernel("test.counted_add_one").AddArgument(one).AddResult("i32");
  // The cancel kernel runs after `before` (through a chain on it).
  uint32_t chain = f.AddKernel("tfrt_test.as_chain").AddArgument(before).AddResult("!tfrt.chain");
  BefWriter::Kernel& cancel = f.AddKernel("tfrt_test.cancel").AddArgument(chain);
  cancel.AddResult("i32");
  uint32_t cancelled_chain = cancel.AddResult("!tfrt.chain");
  uint32_t after = f.AddKernel("tfrt_test.async_copy.i32")
                       .AddArgument(before)
                       .AddArgument(cancelled_chain)
                       .AddResult("i32");
  f.Return({before, after});
  auto program = Load(writer);
  test_runs = 0;
  auto results = Run(*program, "f");
  EXPECT_EQ(I32(results[0]), 2);
  ASSERT_TRUE(results[1]->IsError());
  EXPECT_EQ(results[1]->GetError().code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(diagnostics_.empty());  // cancellation is not reported

  // Cancelled before the run: nothing runs, every result is Cancelled.
  RCReference<RequestContext> request = RequestContext::Create(host_.get(), nullptr);
  request->Cancel();
  test_runs = 0;
  results = Run(*program, "f", {}, request);
  EXPECT_EQ(test_runs.load(), 0);
  EXPECT_EQ(results[0]->GetError().message(), "Cancelled");
}

TEST_P(ExecutorTest, SyncAndNativeFunctions) {
  BefWriter writer;
  auto& sync = writer.AddFunction(FunctionKind::kSyncBefFunction, "sync", {}, {"i32"});
  sync.Return({sync.AddKernel("tfrt_test.sync_sum_attributes")
                   .AddAttribute(BefAttribute::I32(40), "a")
                   .AddAttribute(BefAttribute::I32(2), "b")
                   .AddResult("i32")});
  uint32_t native = writer.AddNativeFunction("native_add", {"i32", "i32"}, {"i32"});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32", "i32"});
  uint32_t a = f.AddKernel("tfrt_test.async_constant.i32")
                   .AddAttribute(BefAttribute::I32(30), "value")
                   .AddResult("i32");
  uint32_t twelve = Constant(f, 12);
  uint32_t sum = f.AddKernel("tfrt.call").AddArgument(a).AddArgument(twelve)
                     .AddFunction(native).AddResult("i32");
  uint32_t native_error = writer.AddNativeFunction("native_error", {}, {"i32"});
  uint32_t error = f.AddKernel("tfrt.call").AddFunction(native_error).AddResult("i32");
  f.Return({sum, error});
  auto program = Load(writer);
  ExecutionContext context(RequestContext::Create(host_.get(), nullptr));
  SyncValue result;
  SyncValue* results[] = {&result};
  ASSERT_TRUE(program->GetFunction("sync")->ExecuteSync(context, {}, results).ok());
  EXPECT_EQ(result.get<int32_t>(), 42);
  auto values = Run(*program, "f");
  EXPECT_EQ(I32(values[0]), 42);  // the native call waited for the async argument
  EXPECT_EQ(values[1]->GetError().message(), "something bad happened");
  EXPECT_TRUE(diagnostics_.empty());
}

TEST_P(ExecutorTest, FunctionCalledFromAKernel) {
  BefWriter writer;
  auto& callee = writer.AddFunction(FunctionKind::kBefFunction, "callee", {"i32"}, {"i32", "i32"});
  uint32_t hundred = Constant(callee, 100);
  callee.Return({Add(callee, 0, hundred), 0});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32", "i32"});
  uint32_t five = Constant(f, 5);
  BefWriter::Kernel& call = f.AddKernel("tfrt.call").AddArgument(five).AddFunction(callee.index());
  uint32_t r0 = call.AddResult("i32");
  uint32_t r1 = call.AddResult("i32");
  f.Return({r0, r1});
  auto program = Load(writer);
  auto results = Run(*program, "f");
  EXPECT_EQ(I32(results[0]), 105);
  EXPECT_EQ(I32(results[1]), 5);
}

TEST_P(ExecutorTest, MalformedRecordIsAnErrorAtFirstExecution) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
  f.Return({Constant(f, 1)});
  std::vector<uint8_t> bytes = writer.Finish().value();
  // Point the constant's argument count at a bogus register list.
  auto file = BefFile::OpenBuffer(bytes).value();
  const FunctionInfo* info = file->GetFunctionInfo(0).value();
  size_t at = reinterpret_cast<const uint8_t*>(info->kernels[1].record) -
              file->image().data() + 4 * 5;  // #results
  bytes[at] = 9;
  auto program = BefProgram::FromBuffer(host_.get(), bytes).value();
  auto results = Run(*program, "f");
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().message(), "invalid Function section in BEF file");
  EXPECT_EQ(diagnostics_.size(), 1u);
}

// An execution that finishes on the starting thread hands out the result
// values themselves; one that continues elsewhere hands out placeholders
// for the results not produced yet. Here `a` is produced first and returned
// twice while a kernel on another thread still uses it, and `c` is produced
// there and returned twice (one placeholder).
TEST_P(ExecutorTest, ResultsProducedBeforeAndAfterTheExecutionGoesAsync) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"},
                               {"i32", "i32", "i32", "i32", "i32"});
  uint32_t a = Add(f, 0, 0);
  uint32_t b = f.AddKernel("test.thread_add_one").AddArgument(a).AddResult("i32");
  uint32_t c = Add(f, b, a);
  f.Return({a, c, a, 0, c});
  auto program = Load(writer);
  for (int run = 0; run < 20; ++run) {
    AsyncValueRef<int32_t> five = MakeAvailableAsyncValueRef<int32_t>(5);
    std::vector<RCReference<AsyncValue>> results =
        Run(*program, "f", {five.GetAsyncValue()});
    EXPECT_EQ(I32(results[0]), 10);
    EXPECT_EQ(I32(results[1]), 21);
    EXPECT_EQ(I32(results[2]), 10);
    EXPECT_EQ(I32(results[3]), 5);
    EXPECT_EQ(I32(results[4]), 21);
    EXPECT_EQ(results[0].get(), results[2].get());  // the same value
    EXPECT_EQ(results[1].get(), results[4].get());
    // results[1] and results[4]; the invocation's pin on the placeholder is
    // released on the thread that produced `c`, maybe just after the
    // caller saw the value.
    for (int spin = 0; spin < 1'000'000 && results[1]->NumRef() > 2; ++spin) {
      std::this_thread::yield();
    }
    EXPECT_EQ(results[1]->NumRef(), 2u);
    EXPECT_EQ(five->NumRef(), 2u);                   // the caller's and results[3]
  }
}

// Arguments are borrowed from the caller while the execution runs on the
// starting thread, and referenced once it continues elsewhere; either way
// a kernel sees an argument as shared, and the caller's value ends with
// the caller's reference only.
TEST_P(ExecutorTest, ArgumentsAreBorrowedUntilTheExecutionGoesAsync) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32", "i32"},
                               {"i1", "i32", "i32"});
  uint32_t unique = f.AddKernel("tfrt_test.get_uniqueness").AddArgument(0).AddResult("i1");
  // Goes async, then uses argument 1 on another thread.
  uint32_t later = f.AddKernel("test.thread_add_one").AddArgument(0).AddResult("i32");
  uint32_t sum = Add(f, later, 1);
  f.Return({unique, sum, 1});
  auto program = Load(writer);
  for (int run = 0; run < 20; ++run) {
    AsyncValueRef<int32_t> two = MakeAvailableAsyncValueRef<int32_t>(2);
    AsyncValueRef<int32_t> forty = MakeAvailableAsyncValueRef<int32_t>(40);
    std::vector<RCReference<AsyncValue>> results =
        Run(*program, "f", {two.GetAsyncValue(), forty.GetAsyncValue()});
    ASSERT_TRUE(results[0]->IsConcrete());
    EXPECT_FALSE(results[0]->get<bool>());
    EXPECT_EQ(I32(results[1]), 43);
    EXPECT_EQ(results[2].get(), forty.GetAsyncValue());
    results.clear();
    // Let the other thread finish with the invocation.
    for (int i = 0; i < 1000 && (two->NumRef() != 1 || forty->NumRef() != 1); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(two->NumRef(), 1u);
    EXPECT_EQ(forty->NumRef(), 1u);
  }
}

// Segments (execution_plan.h): the direct kernels run as one straight line
// on payload registers; values that are returned or read by frame kernels
// are boxed into heap values when the segment ends, so they may outlive the
// invocation (ASan would report the registers' reuse otherwise).
TEST_P(ExecutorTest, SegmentResultsLiveInTheInvocationUnlessTheyEscape) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"},
                               {"i32", "i32", "i32"});
  uint32_t one = Constant(f, 1);        // read by adds only: a payload
  uint32_t a = Add(f, 0, one);          // a payload
  uint32_t b = Add(f, a, one);          // read by test.forward: boxed
  uint32_t kept = f.AddKernel("test.forward").AddArgument(b).AddResult("i32");
  uint32_t c = Add(f, b, a);            // returned: boxed
  uint32_t d = Add(f, c, one);          // returned: boxed
  f.Return({kept, c, d});
  auto program = Load(writer);
  AsyncValueRef<int32_t> ten = MakeAvailableAsyncValueRef<int32_t>(10);
  std::vector<RCReference<AsyncValue>> results =
      Run(*program, "f", {ten.GetAsyncValue()});

  const BefFile& file = program->file();
  const FunctionInfo& info = **file.GetFunctionInfo(file.FindFunction("f")->index);
  ExecutionPlan plan(info);
  // Every add and the constant run in segments, test.forward through its
  // frame; what leaves the segments as values is boxed.
  EXPECT_THAT(plan.segment_kernels, UnorderedElementsAre(1, 2, 3, 5, 6));
  EXPECT_EQ(plan.head_of[4], ExecutionPlan::kNoSegment);
  EXPECT_EQ(plan.register_segment[kept], ExecutionPlan::kNoSegment);
  std::vector<std::pair<uint32_t, bool>> exports;
  for (const auto& out : plan.segment_exports) {
    if (out.needs_value) exports.push_back({out.reg, out.needs_value});
  }
  EXPECT_THAT(exports, UnorderedElementsAre(std::pair(b, true), std::pair(c, true),
                                            std::pair(d, true)));
  (void)kept;
  program.reset();  // the results outlive the program and every invocation
  EXPECT_EQ(I32(results[0]), 12);
  EXPECT_EQ(I32(results[1]), 23);
  EXPECT_EQ(I32(results[2]), 24);
}

// A direct kernel reading a payload of another type than its producer
// writes does not join the segment (no unchecked read): it runs through its
// frame, which reports the error, and the producer's result is boxed.
TEST_P(ExecutorTest, SegmentsReadOnlyThePayloadTypesTheirProducersWrite) {
  BefWriter writer(BefWriterOptions{.emit_optional_sections = false});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i64"});
  uint32_t narrow = Constant(f, 1);
  uint32_t wide = f.AddKernel("tfrt.constant.i64").AddAttribute(BefAttribute::I64(2), "value")
                      .AddResult("i64");
  f.Return({f.AddKernel("tfrt.add.i64").AddArgument(wide).AddArgument(narrow)
                .AddResult("i64")});
  auto program = Load(writer);
  const BefFile& file = program->file();
  ExecutionPlan plan(**file.GetFunctionInfo(file.FindFunction("f")->index));
  EXPECT_THAT(plan.segment_kernels, UnorderedElementsAre(1, 2));
  EXPECT_EQ(plan.head_of[3], ExecutionPlan::kNoSegment);  // i32 read as i64
  std::vector<std::pair<uint32_t, bool>> exports;
  for (const auto& out : plan.segment_exports) exports.push_back({out.reg, out.needs_value});
  EXPECT_THAT(exports, UnorderedElementsAre(std::pair(narrow, true), std::pair(wide, true)));
  auto results = Run(*program, "f");
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().message(), "operand 1 is not a value of type i64");
}

// A direct kernel whose operand is of another type runs through its frame
// instead, which reports the error (here: no RegisterTypes section, so the
// loader cannot reject the file).
TEST_P(ExecutorTest, DirectKernelWithAnOperandOfAnotherTypeReportsIt) {
  BefWriter writer(BefWriterOptions{.emit_optional_sections = false});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
  uint32_t wide = f.AddKernel("tfrt.constant.i64").AddAttribute(BefAttribute::I64(1), "value")
                      .AddResult("i64");
  f.Return({Add(f, Constant(f, 1), wide)});
  auto program = Load(writer);
  auto results = Run(*program, "f");
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().message(), "operand 1 is not a value of type i32");
  EXPECT_THAT(diagnostics_, ElementsAre("operand 1 is not a value of type i32"));
}

// ---- Segments (execution_plan.h): runs of direct kernels in a function the
// straight line cannot take. Each test runs the same program as it is (the
// segments on payloads) and under a kernel budget too large to run out,
// where every kernel runs through its frame as on the plain dataflow path:
// results, errors, diagnostics and which kernels ran must agree.

// A result as text: its value, or its error's code and message.
std::string Describe(const RCReference<AsyncValue>& value) {
  if (value->IsError()) {
    return absl::StrCat("error ", absl::StatusCodeToString(value->GetError().code()), ": ",
                        value->GetError().message());
  }
  if (!value->IsConcrete()) return "unavailable";
  if (value->IsType<int32_t>()) return absl::StrCat(value->get<int32_t>());
  return "value";
}

class SegmentTest : public testing::ExecutorFixture {
 protected:
  struct Outcome {
    std::vector<std::string> results;
    std::vector<std::string> diagnostics;
    int kernel_runs;
  };
  // Runs `program` on argument x on the segments ([0]) and kernel by kernel
  // ([1]), each with the log it made (`logged`), and expects the same
  // results, diagnostics and kernel runs.
  void RunBothWays(const BefProgram& program, int32_t x, Outcome outcomes[2],
                   std::vector<int32_t> order[2]) {
    for (bool per_kernel : {false, true}) {
      {
        std::lock_guard<std::mutex> lock(logged_mutex);
        logged.clear();
      }
      AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
      outcomes[per_kernel] = RunOnce(program, {argument.GetAsyncValue()}, per_kernel);
      std::lock_guard<std::mutex> lock(logged_mutex);
      order[per_kernel] = logged;
    }
    EXPECT_EQ(outcomes[0].results, outcomes[1].results) << x;
    EXPECT_EQ(outcomes[0].diagnostics, outcomes[1].diagnostics) << x;
    EXPECT_EQ(outcomes[0].kernel_runs, outcomes[1].kernel_runs) << x;
  }
  // One run, on the segments (per_kernel = false) or kernel by kernel.
  Outcome RunOnce(const BefProgram& program, std::vector<AsyncValue*> arguments,
                  bool per_kernel, RequestContext** request_out = nullptr) {
    RCReference<RequestContext> request = RequestContext::Create(host_.get(), nullptr);
    if (per_kernel) request->SetKernelBudget(int64_t{1} << 40);
    if (request_out != nullptr) *request_out = request.get();
    request_to_cancel = request.get();
    test_runs = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      diagnostics_.clear();
    }
    auto results = Run(program, "f", arguments, request);
    request_to_cancel = nullptr;
    Outcome outcome;
    for (auto& result : results) outcome.results.push_back(Describe(result));
    std::lock_guard<std::mutex> lock(mutex_);
    outcome.diagnostics = diagnostics_;
    outcome.kernel_runs = test_runs.load();
    return outcome;
  }
  // Both ways; returns the segments' outcome after checking they agree.
  Outcome RunBothWays(const BefProgram& program, std::vector<AsyncValue*> arguments = {}) {
    Outcome fast = RunOnce(program, arguments, false);
    Outcome per_kernel = RunOnce(program, arguments, true);
    EXPECT_EQ(fast.results, per_kernel.results);
    EXPECT_EQ(fast.diagnostics, per_kernel.diagnostics);
    EXPECT_EQ(fast.kernel_runs, per_kernel.kernel_runs);
    return fast;
  }
  // The function's plan.
  ExecutionPlan Plan(const BefProgram& program) {
    const BefFile& file = program.file();
    return ExecutionPlan(**file.GetFunctionInfo(file.FindFunction("f")->index), &file);
  }
  // Starts f(x) without waiting (kernel by kernel under a budget when
  // `per_kernel`): its results, as yet unavailable ones included.
  std::vector<RCReference<AsyncValue>> Start(const BefProgram& program, int32_t x,
                                             bool per_kernel,
                                             RCReference<RequestContext>& request) {
    const Function* function = program.GetFunction("f");
    request = RequestContext::Create(host_.get(), nullptr);
    if (per_kernel) request->SetKernelBudget(int64_t{1} << 40);
    ExecutionContext context(request.CopyRef());
    std::vector<RCReference<AsyncValue>> results(function->num_results());
    AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
    AsyncValue* arguments[] = {argument.GetAsyncValue()};
    function->Execute(context, arguments, results);
    return results;
  }
  static uint32_t AsyncAdd(BefWriter::Function& f, uint32_t a, uint32_t b) {
    return f.AddKernel("tfrt_test.async_add.i32").AddArgument(a).AddArgument(b).AddResult("i32");
  }
  static uint32_t Chain(BefWriter::Function& f, uint32_t from, uint32_t one, int adds) {
    for (int i = 0; i < adds; ++i) from = Add(f, from, one);
    return from;
  }
  // f(x) -> (quotient, remainder, after, independent, before): `before` is
  // 101 (a chain of adds), tfrt.div.i32 divides it by x, `after` is 100
  // adds after the quotient and `independent` reads only `before`. With
  // `counted`, the quotient's user and `independent` are
  // test.counted_add_one (frame kernels that count their runs), else adds.
  std::unique_ptr<BefProgram> DivisionProgram(bool counted) {
    BefWriter writer;
    auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"},
                                 {"i32", "i32", "i32", "i32", "i32"});
    uint32_t one = Constant(f, 1);
    uint32_t before = Chain(f, one, one, 100);
    BefWriter::Kernel& div = f.AddKernel("tfrt.div.i32").AddArgument(before).AddArgument(0);
    uint32_t quotient = div.AddResult("i32");
    uint32_t remainder = div.AddResult("i32");
    uint32_t dependent =
        counted ? f.AddKernel("test.counted_add_one").AddArgument(quotient).AddResult("i32")
                : quotient;
    uint32_t after = Chain(f, dependent, one, 100);
    uint32_t independent =
        counted ? f.AddKernel("test.counted_add_one").AddArgument(before).AddResult("i32")
                : Chain(f, before, one, 5);
    f.Return({quotient, remainder, after, independent, before});
    return Load(writer);
  }
};

// One async kernel in the middle of a long chain: it is a deferred step of
// the chain's segment (its task resumes the segment), not 400 dataflow
// kernels.
TEST_P(SegmentTest, OneAsyncKernelInALongChain) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32"});
  uint32_t one = Constant(f, 1);
  uint32_t before = Chain(f, 0, one, 200);
  uint32_t later = f.AddKernel("tfrt_test.async_add.i32").AddArgument(before).AddArgument(one)
                       .AddResult("i32");
  uint32_t after = Chain(f, later, one, 200);
  f.Return({before, after});
  auto program = Load(writer);
  ExecutionPlan plan = Plan(*program);
  EXPECT_FALSE(plan.straight_line);
  EXPECT_EQ(plan.segment_kernels.size(), 402u);  // every kernel
  EXPECT_EQ(plan.segment_deferred.size(), 1u);
  EXPECT_LE(plan.segments.size(), 2u);
  for (int32_t x : {0, 7, -1000}) {
    AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
    Outcome outcome = RunBothWays(*program, {argument.GetAsyncValue()});
    EXPECT_THAT(outcome.results, ElementsAre(absl::StrCat(x + 200), absl::StrCat(x + 401)));
  }
}

// Deferred steps (execution_plan.h): a chain of async kernels with adds
// between them is one segment whose deferred steps resume it from their
// tasks. Results taken from the middle of the chain (function results, a
// frame kernel's operand, a kernel on another stream) are published as
// each step ends: the same results and kernel runs as kernel by kernel.
TEST_P(SegmentTest, AsyncKernelsAreDeferredStepsOfOneSegment) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"},
                               {"i32", "i32", "i32", "i32", "i32"});
  uint32_t one = Constant(f, 1);
  uint32_t value = 0;
  uint32_t middle = 0;
  uint32_t copied = 0;
  for (int i = 0; i < 300; ++i) {
    if (i % 3 == 0) {
      value = AsyncAdd(f, value, one);
    } else if (i % 3 == 1) {
      value = Add(f, value, one);
    } else {
      value = f.AddKernel("tfrt_test.async_copy.i32").AddArgument(value).AddResult("i32");
    }
    if (i == 150) middle = value;
    if (i == 99) copied = value;
  }
  // Read outside the segment: by a frame kernel, and by an add on another
  // stream.
  uint32_t counted = f.AddKernel("test.counted_add_one").AddArgument(middle).AddResult("i32");
  uint32_t other = f.AddKernel("tfrt.add.i32").set_stream(3).AddArgument(copied)
                       .AddArgument(copied).AddResult("i32");
  f.Return({value, middle, counted, other, middle});
  auto program = Load(writer);
  ExecutionPlan plan = Plan(*program);
  EXPECT_FALSE(plan.straight_line);  // deferred steps only in segments
  EXPECT_EQ(plan.segment_deferred.size(), 200u);
  for (int32_t x : {0, 5, -77}) {
    AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
    Outcome outcome = RunBothWays(*program, {argument.GetAsyncValue()});
    EXPECT_THAT(outcome.results,
                ElementsAre(absl::StrCat(x + 200), absl::StrCat(x + 101), absl::StrCat(x + 102),
                            absl::StrCat(2 * (x + 67)), absl::StrCat(x + 101)));
    EXPECT_EQ(outcome.kernel_runs, 1);
  }
}

// A kernel of several results is its own step (DirectKernel::run_step)
// when its results are consecutive registers, as the converter numbers
// them, and runs through the executor's trampoline (RunTryStep) when they
// are not: the same results, and the same error at the same kernel, either
// way.
TEST_P(SegmentTest, TryStepsWithResultsInConsecutiveRegistersOrNot) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"},
                               {"i32", "i32", "i32", "i32"});
  uint32_t one = Constant(f, 1);
  uint32_t seven = AsyncAdd(f, Constant(f, 6), one);  // a segment, not the straight line
  BefWriter::Kernel& together = f.AddKernel("tfrt.div.i32").AddArgument(seven).AddArgument(0);
  uint32_t quotient = together.AddResult("i32");
  uint32_t remainder = together.AddResult("i32");
  BefWriter::Kernel& apart = f.AddKernel("tfrt.div.i32").AddArgument(remainder).AddArgument(0);
  uint32_t quotient_apart = apart.AddResult("i32");
  uint32_t between = Add(f, quotient, one);  // its register lies between apart's results
  uint32_t remainder_apart = apart.AddResult("i32");
  f.Return({between, quotient_apart, remainder_apart, remainder});
  auto program = Load(writer);
  ExecutionPlan plan = Plan(*program);
  int own_entry = 0, trampoline = 0;
  for (const ExecutionPlan::LineStep& step : plan.segmented.steps) {
    if (step.kind != ExecutionPlan::StepKind::kTry) continue;
    own_entry += step.own_entry;
    trampoline += !step.own_entry;
  }
  EXPECT_EQ(own_entry, 1);
  EXPECT_EQ(trampoline, 1);
  AsyncValueRef<int32_t> two = MakeAvailableAsyncValueRef<int32_t>(2);
  EXPECT_THAT(RunBothWays(*program, {two.GetAsyncValue()}).results,
              ElementsAre("4", "0", "1", "1"));
  AsyncValueRef<int32_t> zero = MakeAvailableAsyncValueRef<int32_t>(0);
  Outcome failed = RunBothWays(*program, {zero.GetAsyncValue()});
  EXPECT_THAT(failed.results,
              ElementsAre("error INTERNAL: Divide by zero", "error INTERNAL: Divide by zero",
                          "error INTERNAL: Divide by zero", "error INTERNAL: Divide by zero"));
  EXPECT_THAT(failed.diagnostics, ElementsAre("Divide by zero"));
}

// A segment with deferred steps and a kernel that can fail after them: the
// part resumed by a step's task stops at the failing division, whose frame
// reports the error once at its location; what depends on it is that
// error, the rest values, as kernel by kernel.
TEST_P(SegmentTest, KernelFailingAfterADeferredStepInOneSegment) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32", "i32"});
  uint32_t one = Constant(f, 1);
  uint32_t before = Chain(f, one, one, 10);
  uint32_t later = AsyncAdd(f, before, one);
  uint32_t middle = Chain(f, later, one, 70);  // past a cancellation interval
  BefWriter::Kernel& div = f.AddKernel("tfrt.div.i32").AddArgument(middle).AddArgument(0);
  uint32_t quotient = div.AddResult("i32");
  div.AddResult("i32");
  uint32_t again = AsyncAdd(f, quotient, one);
  uint32_t after = Chain(f, again, one, 5);
  f.Return({middle, after, later});
  auto program = Load(writer);
  ExecutionPlan plan = Plan(*program);
  EXPECT_EQ(plan.segment_deferred.size(), 2u);
  EXPECT_FALSE(plan.segmented.try_steps.empty());
  AsyncValueRef<int32_t> four = MakeAvailableAsyncValueRef<int32_t>(4);
  Outcome fine = RunBothWays(*program, {four.GetAsyncValue()});
  EXPECT_THAT(fine.results, ElementsAre("82", "26", "12"));
  AsyncValueRef<int32_t> zero = MakeAvailableAsyncValueRef<int32_t>(0);
  Outcome failed = RunBothWays(*program, {zero.GetAsyncValue()});
  EXPECT_THAT(failed.results, ElementsAre("82", "error INTERNAL: Divide by zero", "12"));
  EXPECT_THAT(failed.diagnostics, ElementsAre("Divide by zero"));
}

// A request cancelled while a deferred step's task waits in the queue
// (the single-threaded queue runs it only when the caller awaits): the
// resumed segment sees it and the rest of the chain is the cancellation's
// error, as kernel by kernel (under a budget, every kernel through its
// frame); an error argument makes every result that error.
TEST_P(SegmentTest, CancelledWhileADeferredStepWaits) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32"});
  uint32_t one = Constant(f, 1);
  uint32_t first = AsyncAdd(f, 0, one);
  uint32_t value = first;
  for (int i = 0; i < 20; ++i) {
    value = AsyncAdd(f, value, one);
    value = Add(f, value, one);
  }
  f.Return({first, value});
  auto program = Load(writer);
  for (bool per_kernel : {false, true}) {
    RCReference<RequestContext> request;
    std::vector<RCReference<AsyncValue>> results = Start(*program, 1, per_kernel, request);
    request->Cancel();
    host_->Await(results);
    host_->Quiesce();
    if (std::string_view(GetParam()) == "s") {
      // The first step's task had not run: the first result is a value (its
      // kernel ran before the cancellation), the rest is cancelled.
      EXPECT_EQ(Describe(results[0]), "2") << per_kernel;
      EXPECT_EQ(Describe(results[1]), "error CANCELLED: Cancelled") << per_kernel;
    } else {
      // Other threads may have run the whole chain before the cancellation.
      EXPECT_EQ(Describe(results[0]), "2") << per_kernel;
      EXPECT_THAT(Describe(results[1]), ::testing::AnyOf("42", "error CANCELLED: Cancelled"));
    }
  }
  // An error argument: every result is that error, no step runs.
  RCReference<AsyncValue> error = MakeErrorAsyncValueRef(absl::InternalError("bad argument"));
  Outcome outcome = RunBothWays(*program, {error.get()});
  EXPECT_THAT(outcome.results, ElementsAre("error INTERNAL: bad argument",
                                           "error INTERNAL: bad argument"));
}

// A deferred step's task runs the next step itself only where the queue
// would run that task next: an Await whose values just became available
// returns first (single-threaded queue), so what comes after the result
// (here a frame kernel that counts its runs) runs at the next Quiesce, as
// kernel by kernel.
TEST_P(SegmentTest, AwaitReturnsBeforeTheRestOfAChain) {
  if (std::string_view(GetParam()) != "s") {
    GTEST_SKIP() << "other threads run the rest of the chain whenever they like";
  }
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32"});
  uint32_t one = Constant(f, 1);
  uint32_t first = AsyncAdd(f, 0, one);
  uint32_t value = first;
  for (int i = 0; i < 50; ++i) value = AsyncAdd(f, value, one);
  f.AddKernel("test.counted_add_one").AddArgument(value).AddResult("i32");
  f.Return({first});
  auto program = Load(writer);
  for (bool per_kernel : {false, true}) {
    test_runs = 0;
    RCReference<RequestContext> request;
    std::vector<RCReference<AsyncValue>> results = Start(*program, 1, per_kernel, request);
    host_->Await(results);
    EXPECT_EQ(Describe(results[0]), "2") << per_kernel;
    EXPECT_EQ(test_runs.load(), 0) << per_kernel;
    host_->Quiesce();
    EXPECT_EQ(test_runs.load(), 1) << per_kernel;
  }
}

// A fan-out of deferred steps: the steps a processing loop reaches back to
// back run from one task (at most 32 per task), which is where their own
// tasks would have run; an async kernel through its frame among them sends
// them to the queue before its own task. Each result is read by a frame
// kernel that logs it and by an add tree: the same results and, on the
// single-threaded queue, the same order of the logging kernels as kernel
// by kernel. The async kernel among them (tfrt_test.async_copy_2.i32, a
// Result<> its own task fills) is an async call step: the task it enqueues
// joins the deferred steps where it would have gone.
TEST_P(SegmentTest, FanOutOfDeferredStepsRunsInTheDataflowOrder) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32"});
  constexpr int kSteps = 300;
  std::vector<uint32_t> sums;
  uint32_t last_logged = 0;
  for (int i = 0; i < kSteps; ++i) {
    const uint32_t stream = i < 200 ? 1 : 2 + i % 3;  // 200 from one loop
    uint32_t c = f.AddKernel("tfrt.constant.i32").set_stream(stream)
                     .AddAttribute(BefAttribute::I32(i * 1000), "value").AddResult("i32");
    uint32_t a = f.AddKernel("tfrt_test.async_add.i32").set_stream(stream).AddArgument(0)
                     .AddArgument(c).AddResult("i32");
    last_logged = f.AddKernel("test.logged_add_one").set_stream(stream).AddArgument(a)
                      .AddResult("i32");
    sums.push_back(a);
    if (i % 5 == 0) {
      // An async kernel through its frame (it enqueues its own task) in
      // the same loop: the steps reached before it are enqueued first.
      uint32_t minus = f.AddKernel("tfrt.constant.i32").set_stream(stream)
                           .AddAttribute(BefAttribute::I32(-i), "value").AddResult("i32");
      uint32_t copied = f.AddKernel("tfrt_test.async_copy_2.i32").set_stream(stream)
                            .AddArgument(minus).AddResult("i32");
      f.AddKernel("test.logged_add_one").set_stream(stream).AddArgument(copied).AddResult("i32");
    }
  }
  while (sums.size() > 1) {
    std::vector<uint32_t> next;
    for (size_t i = 0; i + 1 < sums.size(); i += 2) next.push_back(Add(f, sums[i], sums[i + 1]));
    if (sums.size() % 2) next.push_back(sums.back());
    sums = std::move(next);
  }
  f.Return({sums[0], last_logged});
  auto program = Load(writer);
  ExecutionPlan plan = Plan(*program);
  // The async_add.i32s (EnqueueWork) and the async_copy_2.i32s (a
  // Result<> their own task fills, HostContext*) are async call steps, by
  // their signatures alone.
  for (uint32_t position : plan.segment_deferred) {
    EXPECT_EQ(plan.segmented.steps[position].kind, ExecutionPlan::StepKind::kAsyncCall);
  }
  EXPECT_EQ(plan.segment_deferred.size(), size_t{kSteps + kSteps / 5});
  for (int32_t x : {0, 3}) {
    std::vector<int32_t> order[2];
    Outcome outcome;
    for (bool per_kernel : {false, true}) {
      {
        std::lock_guard<std::mutex> lock(logged_mutex);
        logged.clear();
      }
      AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
      outcome = RunOnce(*program, {argument.GetAsyncValue()}, per_kernel);
      std::lock_guard<std::mutex> lock(logged_mutex);
      order[per_kernel] = logged;
    }
    int64_t total = 0;
    for (int i = 0; i < kSteps; ++i) total += x + i * 1000;
    EXPECT_THAT(outcome.results,
                ElementsAre(absl::StrCat(total), absl::StrCat(x + (kSteps - 1) * 1000 + 1)));
    ASSERT_EQ(order[0].size(), size_t{kSteps + kSteps / 5});
    if (std::string_view(GetParam()) == "s") {
      EXPECT_EQ(order[0], order[1]);
    } else {
      std::sort(order[0].begin(), order[0].end());
      std::sort(order[1].begin(), order[1].end());
      EXPECT_EQ(order[0], order[1]);
    }
  }
}

// Many executions of a chain of deferred steps with a fan-out on other
// streams, from several threads at once (TSan: the payload a step's task
// writes is read by the next part and by kernels on other threads only
// after a release).
TEST_P(SegmentTest, DeferredStepsFromSeveralThreads) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32"});
  uint32_t one = Constant(f, 1);
  uint32_t chain = 0;
  for (int i = 0; i < 30; ++i) {
    chain = AsyncAdd(f, chain, one);
  }
  uint32_t total = one;
  for (int i = 0; i < 30; ++i) {
    uint32_t a = f.AddKernel("tfrt_test.async_add.i32").set_stream(1 + i % 4).AddArgument(0)
                     .AddArgument(one).AddResult("i32");
    total = f.AddKernel("tfrt.add.i32").set_stream(1 + i % 4).AddArgument(total)
                .AddArgument(a).AddResult("i32");
  }
  f.Return({chain, total});
  auto program = Load(writer);
  const Function* function = program->GetFunction("f");
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  const int num_threads = std::string_view(GetParam()) == "s" ? 1 : 4;
  for (int t = 0; t < num_threads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        const int32_t x = t * 1000 + i;
        AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
        ExecutionContext context(RequestContext::Create(host_.get(), nullptr));
        std::vector<RCReference<AsyncValue>> results(2);
        AsyncValue* arguments[] = {argument.GetAsyncValue()};
        function->Execute(context, arguments, results);
        host_->Await(results);
        if (Describe(results[0]) != absl::StrCat(x + 30) ||
            Describe(results[1]) != absl::StrCat(1 + 30 * (x + 1))) {
          ++wrong;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  host_->Quiesce();
  EXPECT_EQ(wrong.load(), 0);
}

// A kernel that can fail, in the middle of a segment: the segment stops at
// it; its frame reports the error once at its location; its dependents do
// not run (test.counted_add_one counts runs); independent kernels do.
TEST_P(SegmentTest, FallibleKernelFailingInTheMiddleOfASegment) {
  auto program = DivisionProgram(/*counted=*/true);
  ExecutionPlan plan = Plan(*program);
  EXPECT_FALSE(plan.straight_line);  // test.counted_add_one has a frame
  EXPECT_FALSE(plan.segmented.try_steps.empty());
  AsyncValueRef<int32_t> five = MakeAvailableAsyncValueRef<int32_t>(5);
  Outcome fine = RunBothWays(*program, {five.GetAsyncValue()});
  EXPECT_THAT(fine.results, ElementsAre("20", "1", "121", "102", "101"));
  EXPECT_EQ(fine.kernel_runs, 2);
  AsyncValueRef<int32_t> zero = MakeAvailableAsyncValueRef<int32_t>(0);
  Outcome failed = RunBothWays(*program, {zero.GetAsyncValue()});
  EXPECT_THAT(failed.results,
              ElementsAre("error INTERNAL: Divide by zero", "error INTERNAL: Divide by zero",
                          "error INTERNAL: Divide by zero", "102", "101"));
  EXPECT_THAT(failed.diagnostics, ElementsAre("Divide by zero"));
  EXPECT_EQ(failed.kernel_runs, 1);  // only the independent one
}

// An async kernel whose value turns out an error (on another thread) in
// the middle of a chain: the segment after it runs kernel by kernel, every
// result downstream is that error, nothing downstream runs.
TEST_P(SegmentTest, AsyncKernelFailingInTheMiddleOfAChain) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32", "i32"});
  uint32_t one = Constant(f, 1);
  uint32_t before = Chain(f, 0, one, 50);
  uint32_t failing = f.AddKernel("test.thread_fail").AddArgument(before).AddResult("i32");
  uint32_t counted = f.AddKernel("test.counted_add_one").AddArgument(failing).AddResult("i32");
  uint32_t after = Chain(f, counted, one, 50);
  f.Return({before, after, Chain(f, before, one, 10)});
  auto program = Load(writer);
  AsyncValueRef<int32_t> two = MakeAvailableAsyncValueRef<int32_t>(2);
  Outcome outcome = RunBothWays(*program, {two.GetAsyncValue()});
  EXPECT_THAT(outcome.results, ElementsAre("52", "error INTERNAL: failed later", "62"));
  EXPECT_EQ(outcome.kernel_runs, 0);
}

// A kernel cancelling the request at the head of a segment: the segment
// looks at cancellation every kCancellationInterval kernels (as the
// straight line does), so the result at its end is the cancellation's
// error, as on the dataflow path.
TEST_P(SegmentTest, CancellationEndsTheRestOfTheRun) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32"});
  uint32_t one = Constant(f, 1);
  uint32_t later = f.AddKernel("tfrt_test.async_add.i32").AddArgument(0).AddArgument(one)
                       .AddResult("i32");
  uint32_t cancelling = f.AddKernel("test.cancel_and_add_one").AddArgument(later)
                            .AddResult("i32");
  uint32_t after = Chain(f, cancelling, one, 300);
  f.Return({cancelling, after});
  auto program = Load(writer);
  AsyncValueRef<int32_t> two = MakeAvailableAsyncValueRef<int32_t>(2);
  Outcome fast = RunOnce(*program, {two.GetAsyncValue()}, false);
  Outcome per_kernel = RunOnce(*program, {two.GetAsyncValue()}, true);
  EXPECT_THAT(fast.results, ElementsAre("4", "error CANCELLED: Cancelled"));
  EXPECT_EQ(fast.results, per_kernel.results);
  EXPECT_TRUE(fast.diagnostics.empty());
}

// Function results a segment produces, handed out while other kernels of
// the function still wait for an async value; an argument that arrives
// later; many executions from several threads (TSan: the payload
// registers a segment writes are read by the next only after the ready
// count's release).
TEST_P(SegmentTest, ConcurrentExecutionsWithPendingArguments) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32"});
  uint32_t one = Constant(f, 1);
  uint32_t early = Chain(f, one, one, 20);
  uint32_t later = f.AddKernel("tfrt_test.async_add.i32").AddArgument(early).AddArgument(0)
                       .AddResult("i32");
  uint32_t late = Chain(f, later, one, 20);
  f.Return({early, late});
  auto program = Load(writer);
  if (std::string_view(GetParam()) == "s") {
    GTEST_SKIP() << "the single-threaded queue runs tasks on one awaiting thread";
  }
  const Function* function = program->GetFunction("f");
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        RCReference<IndirectAsyncValue> argument = MakeIndirectAsyncValue();
        ExecutionContext context(RequestContext::Create(host_.get(), nullptr));
        std::vector<RCReference<AsyncValue>> results(2);
        AsyncValue* arguments[] = {argument.get()};
        function->Execute(context, arguments, results);
        argument->ForwardTo(MakeAvailableAsyncValueRef<int32_t>(t * 1000 + i).ReleaseRCRef());
        host_->Await(results);
        if (Describe(results[0]) != "21" || Describe(results[1]) != absl::StrCat(41 + t * 1000 + i)) {
          ++wrong;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  host_->Quiesce();
  EXPECT_EQ(wrong.load(), 0);
}

// A value many kernels read (a shared register) keeps its reference to the
// end of the execution instead of counting down per use: an argument and
// an async kernel's result, each read by 40 async kernels, are released
// exactly once when the execution ends (the argument's count returns to
// one; ASan would report a leak or a double release).
TEST_P(SegmentTest, SharedRegistersHoldTheirValueToTheEnd) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32"});
  uint32_t one = Constant(f, 1);
  uint32_t later = f.AddKernel("tfrt_test.async_add.i32").AddArgument(0).AddArgument(one)
                       .AddResult("i32");
  uint32_t total = one;
  for (int i = 0; i < 40; ++i) {
    uint32_t a = f.AddKernel("tfrt_test.async_add.i32").AddArgument(0).AddArgument(later)
                     .AddResult("i32");
    total = Add(f, total, a);
  }
  f.Return({total});
  auto program = Load(writer);
  ExecutionPlan plan = Plan(*program);
  EXPECT_THAT(plan.shared_registers, UnorderedElementsAre(0u, later));
  for (int run = 0; run < 20; ++run) {
    AsyncValueRef<int32_t> x = MakeAvailableAsyncValueRef<int32_t>(run);
    Outcome outcome = RunBothWays(*program, {x.GetAsyncValue()});
    EXPECT_THAT(outcome.results, ElementsAre(absl::StrCat(1 + 40 * (2 * run + 1))));
    for (int i = 0; i < 1000 && x->NumRef() != 1; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(x->NumRef(), 1u);
  }
}

// A function of direct kernels with one that can fail (tfrt.div.i32) runs
// on the straight line; when the division fails, the run is abandoned (its
// kernels have no effect but their results) and the dataflow path runs the
// function: the error once at its location, its dependents skipped, the
// independent results values.
TEST_P(SegmentTest, StraightLineWithAKernelThatFails) {
  auto program = DivisionProgram(/*counted=*/false);
  ExecutionPlan plan = Plan(*program);
  EXPECT_TRUE(plan.straight_line);
  EXPECT_TRUE(plan.line_has_try_steps);
  AsyncValueRef<int32_t> five = MakeAvailableAsyncValueRef<int32_t>(5);
  Outcome fine = RunBothWays(*program, {five.GetAsyncValue()});
  EXPECT_THAT(fine.results, ElementsAre("20", "1", "120", "106", "101"));
  EXPECT_TRUE(fine.diagnostics.empty());
  AsyncValueRef<int32_t> zero = MakeAvailableAsyncValueRef<int32_t>(0);
  Outcome failed = RunBothWays(*program, {zero.GetAsyncValue()});
  EXPECT_THAT(failed.results,
              ElementsAre("error INTERNAL: Divide by zero", "error INTERNAL: Divide by zero",
                          "error INTERNAL: Divide by zero", "106", "101"));
  EXPECT_THAT(failed.diagnostics, ElementsAre("Divide by zero"));
  // A line longer than one cancellation interval, failing early: the run
  // stops at the next look and the same results come out.
  for (int32_t x : {0, 3}) {
    AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
    Outcome outcome = RunBothWays(*program, {argument.GetAsyncValue()});
    EXPECT_EQ(outcome.diagnostics.size(), x == 0 ? 1u : 0u);
  }
}

// tfrt.repeat.i32 over a body with a kernel that can fail: the loop runs on
// the straight line until an iteration fails, then the whole repeat runs on
// the dataflow path, which reports the error once.
TEST_P(SegmentTest, RepeatedStraightLineWithAKernelThatFails) {
  BefWriter writer;
  // step(a, d) -> ((a + 1) / d, d)
  auto& step = writer.AddFunction(FunctionKind::kBefFunction, "step", {"i32", "i32"},
                                  {"i32", "i32"});
  uint32_t next = Add(step, 0, Constant(step, 1));
  BefWriter::Kernel& div = step.AddKernel("tfrt.div.i32").AddArgument(next).AddArgument(1);
  uint32_t quotient = div.AddResult("i32");
  div.AddResult("i32");
  step.Return({quotient, 1});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32"});
  uint32_t count = Constant(f, 10);
  uint32_t initial = Constant(f, 0);
  BefWriter::Kernel& repeat = f.AddKernel("tfrt.repeat.i32")
                                  .AddArgument(count)
                                  .AddArgument(initial)
                                  .AddArgument(0)
                                  .AddFunction(step.index());
  uint32_t a = repeat.AddResult("i32");
  uint32_t d = repeat.AddResult("i32");
  f.Return({a, d});
  auto program = Load(writer);
  const BefFile& file = program->file();
  ExecutionPlan step_plan(**file.GetFunctionInfo(file.FindFunction("step")->index), &file);
  EXPECT_TRUE(step_plan.straight_line);
  EXPECT_TRUE(step_plan.loop_carried);
  AsyncValueRef<int32_t> one = MakeAvailableAsyncValueRef<int32_t>(1);
  EXPECT_THAT(RunBothWays(*program, {one.GetAsyncValue()}).results, ElementsAre("10", "1"));
  AsyncValueRef<int32_t> zero = MakeAvailableAsyncValueRef<int32_t>(0);
  Outcome failed = RunBothWays(*program, {zero.GetAsyncValue()});
  // The divisor is passed on unchanged, whatever the division did.
  EXPECT_THAT(failed.results, ElementsAre("error INTERNAL: Divide by zero", "0"));
  EXPECT_THAT(failed.diagnostics, ElementsAre("Divide by zero"));
}

// A kernel reading a tensor by reference (tfrt_dht.tensor_equal.f32, one
// BEF_KERNEL function with Argument<DenseHostTensor>s): its signature gives
// it the call entry point, so the comparisons form a segment whose input is
// read by reference (the register holds the payload's address), whether
// the tensor is an argument or made by frame kernels of the same function;
// a kernel that may have effects never runs on a whole-function straight
// line (execution_plan.h). Same results either way; an operand that is not
// a tensor goes to the frame, which reports the typed operand's error.
TEST_P(SegmentTest, TensorOperandsReadByReference) {
  BefWriter writer;
  auto& compare = writer.AddFunction(FunctionKind::kBefFunction, "compare",
                                     {"!tfrt_tensor.tensor", "!tfrt.chain"},
                                     {"i1", "!tfrt.chain"});
  uint32_t chain = 1;
  uint32_t equal = 0;
  for (int i = 0; i < 100; ++i) {
    BefWriter::Kernel& kernel = compare.AddKernel("tfrt_dht.tensor_equal.f32");
    kernel.AddArgument(0).AddArgument(0).AddArgument(chain);
    equal = kernel.AddResult("i1");
    chain = kernel.AddResult("!tfrt.chain");
  }
  compare.Return({equal, chain});
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i1", "!tfrt.chain", "!tfrt_tensor.tensor"});
  uint32_t start = f.AddKernel("tfrt.new.chain").AddResult("!tfrt.chain");
  auto [tensor, filled] = testing::FilledF32Tensor(f, start, 16, 2.5f);
  uint32_t inner_chain = filled;
  uint32_t inner_equal = 0;
  for (int i = 0; i < 100; ++i) {
    BefWriter::Kernel& kernel = f.AddKernel("tfrt_dht.tensor_equal.f32");
    kernel.AddArgument(tensor).AddArgument(tensor).AddArgument(inner_chain);
    inner_equal = kernel.AddResult("i1");
    inner_chain = kernel.AddResult("!tfrt.chain");
  }
  f.Return({inner_equal, inner_chain, tensor});
  auto program = Load(writer);
  const BefFile& file = program->file();
  ExecutionPlan compare_plan(**file.GetFunctionInfo(file.FindFunction("compare")->index), &file);
  EXPECT_FALSE(compare_plan.straight_line);
  compare_plan.EnsureSegments();
  ASSERT_EQ(compare_plan.segments.size(), 1u);
  EXPECT_EQ(compare_plan.segments[0].end - compare_plan.segments[0].begin, 100u);
  bool argument_by_reference = false;
  for (const auto& input : compare_plan.segment_inputs) {
    argument_by_reference |= input.reg == 0 && input.by_reference;
  }
  EXPECT_TRUE(argument_by_reference);
  ExecutionPlan plan = Plan(*program);
  EXPECT_FALSE(plan.straight_line);
  bool by_reference = false;
  for (const auto& input : plan.segment_inputs) by_reference |= input.by_reference;
  EXPECT_TRUE(by_reference);

  // In the function with the frame kernels, both ways.
  Outcome outcome = RunBothWays(*program);
  EXPECT_THAT(outcome.results, ElementsAre("value", "value", "value"));
  EXPECT_TRUE(outcome.diagnostics.empty());
  auto results = Run(*program, "f");
  ASSERT_TRUE(results[0]->IsConcrete());
  EXPECT_TRUE(results[0]->get<bool>());

  // The straight line on a tensor argument, and on an operand of another
  // type (the frame path's message).
  AsyncValueRef<bef::Chain> ready = MakeAvailableAsyncValueRef<bef::Chain>();
  auto compared = Run(*program, "compare", {results[2].get(), ready.GetAsyncValue()});
  ASSERT_TRUE(compared[0]->IsConcrete());
  EXPECT_TRUE(compared[0]->get<bool>());
  EXPECT_TRUE(compared[1]->IsConcrete());
  AsyncValueRef<int32_t> number = MakeAvailableAsyncValueRef<int32_t>(3);
  auto wrong = Run(*program, "compare", {number.GetAsyncValue(), ready.GetAsyncValue()});
  ASSERT_TRUE(wrong[0]->IsError());
  EXPECT_EQ(wrong[0]->GetError().message(),
            "operand 0 is not a value of type !tfrt_tensor.tensor");
}

// The kernel contract for synchronous kernels with Result<>s, an error
// handler and effects of their own (DirectKernel::call): such kernels
// never run on a whole-function straight line, but as call steps of
// segments: once each, with the results, errors (reported once, at the
// kernel's location), error propagation and order of effects of the frame
// path, including a kernel that fails mid-chain with one result set.
TEST_P(SegmentTest, CallStepsKeepTheFramePathsResultsErrorsAndOrder) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"},
                               {"i32", "!tfrt.chain", "i32", "i32"});
  uint32_t chain = f.AddKernel("tfrt.new.chain").AddResult("!tfrt.chain");
  uint32_t value = 0;
  uint32_t last_value = 0;
  for (int i = 0; i < 40; ++i) {
    // x + i, logged in chain order; the argument decides which one fails.
    uint32_t offset = Constant(f, i);
    uint32_t operand = Add(f, 0, offset);
    BefWriter::Kernel& kernel = f.AddKernel("test.logged_call");
    kernel.AddArgument(operand).AddArgument(chain);
    last_value = kernel.AddResult("i32");
    chain = kernel.AddResult("!tfrt.chain");
    value = last_value;
  }
  BefWriter::Kernel& doubled = f.AddKernel("test.checked_double");
  doubled.AddArgument(value).AddArgument(chain);
  uint32_t twice = doubled.AddResult("i32");
  doubled.AddResult("!tfrt.chain");
  uint32_t after = Add(f, twice, value);
  f.Return({last_value, chain, twice, after});
  auto program = Load(writer);
  ExecutionPlan plan = Plan(*program);
  EXPECT_FALSE(plan.straight_line);
  ASSERT_FALSE(plan.segments.empty());
  size_t call_steps = 0;
  for (const ExecutionPlan::TryStep& step : plan.segmented.try_steps) call_steps += step.call != nullptr;
  EXPECT_EQ(call_steps, 41u);

  for (int32_t x : {5, -20, -100, 2000}) {
    std::vector<int32_t> order[2];
    Outcome outcomes[2];
    RunBothWays(*program, x, outcomes, order);
    EXPECT_EQ(order[0], order[1]) << x;
    if (x == 5) {
      EXPECT_THAT(outcomes[0].results, ElementsAre("45", "value", "90", "135"));
      EXPECT_TRUE(outcomes[0].diagnostics.empty());
      EXPECT_EQ(order[0].size(), 40u);
    } else if (x == -20) {
      // The first call fails (logs, sets its value, reports): the calls
      // after it take the error from its chain and do not run.
      EXPECT_EQ(order[0], std::vector<int32_t>{-20});
      EXPECT_THAT(outcomes[0].diagnostics, ElementsAre("negative: -20"));
      EXPECT_THAT(outcomes[0].results,
                  ElementsAre("error INVALID_ARGUMENT: negative: -20",
                              "error INVALID_ARGUMENT: negative: -20",
                              "error INVALID_ARGUMENT: negative: -20",
                              "error INVALID_ARGUMENT: negative: -20"));
    } else if (x == 2000) {
      // The last kernel fails through its return value.
      EXPECT_EQ(order[0].size(), 40u);
      EXPECT_THAT(outcomes[0].diagnostics, ElementsAre("too large"));
      EXPECT_THAT(outcomes[0].results, ElementsAre("2040", "value", "error OUT_OF_RANGE: too large",
                                                   "error OUT_OF_RANGE: too large"));
    }
  }
}

// Async call steps of EnqueueWork kernels (internal::CapturedWork): the
// work kept in the result's register (a small one) or in the capture block
// (a string in it) and run into the register when the kernel hands
// EnqueueWork's value back untouched; completed from a task when the kernel
// observes the value or drops it; an error of the work at the kernel's
// location. The same results, diagnostics, runs and order of the work as
// kernel by kernel, chained and fanned out, the kinds in turn (one
// processing loop's capture block reused, or taken, from one to the next).
TEST_P(SegmentTest, EnqueueWorkKernelsKeepTheFramePathsResultsErrorsAndOrder) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32", "i32"});
  const char* const kernels[] = {"test.work_plain", "test.work_observed", "test.work_dropped",
                                 "test.work_checked", "test.work_wide"};
  uint32_t value = 0;
  std::vector<uint32_t> fanned;
  for (int i = 0; i < 25; ++i) {
    BefWriter::Kernel& kernel = f.AddKernel(kernels[i % 5]);
    kernel.AddArgument(value);
    value = kernel.AddResult("i32");
    BefWriter::Kernel& side = f.AddKernel(kernels[(i + 1) % 5]);
    side.AddArgument(0);
    fanned.push_back(side.AddResult("i32"));
  }
  uint32_t sum = fanned[0];
  for (size_t i = 1; i < fanned.size(); ++i) sum = Add(f, sum, fanned[i]);
  uint32_t after = Add(f, value, sum);
  f.Return({value, sum, after});
  auto program = Load(writer);

  for (int32_t x : {5, 995, 2000}) {
    std::vector<int32_t> order[2];
    Outcome outcomes[2];
    RunBothWays(*program, x, outcomes, order);
    // Every work ran once; on one thread in the same order.
    std::vector<int32_t> sorted[2] = {order[0], order[1]};
    std::sort(sorted[0].begin(), sorted[0].end());
    std::sort(sorted[1].begin(), sorted[1].end());
    EXPECT_EQ(sorted[0], sorted[1]) << x;
    if (GetParam() == std::string("s")) {
      EXPECT_EQ(order[0], order[1]) << x;
    }
    if (x == 5) {
      // Each kernel adds 1, 2, 3, 4, 5 in turn: 5 rounds of 15 on the
      // chain; 25 kernels on 5 beside it, 5 of each.
      EXPECT_THAT(outcomes[0].results, ElementsAre("80", "200", "280"));
    } else if (x == 995) {
      // The chain passes 1000 before a checked kernel: its work fails.
      EXPECT_THAT(outcomes[0].results[0], ::testing::HasSubstr("OUT_OF_RANGE: too large"));
    }
  }
}

// What an execution sets up (ExecutionPlan::registers_to_clear,
// ready_counts_to_set): a chain of 1,000 adds with an async kernel in the
// middle runs as a segment, whose own registers are never read through
// their Register: the execution clears a few registers (the argument's,
// the constant's, the result's) of 1,002, and sets a few ready counts.
// Debug builds fill what is not set up with garbage (Invocation's
// constructor), so an execution that read it would fail here: the same
// results as kernel by kernel, and after a failing work.
TEST_P(SegmentTest, AnExecutionSetsUpOnlyWhatItReads) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32"});
  uint32_t one = Constant(f, 1);
  uint32_t value = 0;
  for (int i = 0; i < 1000; ++i) {
    if (i == 500) {
      value = f.AddKernel("test.work_checked").AddArgument(value).AddResult("i32");  // x + 4
    } else {
      value = Add(f, value, one);
    }
  }
  f.Return({value});
  auto program = Load(writer);
  ExecutionPlan plan = Plan(*program);
  plan.EnsureSegments();
  EXPECT_LE(plan.segments.size(), 2u);  // the constant's, and the chain
  uint32_t cleared = 0;
  for (const auto& range : plan.registers_to_clear) cleared += range.end - range.begin;
  EXPECT_LE(cleared, 2 * ExecutionPlan::kSetupGap);
  uint32_t counts = 0;
  for (const auto& range : plan.ready_counts_to_set) counts += range.end - range.begin;
  EXPECT_LE(counts, ExecutionPlan::kSetupGap);

  for (int32_t x : {5, 600}) {
    std::vector<int32_t> order[2];
    Outcome outcomes[2];
    RunBothWays(*program, x, outcomes, order);
    if (x == 5) {
      EXPECT_THAT(outcomes[0].results, ElementsAre("1008"));
    } else {
      // 600 + 500 passes 1000 before the checked kernel: its work fails.
      EXPECT_THAT(outcomes[0].results[0], ::testing::HasSubstr("OUT_OF_RANGE: too large"));
    }
  }
}

// A segment's input another segment produces and never boxes is read as
// its payload without a look at its Register (SegmentInput::payload_only)
// until a segment exports one by one: a failing work's segment does, and
// its user, another segment, then sees the error, not the payload register
// the work never wrote. The left work fails (x = 2000), or none does.
TEST_P(SegmentTest, APayloadOnlyInputSeesAnErrorFromAnotherSegment) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32"});
  uint32_t one = Constant(f, 1);
  uint32_t left = f.AddKernel("test.work_checked").AddArgument(0).AddResult("i32");
  uint32_t right = f.AddKernel("test.work_checked").AddArgument(one).AddResult("i32");
  uint32_t sum = Add(f, left, right);
  f.Return({Add(f, sum, one)});
  auto program = Load(writer);
  ExecutionPlan plan = Plan(*program);
  plan.EnsureSegments();
  uint32_t payload_only = 0;
  for (const auto& input : plan.segment_inputs) payload_only += input.payload_only;
  EXPECT_GE(payload_only, 2u);  // the sum's operands (and the constant's users)

  for (int32_t x : {5, 2000}) {
    std::vector<int32_t> order[2];
    Outcome outcomes[2];
    RunBothWays(*program, x, outcomes, order);
    if (x == 5) {
      EXPECT_THAT(outcomes[0].results, ElementsAre("15"));  // (5 + 4) + (1 + 4) + 1
    } else {
      EXPECT_THAT(outcomes[0].results[0], ::testing::HasSubstr("OUT_OF_RANGE: too large: 2000"));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(WorkQueues, SegmentTest, ::testing::Values("s", "mstd:2"));

// Straight line (execution_plan.h): a function of direct kernels runs as a
// loop over them. It looks at the request's cancellation every 64 kernels;
// the results of kernels not run then are the cancellation's error, those of
// kernels already run are values, as on the dataflow path.
TEST_P(ExecutorTest, StraightLineNoticesCancellationOnTheWay) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"},
                               {"i32", "i32", "i32", "i32"});
  uint32_t one = Constant(f, 1);
  uint32_t early = Add(f, 0, one);  // kernel 2
  uint32_t value = early;
  for (int i = 0; i < 10; ++i) value = Add(f, value, one);
  uint32_t cancelling = f.AddKernel("test.cancel_and_add_one").AddArgument(value)
                            .AddResult("i32");  // kernel 13
  value = cancelling;
  for (int i = 0; i < 200; ++i) value = Add(f, value, one);
  f.Return({early, cancelling, value, 0});
  auto program = Load(writer);
  const BefFile& file = program->file();
  EXPECT_TRUE(ExecutionPlan(**file.GetFunctionInfo(file.FindFunction("f")->index))
                  .straight_line);

  RCReference<RequestContext> request = RequestContext::Create(host_.get(), nullptr);
  request_to_cancel = request.get();
  AsyncValueRef<int32_t> ten = MakeAvailableAsyncValueRef<int32_t>(10);
  auto results = Run(*program, "f", {ten.GetAsyncValue()}, request);
  request_to_cancel = nullptr;
  EXPECT_EQ(I32(results[0]), 11);
  EXPECT_EQ(I32(results[1]), 22);
  ASSERT_TRUE(results[2]->IsError());
  EXPECT_EQ(results[2]->GetError().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(results[3].get(), ten.GetAsyncValue());  // an argument returned
  EXPECT_TRUE(diagnostics_.empty());
}

// Streams are scheduling hints: mlir-to-bef's stream analysis puts a
// constant with many users on a stream of its own, and kernels of one
// function on several streams; a function of direct kernels still runs
// straight line, with the results of the dataflow path.
TEST_P(ExecutorTest, StraightLineWhateverTheStreams) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32"});
  uint32_t one = f.AddKernel("tfrt.constant.i32")
                     .set_stream(1)
                     .AddAttribute(BefAttribute::I32(1), "value")
                     .AddResult("i32");
  uint32_t chain = 0;
  for (int i = 0; i < 300; ++i) {
    chain = f.AddKernel("tfrt.add.i32").AddArgument(i == 0 ? 0 : chain).AddArgument(one)
                .AddResult("i32");
  }
  uint32_t side = f.AddKernel("tfrt.add.i32").set_stream(2).AddArgument(0).AddArgument(0)
                      .AddResult("i32");
  f.Return({chain, side});
  auto program = Load(writer);
  const BefFile& file = program->file();
  ExecutionPlan plan(**file.GetFunctionInfo(file.FindFunction("f")->index));
  ASSERT_TRUE(plan.straight_line);
  for (int32_t x = -2; x < 3; ++x) {
    AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
    auto results = Run(*program, "f", {argument.GetAsyncValue()});
    EXPECT_EQ(I32(results[0]), x + 300);
    EXPECT_EQ(I32(results[1]), 2 * x);
  }
  EXPECT_TRUE(diagnostics_.empty());
}

// A kernel with no operands on a stream of its own whose users are all on
// the entry's stream (TFRT's stream analysis makes such roots: a model's
// weights, its output tensors) runs on the thread that starts the
// execution, on a queue with threads too: sent to one of them, it would
// take the rest of the entry's stream there (ExecutionPlan::
// threaded_schedule). A root whose user is on another stream keeps its
// stream. On the single-threaded queue every kernel runs on the caller.
TEST_P(ExecutorTest, RootsFeedingTheEntryStreamRunOnTheStartingThread) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32"});
  uint32_t here = f.AddKernel("test.on_starting_thread").set_stream(5).AddResult("i32");
  uint32_t later = f.AddKernel("test.thread_add_one").AddArgument(0).AddResult("i32");
  uint32_t sum = f.AddKernel("tfrt.add.i32").AddArgument(here).AddArgument(later).AddResult("i32");
  uint32_t apart = f.AddKernel("test.on_starting_thread").set_stream(6).AddResult("i32");
  uint32_t twice = f.AddKernel("tfrt.add.i32")
                       .set_stream(6)
                       .AddArgument(apart)
                       .AddArgument(apart)
                       .AddResult("i32");
  f.Return({sum, twice});
  auto program = Load(writer);
  const BefFile& file = program->file();
  ExecutionPlan plan(**file.GetFunctionInfo(file.FindFunction("f")->index));
  ASSERT_FALSE(plan.straight_line);
  const bool threaded = std::string_view(GetParam()) != "s";
  starting_thread = std::this_thread::get_id();
  for (int32_t x = 0; x < 20; ++x) {
    AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
    auto results = Run(*program, "f", {argument.GetAsyncValue()});
    EXPECT_EQ(I32(results[0]), x + 2);
    EXPECT_EQ(I32(results[1]), threaded ? 0 : 2);
  }
  EXPECT_TRUE(diagnostics_.empty());
}

// tfrt.new.chain and tfrt.merge.chains are chain-only: on the straight line
// they do nothing (every value there is available). A chain argument that
// is an error sends the run to the dataflow path, which propagates it.
TEST_P(ExecutorTest, StraightLineRunsChainKernels) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"!tfrt.chain", "i32"},
                               {"!tfrt.chain", "i32", "!tfrt.chain"});
  uint32_t one = Constant(f, 1);
  uint32_t fresh = f.AddKernel("tfrt.new.chain").AddResult("!tfrt.chain");
  uint32_t value = Add(f, 1, one);
  uint32_t merged = f.AddKernel("tfrt.merge.chains").AddArgument(0).AddArgument(value)
                        .AddArgument(fresh).AddResult("!tfrt.chain");
  uint32_t again = f.AddKernel("tfrt.merge.chains").AddArgument(merged).AddArgument(value)
                       .AddResult("!tfrt.chain");
  f.Return({again, Add(f, value, one), fresh});
  auto program = Load(writer);
  const BefFile& file = program->file();
  ExecutionPlan plan(**file.GetFunctionInfo(file.FindFunction("f")->index));
  ASSERT_TRUE(plan.straight_line);

  AsyncValueRef<int32_t> five = MakeAvailableAsyncValueRef<int32_t>(5);
  auto results = Run(*program, "f", {GetReadyChainValue(), five.GetAsyncValue()});
  EXPECT_TRUE(results[0]->IsConcrete());
  EXPECT_TRUE(results[0]->IsType<Chain>());
  EXPECT_EQ(I32(results[1]), 7);
  EXPECT_TRUE(results[2]->IsConcrete());

  RCReference<AsyncValue> broken = MakeErrorAsyncValueRef(absl::InternalError("broken chain"));
  results = Run(*program, "f", {broken.get(), five.GetAsyncValue()});
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().message(), "broken chain");
  EXPECT_EQ(I32(results[1]), 7);
  EXPECT_TRUE(results[2]->IsConcrete());
}

// Kernels of one dataflow level are independent: a wide level (at least
// 4096 kernels) is split between the work queue's threads (on mstd:2; on s
// the same plan runs on one thread).
TEST_P(ExecutorTest, StraightLineSplitsWideLevelsBetweenThreads) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32"});
  uint32_t one = Constant(f, 1);
  std::vector<uint32_t> level;
  for (int i = 0; i < 10000; ++i) level.push_back(Add(f, 0, one));
  while (level.size() > 1) {
    std::vector<uint32_t> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(Add(f, level[i], level[i + 1]));
    if (level.size() % 2) next.push_back(level.back());
    level = std::move(next);
  }
  f.Return({level[0]});
  auto program = Load(writer);
  const BefFile& file = program->file();
  ExecutionPlan plan(**file.GetFunctionInfo(file.FindFunction("f")->index));
  ASSERT_TRUE(plan.straight_line);
  EXPECT_EQ(plan.widest_level, 10000u);
  EXPECT_EQ(plan.level_begin[0], 0u);  // the constant
  EXPECT_EQ(plan.level_begin[1], 1u);  // the 10,000 adds of the argument
  EXPECT_EQ(plan.level_begin[2], 10001u);
  for (int32_t x = 0; x < 20; ++x) {
    AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
    EXPECT_EQ(I32(Run(*program, "f", {argument.GetAsyncValue()})[0]), 10000 * (x + 1));
  }
}

// With a wide level the run goes level by level (split between threads on
// mstd:2); a cancellation is still noticed in a deep part made of levels of
// one kernel each.
TEST_P(ExecutorTest, StraightLineWithAWideLevelNoticesCancellationInDeepLevels) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32", "i32"});
  uint32_t one = Constant(f, 1);
  uint32_t wide = 0;
  for (int i = 0; i < 5000; ++i) wide = Add(f, 0, one);
  uint32_t value = Add(f, 0, one);
  uint32_t cancelling = f.AddKernel("test.cancel_and_add_one").AddArgument(value)
                            .AddResult("i32");
  value = cancelling;
  for (int i = 0; i < 200; ++i) value = Add(f, value, one);
  f.Return({wide, value});
  auto program = Load(writer);
  const BefFile& file = program->file();
  ExecutionPlan plan(**file.GetFunctionInfo(file.FindFunction("f")->index));
  ASSERT_TRUE(plan.straight_line);
  EXPECT_EQ(plan.widest_level, 5001u);

  RCReference<RequestContext> request = RequestContext::Create(host_.get(), nullptr);
  request_to_cancel = request.get();
  AsyncValueRef<int32_t> ten = MakeAvailableAsyncValueRef<int32_t>(10);
  auto results = Run(*program, "f", {ten.GetAsyncValue()}, request);
  request_to_cancel = nullptr;
  EXPECT_EQ(I32(results[0]), 11);  // the wide level ran before the cancellation
  ASSERT_TRUE(results[1]->IsError());
  EXPECT_EQ(results[1]->GetError().code(), absl::StatusCode::kCancelled);
}

// A kernel budget is charged for a whole straight-line run up front, and
// the run that would exhaust it goes through the dataflow path, which stops
// at the exact kernel: the same outcome as counting kernel by kernel.
TEST_P(ExecutorTest, StraightLineChargesTheKernelBudget) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
  uint32_t one = Constant(f, 1);
  uint32_t value = one;
  for (int i = 0; i < 100; ++i) value = Add(f, value, one);  // 101 kernels
  f.Return({value});
  auto program = Load(writer);
  RCReference<RequestContext> request = RequestContext::Create(host_.get(), nullptr);
  request->SetKernelBudget(250);
  EXPECT_EQ(I32(Run(*program, "f", {}, request)[0]), 101);  // 149 left
  EXPECT_EQ(I32(Run(*program, "f", {}, request)[0]), 101);  // 48 left
  auto results = Run(*program, "f", {}, request);
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_FALSE(request->TryConsumeKernelBudget(0));  // exhausted
}

// A straight-line function whose argument is not available yet (or not of
// the type read) runs on the dataflow path: same results.
TEST_P(ExecutorTest, StraightLineFunctionWithAPendingArgument) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32"});
  uint32_t value = 0;
  for (int i = 0; i < 100; ++i) value = Add(f, value, Constant(f, 2));
  f.Return({value});
  auto program = Load(writer);
  AsyncValueRef<int32_t> pending = MakeUnconstructedAsyncValueRef<int32_t>();
  const Function* function = program->GetFunction("f");
  ExecutionContext context(RequestContext::Create(host_.get(), &resources_));
  std::vector<RCReference<AsyncValue>> results(1);
  AsyncValue* arguments[] = {pending.GetAsyncValue()};
  function->Execute(context, arguments, results);
  EXPECT_FALSE(results[0]->IsAvailable());
  pending.emplace(1);
  host_->Await(results);
  EXPECT_EQ(I32(results[0]), 201);
  // Available now: the straight-line path, same result.
  EXPECT_EQ(I32(Run(*program, "f", {pending.GetAsyncValue()})[0]), 201);
  // An argument of another type: the frame of its first reader reports it.
  AsyncValueRef<int64_t> wide = MakeAvailableAsyncValueRef<int64_t>(1);
  auto wrong = Run(*program, "f", {wide.GetAsyncValue()});
  ASSERT_TRUE(wrong[0]->IsError());
  EXPECT_EQ(wrong[0]->GetError().message(), "operand 0 is not a value of type i32");
}

// tfrt.repeat.i32 over a straight-line body whose results feed its
// arguments runs every iteration in one ExecuteRepeated call, the loop
// values unboxed in between: kernel results, an argument passed on to
// another position, an argument returned unchanged (a chain, not read).
TEST_P(ExecutorTest, RepeatedStraightLineCarriesUnboxedLoopValues) {
  BefWriter writer;
  // step(a, b, chain) -> (b, a + b, chain): Fibonacci.
  auto& step = writer.AddFunction(FunctionKind::kBefFunction, "step",
                                  {"i32", "i32", "!tfrt.chain"},
                                  {"i32", "i32", "!tfrt.chain"});
  step.Return({1, Add(step, 0, 1), 2});
  // main() -> (a, b, chain) after 40 steps from (0, 1).
  auto& main = writer.AddFunction(FunctionKind::kBefFunction, "main", {},
                                  {"i32", "i32", "!tfrt.chain"});
  uint32_t chain = main.AddKernel("tfrt.new.chain").AddResult("!tfrt.chain");
  uint32_t count = Constant(main, 40), a = Constant(main, 0), b = Constant(main, 1);
  BefWriter::Kernel& repeat = main.AddKernel("tfrt.repeat.i32")
                                  .AddArgument(count)
                                  .AddArgument(a)
                                  .AddArgument(b)
                                  .AddArgument(chain)
                                  .AddFunction(step.index());
  main.Return({repeat.AddResult("i32"), repeat.AddResult("i32"),
               repeat.AddResult("!tfrt.chain")});
  auto program = Load(writer);

  auto results = Run(*program, "main");
  EXPECT_EQ(I32(results[0]), 102334155);  // F(40)
  EXPECT_EQ(I32(results[1]), 165580141);  // F(41)
  EXPECT_TRUE(results[2]->IsConcrete());
  EXPECT_TRUE(diagnostics_.empty());

  const Function* function = program->GetFunction("step");
  ExecutionContext context(RequestContext::Create(host_.get(), &resources_));
  AsyncValueRef<int32_t> zero = MakeAvailableAsyncValueRef<int32_t>(0);
  AsyncValueRef<int32_t> one = MakeAvailableAsyncValueRef<int32_t>(1);
  AsyncValueRef<Chain> ready = MakeAvailableAsyncValueRef<Chain>();
  std::vector<AsyncValue*> arguments = {zero.GetAsyncValue(), one.GetAsyncValue(),
                                        ready.GetAsyncValue()};
  std::vector<RCReference<AsyncValue>> direct(3);
  ASSERT_TRUE(function->ExecuteRepeated(context, 1, arguments, direct));
  EXPECT_EQ(I32(direct[0]), 1);
  EXPECT_EQ(I32(direct[1]), 1);
  EXPECT_EQ(direct[2].get(), ready.GetAsyncValue());  // returned unchanged
  std::vector<RCReference<AsyncValue>> many(3);
  ASSERT_TRUE(function->ExecuteRepeated(context, 10, arguments, many));
  EXPECT_EQ(I32(many[0]), 55);
  EXPECT_EQ(I32(many[1]), 89);
  EXPECT_EQ(many[2].get(), ready.GetAsyncValue());
}

// When all the loop values are kernel results, and what makes
// ExecuteRepeated decline (nothing done, the budget untouched): a result of
// another type than its argument, a kernel budget too small for all runs.
TEST_P(ExecutorTest, RepeatedStraightLineOnlyWhereItCan) {
  BefWriter writer;
  auto& increment = writer.AddFunction(FunctionKind::kBefFunction, "increment",
                                       {"i32"}, {"i32"});
  increment.Return({Add(increment, 0, Constant(increment, 1))});
  auto& widen = writer.AddFunction(FunctionKind::kBefFunction, "widen", {"i32"}, {"i64"});
  Add(widen, 0, 0);
  widen.Return({widen.AddKernel("tfrt.constant.i64")
                    .AddAttribute(BefAttribute::I64(7), "value")
                    .AddResult("i64")});
  auto program = Load(writer);
  AsyncValueRef<int32_t> zero = MakeAvailableAsyncValueRef<int32_t>(0);
  std::vector<AsyncValue*> arguments = {zero.GetAsyncValue()};

  RCReference<RequestContext> request = RequestContext::Create(host_.get(), &resources_);
  ExecutionContext context(request.CopyRef());
  std::vector<RCReference<AsyncValue>> results(1);
  ASSERT_TRUE(program->GetFunction("increment")->ExecuteRepeated(context, 1000, arguments,
                                                                 results));
  EXPECT_EQ(I32(results[0]), 1000);

  std::vector<RCReference<AsyncValue>> declined(1);
  EXPECT_FALSE(program->GetFunction("widen")->ExecuteRepeated(context, 2, arguments, declined));
  EXPECT_EQ(declined[0].get(), nullptr);

  // 2 kernels per run; a budget is never charged to zero up front (the
  // dataflow path then stops at the exact kernel).
  request->SetKernelBudget(100);
  EXPECT_FALSE(program->GetFunction("increment")->ExecuteRepeated(context, 50, arguments,
                                                                  declined));
  EXPECT_EQ(declined[0].get(), nullptr);
  ASSERT_TRUE(program->GetFunction("increment")->ExecuteRepeated(context, 49, arguments,
                                                                 declined));
  EXPECT_EQ(I32(declined[0]), 49);
  EXPECT_FALSE(request->TryConsumeKernelBudget(2));  // 98 charged
  EXPECT_TRUE(request->TryConsumeKernelBudget(1));
}

// A cancellation during the runs makes every result its error (as the
// repeat loop does when it notices one between iterations).
TEST_P(ExecutorTest, RepeatedStraightLineNoticesCancellation) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32"});
  f.Return({f.AddKernel("test.cancel_and_add_one").AddArgument(0).AddResult("i32")});
  auto program = Load(writer);
  RCReference<RequestContext> request = RequestContext::Create(host_.get(), &resources_);
  request_to_cancel = request.get();
  ExecutionContext context(request.CopyRef());
  AsyncValueRef<int32_t> zero = MakeAvailableAsyncValueRef<int32_t>(0);
  std::vector<AsyncValue*> arguments = {zero.GetAsyncValue()};
  std::vector<RCReference<AsyncValue>> results(1);
  ASSERT_TRUE(program->GetFunction("f")->ExecuteRepeated(context, 5, arguments, results));
  request_to_cancel = nullptr;
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().code(), absl::StatusCode::kCancelled);
}

// tfrt.call and tfrt.if of straight-line functions are steps of the
// caller's straight line (their callees run as nested lines on windows of
// its registers): the same results as the dataflow path, which runs when an
// argument is pending, and the same kernel budget charged for calls; a
// function with a tfrt.if (a kernel count known only as it runs) takes the
// dataflow path under a budget.
TEST_P(ExecutorTest, StraightLineRunsCallsInPlace) {
  BefWriter writer;
  auto& add_one = writer.AddFunction(FunctionKind::kBefFunction, "add_one", {"i32"}, {"i32"});
  add_one.Return({Add(add_one, 0, Constant(add_one, 1))});
  // pass(x, y) -> (x + y, y): a result passes an argument on.
  auto& pass = writer.AddFunction(FunctionKind::kBefFunction, "pass", {"i32", "i32"},
                                  {"i32", "i32"});
  pass.Return({Add(pass, 0, 1), 1});
  auto& identity = writer.AddFunction(FunctionKind::kBefFunction, "identity", {"i32"}, {"i32"});
  identity.Return({0});
  // calls(x) -> (add_one(add_one(x)), x + x + 1, x + 1)
  auto& calls = writer.AddFunction(FunctionKind::kBefFunction, "calls", {"i32"},
                                   {"i32", "i32", "i32"});
  auto call = [&](BefWriter::Function& f, uint32_t callee, std::vector<uint32_t> arguments,
                  int results) {
    BefWriter::Kernel& kernel = f.AddKernel("tfrt.call").AddFunction(callee);
    for (uint32_t a : arguments) kernel.AddArgument(a);
    std::vector<uint32_t> registers;
    for (int i = 0; i < results; ++i) registers.push_back(kernel.AddResult("i32"));
    return registers;
  };
  uint32_t once = call(calls, add_one.index(), {0}, 1)[0];
  uint32_t twice = call(calls, add_one.index(), {once}, 1)[0];
  std::vector<uint32_t> passed = call(calls, pass.index(), {0, once}, 2);
  calls.Return({twice, passed[0], passed[1]});
  // branch(c, x) -> if c then add_one(x) else x
  auto& branch = writer.AddFunction(FunctionKind::kBefFunction, "branch", {"i1", "i32"},
                                    {"i32"});
  branch.Return({branch.AddKernel("tfrt.if")
                     .AddArgument(0)
                     .AddArgument(1)
                     .AddFunction(add_one.index())
                     .AddFunction(identity.index())
                     .AddResult("i32")});
  auto program = Load(writer);
  const BefFile& file = program->file();
  ExecutionPlan calls_plan(**file.GetFunctionInfo(file.FindFunction("calls")->index), &file);
  ASSERT_TRUE(calls_plan.straight_line);
  EXPECT_EQ(calls_plan.straight.nested_calls.size(), 3u);
  // The dataflow path's segments: planned on its first use.
  EXPECT_TRUE(calls_plan.segment_kernels.empty());
  calls_plan.EnsureSegments();
  EXPECT_THAT(calls_plan.segment_kernels, UnorderedElementsAre(1, 2, 3));
  EXPECT_EQ(calls_plan.segmented.nested_calls.size(), 3u);
  EXPECT_EQ(calls_plan.line_kernels, 3 + 2 + 2 + 1);
  EXPECT_TRUE(calls_plan.line_kernels_known);
  ExecutionPlan branch_plan(**file.GetFunctionInfo(file.FindFunction("branch")->index), &file);
  ASSERT_TRUE(branch_plan.straight_line);
  EXPECT_FALSE(branch_plan.line_kernels_known);
  // Without the file, calls are not planned in place.
  EXPECT_FALSE(
      ExecutionPlan(**file.GetFunctionInfo(file.FindFunction("calls")->index)).straight_line);

  for (int32_t x : {-3, 0, 41}) {
    AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
    auto results = Run(*program, "calls", {argument.GetAsyncValue()});
    EXPECT_EQ(I32(results[0]), x + 2);
    EXPECT_EQ(I32(results[1]), 2 * x + 1);
    EXPECT_EQ(I32(results[2]), x + 1);
    for (bool condition : {true, false}) {
      AsyncValueRef<bool> c = MakeAvailableAsyncValueRef<bool>(condition);
      auto taken = Run(*program, "branch", {c.GetAsyncValue(), argument.GetAsyncValue()});
      EXPECT_EQ(I32(taken[0]), condition ? x + 1 : x);
    }
  }

  // The budget: a straight-line run of `calls` charges what the dataflow
  // path (a pending argument) charges.
  auto charged = [&](bool pending) {
    RCReference<RequestContext> request = RequestContext::Create(host_.get(), &resources_);
    request->SetKernelBudget(1000);
    AsyncValueRef<int32_t> argument = pending ? MakeUnconstructedAsyncValueRef<int32_t>()
                                              : MakeAvailableAsyncValueRef<int32_t>(5);
    ExecutionContext context(request.CopyRef());
    std::vector<RCReference<AsyncValue>> results(3);
    AsyncValue* arguments[] = {argument.GetAsyncValue()};
    program->GetFunction("calls")->Execute(context, arguments, results);
    if (pending) argument.emplace(5);
    host_->Await(results);
    host_->Quiesce();
    EXPECT_EQ(I32(results[0]), 7);
    int64_t left = 0;
    while (request->TryConsumeKernelBudget(1)) ++left;
    return 1000 - left;
  };
  EXPECT_EQ(charged(false), charged(true));
  // tfrt.if under a budget: the dataflow path, same result.
  RCReference<RequestContext> budgeted = RequestContext::Create(host_.get(), &resources_);
  budgeted->SetKernelBudget(1000);
  AsyncValueRef<bool> yes = MakeAvailableAsyncValueRef<bool>(true);
  AsyncValueRef<int32_t> seven = MakeAvailableAsyncValueRef<int32_t>(7);
  EXPECT_EQ(I32(Run(*program, "branch", {yes.GetAsyncValue(), seven.GetAsyncValue()},
                    budgeted)[0]),
            8);
  EXPECT_TRUE(diagnostics_.empty());
}

// A function that calls itself is planned to kMaxCallNesting calls deep,
// then given up: the dataflow path runs it.
TEST_P(ExecutorTest, RecursiveCallsAreNoStraightLine) {
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i1", "i32"}, {"i32"});
  auto& identity = writer.AddFunction(FunctionKind::kBefFunction, "identity", {"i1", "i32"},
                                      {"i32"});
  identity.Return({1});
  // f(c, x) = if c then f(false, x + 1) else x + 1
  uint32_t next = Add(f, 1, Constant(f, 1));
  uint32_t no = f.AddKernel("tfrt.constant.i1")
                    .AddAttribute(BefAttribute::Bool(false), "value")
                    .AddResult("i1");
  f.Return({f.AddKernel("tfrt.if")
                .AddArgument(0)
                .AddArgument(no)
                .AddArgument(next)
                .AddFunction(f.index())
                .AddFunction(identity.index())
                .AddResult("i32")});
  auto program = Load(writer);
  const BefFile& file = program->file();
  EXPECT_FALSE(
      ExecutionPlan(**file.GetFunctionInfo(file.FindFunction("f")->index), &file).straight_line);
  AsyncValueRef<bool> yes = MakeAvailableAsyncValueRef<bool>(true);
  AsyncValueRef<int32_t> one = MakeAvailableAsyncValueRef<int32_t>(1);
  EXPECT_EQ(I32(Run(*program, "f", {yes.GetAsyncValue(), one.GetAsyncValue()})[0]), 3);
}

// tfrt.while over a straight-line body (ExecuteWhile): the loop values stay
// payloads until the body's i1 is false; declined under a kernel budget;
// a cancellation makes every result its error.
TEST_P(ExecutorTest, WhileOnTheStraightLine) {
  BefWriter writer;
  // step(i, last) -> (i + 1, last, i + 1 <= last)
  auto& step = writer.AddFunction(FunctionKind::kBefFunction, "step", {"i32", "i32"},
                                  {"i32", "i32", "i1"});
  uint32_t next = Add(step, 0, Constant(step, 1));
  step.Return({next, 1,
               step.AddKernel("tfrt.lessequal.i32").AddArgument(next).AddArgument(1)
                   .AddResult("i1")});
  auto& cancelling = writer.AddFunction(FunctionKind::kBefFunction, "cancelling", {"i32"},
                                        {"i32", "i1"});
  uint32_t value = cancelling.AddKernel("test.cancel_and_add_one").AddArgument(0)
                       .AddResult("i32");
  cancelling.Return({value, cancelling.AddKernel("tfrt.constant.i1")
                                .AddAttribute(BefAttribute::Bool(true), "value")
                                .AddResult("i1")});
  auto program = Load(writer);
  RCReference<RequestContext> request = RequestContext::Create(host_.get(), &resources_);
  ExecutionContext context(request.CopyRef());
  AsyncValueRef<int32_t> zero = MakeAvailableAsyncValueRef<int32_t>(0);
  AsyncValueRef<int32_t> last = MakeAvailableAsyncValueRef<int32_t>(999);
  std::vector<AsyncValue*> arguments = {zero.GetAsyncValue(), last.GetAsyncValue()};
  std::vector<RCReference<AsyncValue>> results(2);
  ASSERT_TRUE(program->GetFunction("step")->ExecuteWhile(context, arguments, results));
  EXPECT_EQ(I32(results[0]), 1000);
  EXPECT_EQ(results[1].get(), last.GetAsyncValue());  // passed on unchanged

  request->SetKernelBudget(100000);
  std::vector<RCReference<AsyncValue>> declined(2);
  EXPECT_FALSE(program->GetFunction("step")->ExecuteWhile(context, arguments, declined));
  EXPECT_EQ(declined[0].get(), nullptr);

  RCReference<RequestContext> cancelled = RequestContext::Create(host_.get(), &resources_);
  request_to_cancel = cancelled.get();
  ExecutionContext cancelled_context(cancelled.CopyRef());
  std::vector<AsyncValue*> one_argument = {zero.GetAsyncValue()};
  std::vector<RCReference<AsyncValue>> stopped(1);
  ASSERT_TRUE(program->GetFunction("cancelling")
                  ->ExecuteWhile(cancelled_context, one_argument, stopped));
  request_to_cancel = nullptr;
  ASSERT_TRUE(stopped[0]->IsError());
  EXPECT_EQ(stopped[0]->GetError().code(), absl::StatusCode::kCancelled);
}

INSTANTIATE_TEST_SUITE_P(WorkQueues, ExecutorTest, ::testing::Values("s", "mstd:2"));

TEST(ConcurrentExecutionTest, TenThousandExecutionsFromFourThreads) {
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   CreateMultiThreadedWorkQueue(2, 4).value());
  RegisterStaticKernels(&host.kernel_registry());
  BefWriter writer;
  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "f", {"i32"}, {"i32"});
  uint32_t value = f.AddKernel("tfrt_test.async_copy.i32").AddArgument(0).AddResult("i32");
  for (int i = 0; i < 5; ++i) value = Add(f, value, 0);
  f.Return({value});
  auto program = BefProgram::FromBuffer(&host, writer.Finish().value()).value();
  const Function* function = program->GetFunction("f");
  std::atomic<int> correct{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2500; ++i) {
        int32_t x = t * 10000 + i;
        AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
        AsyncValue* arguments[] = {argument.GetAsyncValue()};
        std::vector<RCReference<AsyncValue>> results(1);
        ExecutionContext context(RequestContext::Create(&host, nullptr));
        function->Execute(context, arguments, results);
        host.Await(results);
        if (results[0]->get<int32_t>() == 6 * x) correct.fetch_add(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  host.Quiesce();
  EXPECT_EQ(correct.load(), 10000);
}

}  // namespace
}  // namespace bef
