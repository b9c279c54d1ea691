// Loader costs: opening a file is proportional to its function index, not
// to its size; inflating a function is proportional to that function.
//
//   bazel run --config=opt //benchmarks:loader_benchmark
//
// BM_Open/<functions>/<kernels per function>: files with the same number of
// functions and 1 or 40 kernels each (about 4 MB and 100 MB at 100,000
// functions) open in about the same time.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "benchmark/benchmark.h"
#include "bef/format/bef_writer.h"
#include "bef/loader/bef_file.h"

namespace bef {
namespace {

// A file of `functions` functions, each a chain of `kernels` adds.
const std::string& BenchmarkFile(int functions, int kernels) {
  static auto* files = new std::map<std::pair<int, int>, std::string>();
  auto key = std::make_pair(functions, kernels);
  auto it = files->find(key);
  if (it != files->end()) return it->second;
  BefWriter writer;
  for (int f = 0; f < functions; ++f) {
    BefWriter::Function& function = writer.AddFunction(
        FunctionKind::kBefFunction, "f" + std::to_string(f), {"i32"}, {"i32"});
    uint32_t value = function.argument(0);
    for (int k = 0; k < kernels; ++k) {
      value = function.AddKernel("tfrt.add.i32",
                                 BefLocation::FileLineColumn("b.mlir", k + 2, 3))
                  .AddArgument(value)
                  .AddArgument(function.argument(0))
                  .AddResult("i32");
    }
    function.Return({value});
  }
  std::vector<uint8_t> bytes = writer.Finish().value();
  std::string path = "/tmp/bef_loader_benchmark_" + std::to_string(functions) +
                     "_" + std::to_string(kernels) + ".bef";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return files->emplace(key, path).first->second;
}

void BM_Open(benchmark::State& state) {
  const std::string& path = BenchmarkFile(state.range(0), state.range(1));
  size_t size = 0;
  for (auto _ : state) {
    auto file = BefFile::Open(path).value();
    size = file->image().size();
    benchmark::DoNotOptimize(file->FindFunction("f0"));
  }
  state.counters["file_MB"] = size / 1e6;
}
BENCHMARK(BM_Open)
    ->Args({1000, 1})
    ->Args({1000, 40})
    ->Args({100000, 1})
    ->Args({100000, 40})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Each iteration inflates a function not inflated before (the file is
// reopened, untimed, when all were).
void BM_InflateFunction(benchmark::State& state) {
  const std::string& path = BenchmarkFile(1000, state.range(0));
  auto file = BefFile::Open(path).value();
  uint32_t next = 0;
  for (auto _ : state) {
    if (next == file->num_functions()) {
      state.PauseTiming();
      file = BefFile::Open(path).value();
      next = 0;
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(file->GetFunctionInfo(next++).value());
  }
  state.counters["kernels"] = state.range(0);
}
BENCHMARK(BM_InflateFunction)->Arg(1)->Arg(40)->Arg(1000);

}  // namespace
}  // namespace bef

BENCHMARK_MAIN();
