// What tracing costs (bef/host/tracing.h): a chain of 1,000 dependent
// tfrt.add.i32 through the embedding API, without a TraceRecorder
// (/0: the runtime's only extra work is one relaxed flag load per kernel)
// and with one (/1: a span per kernel and per function execution).
//
//   bazel run --config=opt //benchmarks:tracing_benchmark
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "bef/async/async_value_ref.h"
#include "bef/executor/bef_program.h"
#include "bef/format/bef_writer.h"
#include "lib/testing/program_builder.h"
#include "bef/host/execution_context.h"
#include "bef/host/host_allocator.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/tracing.h"
#include "bef/host/work_queue.h"

namespace bef {
namespace {

constexpr int kAdds = 1000;

std::vector<uint8_t> ChainProgram() {
  BefWriter writer;
  BefWriter::Function& f =
      writer.AddFunction(FunctionKind::kBefFunction, "chain", {}, {"i32"});
  uint32_t one = testing::Constant(f, 1);
  f.Return({testing::AddChain(f, one, one, kAdds)});
  return writer.Finish().value();
}

void BM_ChainTracing(benchmark::State& state) {
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   CreateWorkQueue("s").value());
  RegisterStaticKernels(&host.kernel_registry());
  std::vector<uint8_t> bytes = ChainProgram();
  auto program = BefProgram::FromBuffer(&host, bytes).value();
  const Function* function = program->GetFunction("chain");
  std::unique_ptr<TraceRecorder> recorder;
  if (state.range(0) == 1) recorder = TraceRecorder::Start().value();
  for (auto _ : state) {
    ResourceContext resources;
    ExecutionContext context(RequestContext::Create(&host, &resources));
    std::vector<RCReference<AsyncValue>> results(1);
    function->Execute(context, {}, results);
    host.Await(results);
    if (recorder != nullptr && recorder->num_spans() > 4'000'000) {
      state.PauseTiming();  // keep the buffers bounded
      recorder.reset();
      recorder = TraceRecorder::Start().value();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations() * kAdds);
}
BENCHMARK(BM_ChainTracing)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace bef

BENCHMARK_MAIN();
