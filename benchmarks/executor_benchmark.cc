// One function execution through the embedding API, without the per-run
// clock reads of tfrt_test.benchmark (which cost ~45 ns each on this
// machine class: docs/performance.md):
//   BM_AddBody         TFRT's benchmark.mlir body (tfrt.constant.i32 +
//                      tfrt.add.i32): a straight-line function.
//   BM_FrameKernelBody the same with tfrt_test.sum, which has no direct entry
//                      point: the dataflow executor and one kernel frame.
//
//   bazel run --config=opt //benchmarks:executor_benchmark
#include <memory>
#include <string>
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
#include "bef/host/work_queue.h"

namespace bef {
namespace {

std::vector<uint8_t> BodyProgram(const std::string& add_kernel) {
  BefWriter writer;
  BefWriter::Function& f = writer.AddFunction(FunctionKind::kBefFunction, "body", {}, {"i32"});
  uint32_t one = testing::Constant(f, 1);
  f.Return({f.AddKernel(add_kernel).AddArgument(one).AddArgument(one).AddResult("i32")});
  return writer.Finish().value();
}

void RunBody(benchmark::State& state, const std::string& add_kernel) {
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   CreateWorkQueue("s").value());
  RegisterStaticKernels(&host.kernel_registry());
  std::vector<uint8_t> bytes = BodyProgram(add_kernel);
  auto program = BefProgram::FromBuffer(&host, bytes).value();
  const Function* function = program->GetFunction("body");
  ResourceContext resources;
  ExecutionContext context(RequestContext::Create(&host, &resources));
  std::vector<RCReference<AsyncValue>> results(1);
  for (auto _ : state) {
    function->Execute(context, {}, results);
    if (!results[0]->IsAvailable()) host.Await(results);  // (not for these bodies)
    if (results[0]->get<int32_t>() != 2) state.SkipWithError("wrong sum");
    results[0].reset();
  }
}

void BM_AddBody(benchmark::State& state) { RunBody(state, "tfrt.add.i32"); }
BENCHMARK(BM_AddBody);

void BM_FrameKernelBody(benchmark::State& state) { RunBody(state, "tfrt_test.sum"); }
BENCHMARK(BM_FrameKernelBody);

}  // namespace
}  // namespace bef

BENCHMARK_MAIN();
