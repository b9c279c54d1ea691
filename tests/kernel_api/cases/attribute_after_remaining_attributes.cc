// EXPECT: BEF_KERNEL: an attribute after RemainingAttributes
#include "bef/host/kernel_utils.h"
namespace bef {
void Kernel(RemainingAttributes, Attribute<int32_t>) {}
void Register(KernelRegistry* registry) { registry->AddKernel("test.k", BEF_KERNEL(Kernel)); }
}  // namespace bef
