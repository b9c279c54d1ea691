// Host tensor benchmarks through the executor (embedding API):
//  * BM_ElementwiseF32/N: create an N-element f32 tensor, fill it, compare it
//    with itself (tensor_allclose: N element comparisons) -- elementwise work;
//  * BM_TensorFromDenseAttribute/BYTES: tfrt_test.const_dense_attr on a dense
//    attribute of BYTES bytes.
//
//   bazel run --config=opt //benchmarks:tensor_benchmark
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

std::unique_ptr<HostContext> MakeHost() {
  auto host = std::make_unique<HostContext>(
      [](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
      CreateWorkQueue("s").value());
  RegisterStaticKernels(&host->kernel_registry());
  return host;
}

// Runs function 0 of `program` once and waits for its results.
void RunOnce(HostContext* host, BefProgram* program) {
  const Function* function = program->GetFunction(0);
  ResourceContext resources;
  ExecutionContext context(RequestContext::Create(host, &resources));
  std::vector<RCReference<AsyncValue>> results(function->num_results());
  function->Execute(context, {}, results);
  host->Await(results);
}

std::vector<uint8_t> ElementwiseProgram(int64_t elements) {
  BefWriter writer;
  BefWriter::Function& f = writer.AddFunction(FunctionKind::kBefFunction,
                                              "elementwise", {}, {"i1"});
  uint32_t chain = f.AddKernel("tfrt.new.chain").AddResult("!tfrt.chain");
  auto [tensor, filled] = testing::FilledF32Tensor(f, chain, elements, 1.5f);
  BefWriter::Kernel& compare = f.AddKernel("tfrt_dht.tensor_allclose.f32");
  compare.AddArgument(tensor).AddArgument(tensor).AddArgument(filled);
  uint32_t close = compare.AddResult("i1");
  compare.AddResult("!tfrt.chain");
  f.Return({close});
  return writer.Finish().value();
}

std::vector<uint8_t> DenseAttributeProgram(int64_t bytes) {
  BefWriter writer;
  BefWriter::Function& f = writer.AddFunction(
      FunctionKind::kBefFunction, "dense", {}, {"!tfrt_tensor.tensor"});
  int64_t elements = bytes / 4;
  std::vector<uint8_t> data(static_cast<size_t>(elements) * 4, 0x3f);
  uint32_t tensor =
      f.AddKernel("tfrt_test.const_dense_attr")
          .AddAttribute(BefAttribute::Dense(DType::kF32, {elements}, data),
                        "value")
          .AddResult("!tfrt_tensor.tensor");
  f.Return({tensor});
  return writer.Finish().value();
}

void BM_ElementwiseF32(benchmark::State& state) {
  auto host = MakeHost();
  std::vector<uint8_t> bytes = ElementwiseProgram(state.range(0));
  auto program = BefProgram::FromBuffer(host.get(), bytes).value();
  for (auto _ : state) RunOnce(host.get(), program.get());
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ElementwiseF32)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

void BM_TensorFromDenseAttribute(benchmark::State& state) {
  auto host = MakeHost();
  std::vector<uint8_t> bytes = DenseAttributeProgram(state.range(0));
  auto program = BefProgram::FromBuffer(host.get(), bytes).value();
  for (auto _ : state) RunOnce(host.get(), program.get());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_TensorFromDenseAttribute)
    ->Arg(1 << 10)
    ->Arg(1 << 20)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace bef

BENCHMARK_MAIN();
