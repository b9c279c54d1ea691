// Microbenchmarks of the values and queues every kernel pays for:
//   bazel run --config=opt //benchmarks:async_benchmark
#include <atomic>
#include <memory>

#include "benchmark/benchmark.h"
#include "bef/async/async_value.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/work_queue.h"

namespace bef {
namespace {

void BM_MakeAvailableValue(benchmark::State& state) {
  for (auto _ : state) {
    AsyncValueRef<int32_t> value = MakeAvailableAsyncValueRef<int32_t>(1);
    benchmark::DoNotOptimize(value.GetAsyncValue());
  }
}
BENCHMARK(BM_MakeAvailableValue);

void BM_SetUnavailableValueWithOneWaiter(benchmark::State& state) {
  int64_t sum = 0;
  for (auto _ : state) {
    AsyncValueRef<int32_t> value = MakeUnconstructedAsyncValueRef<int32_t>();
    value.AndThen([&sum] { ++sum; });
    value.emplace(1);
  }
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_SetUnavailableValueWithOneWaiter);

void BM_AndThenOnAvailableValue(benchmark::State& state) {
  AsyncValueRef<int32_t> value = MakeAvailableAsyncValueRef<int32_t>(1);
  int64_t sum = 0;
  for (auto _ : state) {
    value.AndThen([&sum] { ++sum; });
  }
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_AndThenOnAvailableValue);

void BM_AddRefDropRef(benchmark::State& state) {
  AsyncValueRef<int32_t> value = MakeAvailableAsyncValueRef<int32_t>(1);
  for (auto _ : state) {
    value->AddRef();
    value->DropRef();
  }
}
BENCHMARK(BM_AddRefDropRef);

// One task enqueued and awaited through its result value, per iteration.
void QueueRoundTrip(benchmark::State& state, ConcurrentWorkQueue& queue) {
  for (auto _ : state) {
    AsyncValueRef<int32_t> value = MakeUnconstructedAsyncValueRef<int32_t>();
    queue.AddTask([value = value.CopyRef()] { value.emplace(1); });
    AsyncValue* values[] = {value.GetAsyncValue()};
    queue.Await(values);
  }
  queue.Quiesce();
}

void BM_TaskRoundTripSingleThreaded(benchmark::State& state) {
  auto queue = CreateSingleThreadedWorkQueue();
  QueueRoundTrip(state, *queue);
}
BENCHMARK(BM_TaskRoundTripSingleThreaded);

void BM_TaskRoundTripMultiThreaded(benchmark::State& state) {
  auto queue = CreateMultiThreadedWorkQueue(2, 2).value();
  QueueRoundTrip(state, *queue);
}
BENCHMARK(BM_TaskRoundTripMultiThreaded)->UseRealTime();

// Throughput: many tasks, then quiesce.
void BM_TaskThroughputMultiThreaded(benchmark::State& state) {
  auto queue = CreateMultiThreadedWorkQueue(2, 2).value();
  std::atomic<int64_t> count{0};
  for (auto _ : state) {
    for (int i = 0; i < 1000; ++i) {
      queue->AddTask([&count] { count.fetch_add(1, std::memory_order_relaxed); });
    }
    queue->Quiesce();
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_TaskThroughputMultiThreaded)->UseRealTime();

void BM_CreateMultiThreadedQueue(benchmark::State& state) {
  for (auto _ : state) {
    auto queue = CreateMultiThreadedWorkQueue(2, 256).value();
    benchmark::DoNotOptimize(queue.get());
  }
}
BENCHMARK(BM_CreateMultiThreadedQueue)->UseRealTime();

}  // namespace
}  // namespace bef

BENCHMARK_MAIN();
