// Fuzz target: full execution. Loads the input with every kernel of the
// runtime (tfrt, tfrt_test, tensor kernels) and runs each function without
// arguments, as bef_executor would, with limits so that legal programs that
// never end, allocate without bound or print forever still end quickly:
//   * a kernel budget of 20,000 kernels per function run
//     (RequestContext::SetKernelBudget) and a 200 ms deadline;
//   * an allocator that refuses blocks over 1 MiB and more than 64 MiB in
//     all (allocation failures are kernel errors);
//   * stdout goes to /dev/null (print kernels);
//   * kernels that sleep, run for a set time, touch the file system or leak
//     on purpose (kReplacedKernels, the BTF readers) are replaced by a
//     kernel that fails, so a run depends on nothing but the input.
// A crash, a sanitizer report, a leak or a hang (libFuzzer's -timeout) is a
// finding. Single-threaded queue: runs are deterministic.
//
// libFuzzer build and run: scripts/fuzz.sh bef_exec (clang-14); built by
// Bazel with replay_main.cc and run over the golden corpus as a test.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bef/executor/bef_program.h"
#include "bef/host/execution_context.h"
#include "bef/host/host_allocator.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/kernel_utils.h"
#include "bef/host/native_function.h"
#include "bef/host/work_queue.h"

namespace {

using namespace bef;  // NOLINT

constexpr int64_t kKernelBudget = 20000;
constexpr size_t kMaxBlock = 1 << 20;
constexpr size_t kMaxTotal = 64 << 20;

// Refuses large blocks and caps the total; frees are counted back.
class BudgetAllocator : public HostAllocator {
 public:
  void* AllocateBytes(size_t size, size_t alignment) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (size > kMaxBlock || total_ + size > kMaxTotal) return nullptr;
    void* block = inner_->AllocateBytes(size, alignment);
    if (block != nullptr) total_ += size;
    return block;
  }
  void DeallocateBytes(void* pointer, size_t size) override {
    std::lock_guard<std::mutex> lock(mutex_);
    total_ -= size;
    inner_->DeallocateBytes(pointer, size);
  }

 private:
  std::unique_ptr<HostAllocator> inner_ = CreateMallocAllocator();
  std::mutex mutex_;
  size_t total_ = 0;
};

absl::StatusOr<Chain> NotInTheFuzzer() {
  return absl::UnimplementedError("kernel not available in the fuzzer");
}

// Kernels that sleep, run for a set time, read files or leak on purpose.
constexpr const char* kReplacedKernels[] = {
    "tfrt_test.benchmark",
    "tfrt_test.read_string_from_file",
    "tfrt_test.usleep",
    "tfrt_test.blocking.usleep",
    "tfrt_test.copy.with_delay.i32",
    "tfrt_test.copy.with_delay.i64",
    "tfrt_test.async_copy.with_delay.i32",
    "tfrt_test.async_copy.with_delay.i64",
    "tfrt_test.memory_leak_one_int32",
};

HostContext& Host() {
  static HostContext* host = [] {
    std::freopen("/dev/null", "w", stdout);
    auto* h = new HostContext([](const DecodedDiagnostic&) {},
                              std::make_unique<BudgetAllocator>(),
                              CreateWorkQueue("s").value());
    RegisterStaticKernels(&h->kernel_registry());
    RegisterStaticNativeFunctions(&h->native_functions());
    // Later registrations of a name replace earlier ones.
    for (const char* name : kReplacedKernels) {
      h->kernel_registry().AddKernel(name, BEF_KERNEL(NotInTheFuzzer));
    }
    for (const char* family : {"btf.read_dense_tensor.", "btf.read_coo_tensor."}) {
      for (const char* dtype : {"f32", "i32", "i64", "i8", "ui8"}) {
        for (int rank = 0; rank <= 4; ++rank) {
          h->kernel_registry().AddKernel(
              std::string(family) + dtype + "." + std::to_string(rank),
              BEF_KERNEL(NotInTheFuzzer));
        }
      }
    }
    return h;
  }();
  return *host;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  HostContext& host = Host();
  absl::StatusOr<std::unique_ptr<BefProgram>> program =
      BefProgram::FromBuffer(&host, std::span<const uint8_t>(data, size), "fuzz");
  if (!program.ok()) return 0;
  ResourceContext resources;
  for (uint32_t i = 0; i < (*program)->num_functions(); ++i) {
    const Function* function = (*program)->GetFunction(i);
    if (function == nullptr || function->num_arguments() != 0 ||
        function->kind() == FunctionKind::kSyncBefFunction) {
      continue;
    }
    RCReference<RequestContext> request = RequestContext::Create(&host, &resources);
    request->SetKernelBudget(kKernelBudget);
    request->SetDeadline(absl::Now() + absl::Milliseconds(200));
    ExecutionContext context(request);
    std::vector<RCReference<AsyncValue>> results(function->num_results());
    function->Execute(context, {}, results);
    host.Await(results);
    host.Quiesce();
  }
  return 0;
}
