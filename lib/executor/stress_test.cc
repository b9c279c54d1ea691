// Stress: a million executions of one function from four threads on the
// `mstd:2` queue, a fifth of them cancelled at a random moment and a fifth
// with a random deadline (issue #10). Every execution must complete with the
// right results or report CANCELLED / DEADLINE_EXCEEDED; no memory may stay
// allocated (a counting allocator over the leak-check allocator, which also
// exits non-zero on a leak); ASan and TSan runs of this test find nothing.
//
// The function mixes what can race with a cancellation: an async kernel
// (work-queue task), a call, a tensor allocated, written and compared.
//
// BEF_STRESS_EXECUTIONS overrides the count (default 1,000,000; 100,000
// under a sanitizer, where each execution is ten times slower).
#include <atomic>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bef/async/async_value_ref.h"
#include "bef/executor/bef_program.h"
#include "bef/format/bef_writer.h"
#include "lib/testing/program_builder.h"
#include "bef/host/execution_context.h"
#include "bef/host/host_allocator.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/native_function.h"
#include "bef/host/work_queue.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int64_t kDefaultExecutions = 100000;
#else
constexpr int64_t kDefaultExecutions = 1000000;
#endif

// Counts live bytes on top of another allocator.
class CountingAllocator : public HostAllocator {
 public:
  explicit CountingAllocator(std::unique_ptr<HostAllocator> inner)
      : inner_(std::move(inner)) {}
  void* AllocateBytes(size_t size, size_t alignment) override {
    void* block = inner_->AllocateBytes(size, alignment);
    if (block != nullptr) live_bytes_.fetch_add(static_cast<int64_t>(size));
    return block;
  }
  void DeallocateBytes(void* pointer, size_t size) override {
    live_bytes_.fetch_sub(static_cast<int64_t>(size));
    inner_->DeallocateBytes(pointer, size);
  }
  int64_t live_bytes() const { return live_bytes_.load(); }

 private:
  std::unique_ptr<HostAllocator> inner_;
  std::atomic<int64_t> live_bytes_{0};
};

// work(x) -> (x + 2, tensor_equal(t, t) after filling a 64-element tensor).
std::vector<uint8_t> StressProgram() {
  BefWriter writer;
  auto& increment = writer.AddFunction(FunctionKind::kBefFunction, "increment", {"i32"},
                                       {"i32"});
  increment.Return(
      {testing::Add(increment, increment.argument(0), testing::Constant(increment, 1))});

  auto& f = writer.AddFunction(FunctionKind::kBefFunction, "work", {"i32"}, {"i32", "i1"});
  uint32_t c1 = testing::Constant(f, 1);
  uint32_t async_sum = f.AddKernel("tfrt_test.async_add.i32")
                           .AddArgument(f.argument(0))
                           .AddArgument(c1)
                           .AddResult("i32");
  uint32_t called = f.AddKernel("tfrt.call").AddArgument(async_sum).AddFunction(0).AddResult("i32");
  uint32_t chain = f.AddKernel("tfrt.new.chain").AddResult("!tfrt.chain");
  auto [tensor, filled] = testing::FilledF32Tensor(f, chain, 64, 1.5f);
  BefWriter::Kernel& equal = f.AddKernel("tfrt_dht.tensor_equal.f32");
  equal.AddArgument(tensor).AddArgument(tensor).AddArgument(filled);
  uint32_t same = equal.AddResult("i1");
  equal.AddResult("!tfrt.chain");
  f.Return({called, same});
  return writer.Finish().value();
}

TEST(StressTest, MillionExecutionsWithCancellationsAndDeadlines) {
  int64_t executions = kDefaultExecutions;
  if (const char* count = std::getenv("BEF_STRESS_EXECUTIONS")) {
    executions = std::atoll(count);
  }
  auto counting = std::make_unique<CountingAllocator>(
      CreateLeakCheckAllocator(CreateMallocAllocator()));
  CountingAllocator* allocator = counting.get();
  std::atomic<int64_t> completed{0}, cancelled{0}, expired{0}, wrong{0};
  {
    HostContext host([](const DecodedDiagnostic&) {}, std::move(counting),
                     CreateWorkQueue("mstd:2").value());
    RegisterStaticKernels(&host.kernel_registry());
    RegisterStaticNativeFunctions(&host.native_functions());
    std::vector<uint8_t> bytes = StressProgram();
    auto program = BefProgram::FromBuffer(&host, bytes).value();
    const Function* work = program->GetFunction("work");
    ASSERT_NE(work, nullptr);
    ResourceContext resources;

    constexpr int kThreads = 4;
    std::atomic<int64_t> next{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937 random(77 + t);
        std::uniform_int_distribution<int> mode(0, 9), micros(0, 40);
        for (int64_t i; (i = next.fetch_add(1)) < executions;) {
          int32_t x = static_cast<int32_t>(i % 100000);
          int m = mode(random);
          RCReference<RequestContext> request =
              RequestContext::Create(&host, &resources, i);
          if (m >= 8) request->SetDeadline(absl::Now() + absl::Microseconds(micros(random)));
          AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(x);
          AsyncValue* arguments[] = {argument.GetAsyncValue()};
          std::vector<RCReference<AsyncValue>> results(2);
          {
            ExecutionContext context(request);
            if (m == 6) request->Cancel();  // before the run starts
            work->Execute(context, arguments, results);
            if (m == 7) {  // while it runs
              for (int spin = micros(random) * 50; spin > 0; --spin) {
                asm volatile("" ::: "memory");
              }
              request->Cancel();
            }
          }
          host.Await(results);
          bool all_ok = true;
          absl::StatusCode error = absl::StatusCode::kOk;
          for (const auto& result : results) {
            if (result->IsError()) {
              all_ok = false;
              error = result->GetError().code();
            }
          }
          if (all_ok) {
            if (results[0]->get<int32_t>() != x + 2 || !results[1]->get<bool>()) {
              wrong.fetch_add(1);
            }
            completed.fetch_add(1);
          } else if (error == absl::StatusCode::kCancelled && (m == 6 || m == 7)) {
            cancelled.fetch_add(1);
          } else if (error == absl::StatusCode::kDeadlineExceeded && m >= 8) {
            expired.fetch_add(1);
          } else {
            wrong.fetch_add(1);
          }
        }
      });
    }
    for (auto& thread : threads) thread.join();
    host.Quiesce();
    program.reset();
    EXPECT_EQ(allocator->live_bytes(), 0);
  }  // the leak-check allocator exits non-zero here on a leak
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(completed + cancelled + expired, executions);
  // Both kinds of interruption happened, and most runs completed.
  EXPECT_GT(cancelled.load(), 0);
  EXPECT_GT(expired.load(), 0);
  EXPECT_GT(completed.load(), executions / 2);
  std::printf("%lld executions: %lld completed, %lld cancelled, %lld past their deadline\n",
              static_cast<long long>(executions), static_cast<long long>(completed.load()),
              static_cast<long long>(cancelled.load()), static_cast<long long>(expired.load()));
}

}  // namespace
}  // namespace bef
