// Kernels a user of the kernel API would write, registered by the benchmark
// itself (scripts/benchmarks.sh's author_* rows): nothing in the executor
// knows their names, and neither has a second entry point. What they cost
// is what the executor's kernel contract gives every kernel of their
// signature (docs/writing-kernels.md).
#include <cstdint>

#include "absl/status/status.h"
#include "bef/host/async_dispatch.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/kernel_utils.h"
#include "bef/tensor/dense_host_tensor.h"

namespace bef {
namespace {

// bench.tensor_sum.i32: the sum of an i32 tensor's elements (wrapping), in
// order on a chain. A tensor read by reference, its Result<>s filled before
// it returns.
void TensorSum(Argument<DenseHostTensor> tensor, Argument<Chain>, Result<int32_t> sum,
               Result<Chain> chain, KernelErrorHandler handler) {
  absl::Status dtype = tensor->CheckDType(DType::kI32, "bench.tensor_sum.i32");
  if (!dtype.ok()) {
    handler.ReportError(std::move(dtype));
    return;
  }
  const int32_t* data = static_cast<const int32_t*>(tensor->data());
  uint32_t total = 0;
  for (size_t i = 0, n = tensor->DataSize() / sizeof(int32_t); i < n; ++i) {
    total += static_cast<uint32_t>(data[i]);
  }
  sum.Emplace(static_cast<int32_t>(total));
  chain.Emplace();
}

// bench.async_add.i32: the sum, computed on a work-queue task (TFRT's
// EnqueueWork).
AsyncValueRef<int32_t> AsyncAdd(Argument<int32_t> a, Argument<int32_t> b,
                                const ExecutionContext& context) {
  return EnqueueWork(context, [a = *a, b = *b] {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  });
}

void RegisterAuthorKernels(KernelRegistry* registry) {
  registry->AddKernel("bench.tensor_sum.i32", BEF_KERNEL(TensorSum));
  registry->AddKernel("bench.async_add.i32", BEF_KERNEL(AsyncAdd));
}

BEF_STATIC_KERNEL_REGISTRATION(RegisterAuthorKernels);

}  // namespace
}  // namespace bef
