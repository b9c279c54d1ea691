// EXPECT: BEF_KERNEL: a Result<T> after RemainingResults
#include "bef/host/kernel_utils.h"
namespace bef {
void Kernel(RemainingResults, Result<int32_t>) {}
void Register(KernelRegistry* registry) { registry->AddKernel("test.k", BEF_KERNEL(Kernel)); }
}  // namespace bef
