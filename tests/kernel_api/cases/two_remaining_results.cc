// EXPECT: BEF_KERNEL: two RemainingResults
#include "bef/host/kernel_utils.h"
namespace bef {
void Kernel(Argument<int32_t>, RemainingResults, RemainingResults) {}
void Register(KernelRegistry* registry) { registry->AddKernel("test.k", BEF_KERNEL(Kernel)); }
}  // namespace bef
