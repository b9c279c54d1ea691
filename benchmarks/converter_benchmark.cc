// Converter benchmarks: a function of N dependent tfrt.add.i32 ops (plus two
// constants) as MLIR text, parsed and verified by MLIR, then converted to BEF
// by ConvertMlirToBef. The target is the whole conversion of a
// 100,000-op function (TFRT's translator: 0.76 s on this machine class).
//
//   bazel run --config=opt //benchmarks:converter_benchmark
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "lib/converter/dialects.h"
#include "lib/converter/mlir_to_bef.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

namespace {

std::string ChainProgram(int ops) {
  std::string text = "func.func @chain() -> i32 {\n";
  text += "  %c1 = tfrt.constant.i32 1\n  %v0 = tfrt.constant.i32 0\n";
  for (int i = 1; i + 1 < ops; ++i) {
    text += "  %v" + std::to_string(i) + " = tfrt.add.i32 %v" +
            std::to_string(i - 1) + ", %c1\n";
  }
  text += "  tfrt.return %v" + std::to_string(ops - 2) + " : i32\n}\n";
  return text;
}

mlir::DialectRegistry& Registry() {
  static mlir::DialectRegistry* registry = [] {
    auto* r = new mlir::DialectRegistry();
    bef::converter::RegisterHostDialects(*r);
    return r;
  }();
  return *registry;
}

// MLIR's parser and verifier alone: the floor under any MLIR-based
// converter.
void BM_ParseOnly(benchmark::State& state) {
  std::string text = ChainProgram(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    mlir::MLIRContext context(Registry());
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    benchmark::DoNotOptimize(module.get());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ParseOnly)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

// Parse + verify + convert: what `mlir-to-bef` does for one input.
void BM_ParseAndConvert(benchmark::State& state) {
  std::string text = ChainProgram(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    mlir::MLIRContext context(Registry());
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    auto bytes = bef::converter::ConvertMlirToBef(*module);
    if (mlir::failed(bytes)) state.SkipWithError("conversion failed");
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ParseAndConvert)
    ->Arg(1000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

// The conversion alone, on an already parsed module.
void BM_ConvertOnly(benchmark::State& state) {
  std::string text = ChainProgram(static_cast<int>(state.range(0)));
  mlir::MLIRContext context(Registry());
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  for (auto _ : state) {
    auto bytes = bef::converter::ConvertMlirToBef(*module);
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ConvertOnly)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
