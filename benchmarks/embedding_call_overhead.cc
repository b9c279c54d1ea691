// What one call costs through the C++ embedding API (docs/embedding.md), the
// baseline of the Python package's call overhead (docs/performance.md,
// "Python"). Each call does what an embedder does per request: a
// RequestContext, Execute, Await, read the result.
//
//   embedding_call_overhead CALL_OVERHEAD_BEF [CALLS] [WORK_QUEUE]
//
// Prints one line per case, "NAME NANOSECONDS_PER_CALL", after a warm-up:
//   empty       the empty function
//   add         i32 + i32 -> i32
//   tensor_1mb  a 1 MiB f32 tensor in and the same tensor out, the caller's
//               buffer viewed without a copy (as the Python package does)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bef/async/async_value_ref.h"
#include "bef/executor/bef_program.h"
#include "bef/host/execution_context.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/native_function.h"
#include "bef/host/work_queue.h"
#include "bef/tensor/dense_host_tensor.h"

namespace {

using bef::AsyncValue;
using bef::RCReference;

struct Harness {
  bef::HostContext* host;
  bef::ResourceContext resources;

  // One call of `function` on `arguments`; aborts on an error result.
  void Call(const bef::Function* function, std::span<AsyncValue* const> arguments,
            std::vector<RCReference<AsyncValue>>& results) {
    for (auto& result : results) result.reset();
    {
      bef::ExecutionContext context(bef::RequestContext::Create(host, &resources));
      function->Execute(context, arguments, results);
    }
    host->Await(results);
    for (auto& result : results) {
      if (result->IsError()) {
        std::fprintf(stderr, "%s failed\n", std::string(function->name()).c_str());
        std::exit(1);
      }
    }
  }
};

template <typename F>
double NanosPerCall(int calls, F&& call) {
  for (int i = 0; i < calls / 10 + 1; ++i) call();  // warm-up
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  auto elapsed = std::chrono::steady_clock::now() - start;
  return std::chrono::duration<double, std::nano>(elapsed).count() / calls;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CALL_OVERHEAD_BEF [CALLS] [WORK_QUEUE]\n", argv[0]);
    return 2;
  }
  int calls = argc > 2 ? std::atoi(argv[2]) : 20000;
  std::string work_queue = argc > 3 ? argv[3] : "mstd:2";
  bef::HostContext host([](const bef::DecodedDiagnostic&) {}, bef::CreateMallocAllocator(),
                        bef::CreateWorkQueue(work_queue).value());
  bef::RegisterStaticKernels(&host.kernel_registry());
  bef::RegisterStaticNativeFunctions(&host.native_functions());
  auto program = bef::BefProgram::Open(&host, argv[1]);
  if (!program.ok()) {
    std::fprintf(stderr, "%s\n", std::string(program.status().message()).c_str());
    return 1;
  }
  Harness harness{&host};

  const bef::Function* empty = (*program)->GetFunction("empty");
  std::vector<RCReference<AsyncValue>> no_results;
  std::printf("empty %.1f\n", NanosPerCall(calls, [&] { harness.Call(empty, {}, no_results); }));

  const bef::Function* add = (*program)->GetFunction("add");
  std::vector<RCReference<AsyncValue>> one_result(1);
  std::printf("add %.1f\n", NanosPerCall(calls, [&] {
                auto a = bef::MakeAvailableAsyncValueRef<int32_t>(1);
                auto b = bef::MakeAvailableAsyncValueRef<int32_t>(2);
                AsyncValue* arguments[] = {a.GetAsyncValue(), b.GetAsyncValue()};
                harness.Call(add, arguments, one_result);
                if (one_result[0]->get<int32_t>() != 3) std::exit(1);
              }));

  const bef::Function* echo = (*program)->GetFunction("echo_tensor");
  constexpr size_t kElements = (1 << 20) / sizeof(float);
  auto caller_buffer = std::make_shared<std::vector<float>>(kElements, 1.0f);
  std::printf("tensor_1mb %.1f\n", NanosPerCall(calls, [&] {
                auto tensor = bef::MakeAvailableAsyncValueRef<bef::DenseHostTensor>(
                    bef::DType::kF32, bef::TensorShape({int64_t{kElements}}),
                    bef::HostBuffer::View(caller_buffer->data(), kElements * sizeof(float),
                                          caller_buffer));
                AsyncValue* arguments[] = {tensor.GetAsyncValue()};
                harness.Call(echo, arguments, one_result);
                if (one_result[0]->get<bef::DenseHostTensor>().data() != caller_buffer->data()) {
                  std::exit(1);
                }
              }));
  return 0;
}
