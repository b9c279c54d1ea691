// Embedding the runtime in a program: load a BEF file, look up a function,
// run it from several threads with C++ arguments, read the results, and
// cancel a request with a deadline. docs/embedding.md walks through it.
//
//   embedding_example            (writes its own BEF program to /tmp)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include "bef/async/async_value_ref.h"
#include "bef/executor/bef_program.h"
#include "bef/format/bef_writer.h"
#include "bef/format/format_error.h"
#include "bef/host/host_context.h"

namespace {

// The program: add_one(x) = x + 1, written with BefWriter (a real
// application would load a file produced by mlir-to-bef).
std::string WriteProgram() {
  bef::BefWriter writer;
  bef::BefWriter::Function& f = writer.AddFunction(
      bef::FunctionKind::kBefFunction, "add_one", {"i32"}, {"i32"});
  uint32_t one = f.AddKernel("tfrt.constant.i32")
                     .AddAttribute(bef::BefAttribute::I32(1), "value")
                     .AddResult("i32");
  f.Return({f.AddKernel("tfrt.add.i32").AddArgument(0).AddArgument(one).AddResult("i32")});
  std::vector<uint8_t> bytes = writer.Finish().value();
  const char* directory = std::getenv("TEST_TMPDIR");
  std::string path = std::string(directory ? directory : "/tmp") + "/embedding_example.bef";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return path;
}

}  // namespace

int main() {
  // 1. One HostContext per process (or per isolated tenant): diagnostics
  //    handler, allocator, work queue; then the kernels.
  bef::HostContext host(
      [](const bef::DecodedDiagnostic& diagnostic) {
        std::fprintf(stderr, "runtime error: %s\n", diagnostic.message().c_str());
      },
      bef::CreateMallocAllocator(), bef::CreateWorkQueue("mstd:2").value());
  bef::RegisterStaticKernels(&host.kernel_registry());
  bef::RegisterStaticNativeFunctions(&host.native_functions());

  // 2. Load and verify the program; look the function up once.
  absl::StatusOr<std::unique_ptr<bef::BefProgram>> program =
      bef::BefProgram::Open(&host, WriteProgram());
  if (!program.ok()) {
    std::fprintf(stderr, "%s\n", bef::DescribeFormatError(program.status()).c_str());
    return 1;
  }
  const bef::Function* add_one = (*program)->GetFunction("add_one");

  // 3. Execute concurrently from several threads, each call with its own
  //    request; arguments are AsyncValues, results arrive as AsyncValues.
  std::vector<std::thread> threads;
  std::vector<int32_t> answers(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      bef::ExecutionContext context(bef::RequestContext::Create(&host, nullptr));
      bef::AsyncValueRef<int32_t> x = bef::MakeAvailableAsyncValueRef<int32_t>(41 + t);
      bef::AsyncValue* arguments[] = {x.GetAsyncValue()};
      std::vector<bef::RCReference<bef::AsyncValue>> results(add_one->num_results());
      add_one->Execute(context, arguments, results);
      host.Await(results);
      answers[t] = results[0]->IsError() ? -1 : results[0]->get<int32_t>();
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) std::printf("add_one(%d) = %d\n", 41 + t, answers[t]);

  // 4. A request cancelled by its deadline: kernels not yet started are
  //    skipped and results become a CANCELLED/DEADLINE_EXCEEDED error.
  bef::RCReference<bef::RequestContext> request = bef::RequestContext::Create(&host, nullptr);
  request->SetDeadline(absl::Now() - absl::Seconds(1));  // already expired
  bef::ExecutionContext context(request);
  bef::AsyncValueRef<int32_t> x = bef::MakeAvailableAsyncValueRef<int32_t>(1);
  bef::AsyncValue* arguments[] = {x.GetAsyncValue()};
  std::vector<bef::RCReference<bef::AsyncValue>> results(1);
  add_one->Execute(context, arguments, results);
  host.Await(results);
  std::printf("after the deadline: %s\n",
              results[0]->IsError() ? results[0]->GetError().ToString().c_str() : "a value");
  host.Quiesce();
  return 0;
}
