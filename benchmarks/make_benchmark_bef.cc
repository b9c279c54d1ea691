// make_benchmark_bef: writes the executor benchmark programs as BEF files,
// each a function `main` running the measured body in tfrt_test.benchmark.
//
//   make_benchmark_bef KIND SIZE OUT.bef [MAX_COUNT] [DURATION_SECS]
//
// KIND (SIZE = N):
//   chain    v_i = v_{i-1} + c1, N dependent tfrt.add.i32
//   wide     N independent c1 + c1, then a binary reduction tree (2N-1 adds)
//   repeat   tfrt.repeat.i32 N times a body of constant.i32 1 + add.i32
//   fanout   one value used by N adds
//   star     N constants merged by one tfrt.merge.chains
//   add      TFRT's benchmark.mlir: one constant + one add (N ignored)
//   empty    a function with no kernels and no benchmark (process start-up)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "bef/format/bef_writer.h"
#include "lib/testing/program_builder.h"

namespace bef {
namespace {

using testing::Add;
using testing::Constant;

// The measured body as an anonymous function returning one i32.
uint32_t Body(BefWriter& writer, const std::string& kind, int n) {
  if (kind == "repeat") {
    BefWriter::Function& loop = writer.AddFunction(FunctionKind::kBefFunction, "", {"i32"}, {"i32"});
    uint32_t one = Constant(loop, 1);
    loop.Return({Add(loop, loop.argument(0), one)});
    BefWriter::Function& body = writer.AddFunction(FunctionKind::kBefFunction, "", {}, {"i32"});
    uint32_t count = Constant(body, n);
    uint32_t zero = Constant(body, 0);
    body.Return({body.AddKernel("tfrt.repeat.i32")
                     .AddArgument(count)
                     .AddArgument(zero)
                     .AddFunction(loop.index())
                     .AddResult("i32")});
    return body.index();
  }
  BefWriter::Function& body = writer.AddFunction(FunctionKind::kBefFunction, "", {}, {"i32"});
  uint32_t c1 = Constant(body, 1);
  uint32_t result = c1;
  if (kind == "chain") {
    for (int i = 0; i < n; ++i) result = Add(body, result, c1);
  } else if (kind == "wide") {
    std::vector<uint32_t> level;
    for (int i = 0; i < n; ++i) level.push_back(Add(body, c1, c1));
    while (level.size() > 1) {
      std::vector<uint32_t> next;
      for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(Add(body, level[i], level[i + 1]));
      if (level.size() % 2) next.push_back(level.back());
      level = std::move(next);
    }
    result = level[0];
  } else if (kind == "fanout") {
    for (int i = 0; i < n; ++i) Add(body, c1, c1);
  } else if (kind == "star") {
    std::vector<uint32_t> values;
    for (int i = 0; i < n; ++i) values.push_back(Constant(body, i));
    BefWriter::Kernel& merged = body.AddKernel("tfrt.merge.chains");
    for (uint32_t value : values) merged.AddArgument(value);
    merged.AddResult("!tfrt.chain");
  } else if (kind == "add") {
    result = Add(body, c1, c1);
  } else {
    std::fprintf(stderr, "unknown kind %s\n", kind.c_str());
    std::exit(2);
  }
  body.Return({result});
  return body.index();
}

}  // namespace
}  // namespace bef

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s KIND SIZE OUT.bef [MAX_COUNT] [DURATION_SECS]\n", argv[0]);
    return 2;
  }
  std::string kind = argv[1];
  int n = std::atoi(argv[2]);
  int max_count = argc > 4 ? std::atoi(argv[4]) : 20;
  int duration = argc > 5 ? std::atoi(argv[5]) : 10;
  bef::BefWriter writer;
  if (kind == "empty") {
    bef::BefWriter::Function& main = writer.AddFunction(bef::FunctionKind::kBefFunction, "main", {}, {});
    main.Return({});
  } else {
    uint32_t body = bef::Body(writer, kind, n);
    bef::BefWriter::Function& main =
        writer.AddFunction(bef::FunctionKind::kBefFunction, "main", {}, {"!tfrt.chain"});
    main.Return({main.AddKernel("tfrt_test.benchmark")
                     .AddAttribute(bef::BefAttribute::I32(duration), "duration_secs")
                     .AddAttribute(bef::BefAttribute::I32(max_count), "max_count")
                     .AddAttribute(bef::BefAttribute::String(kind), "name")
                     .AddAttribute(bef::BefAttribute::I32(1), "num_warmup_runs")
                     .AddFunction(body)
                     .AddResult("!tfrt.chain")});
  }
  absl::StatusOr<std::vector<uint8_t>> bytes = writer.Finish();
  if (!bytes.ok()) {
    std::fprintf(stderr, "%s\n", std::string(bytes.status().message()).c_str());
    return 1;
  }
  std::ofstream(argv[3], std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  return 0;
}
