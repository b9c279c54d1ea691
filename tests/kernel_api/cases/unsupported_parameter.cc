// EXPECT: BEF_KERNEL: unsupported kernel parameter type
// EXPECT: KernelParameter<int>
#include "bef/host/kernel_utils.h"
namespace bef {
int Kernel(int x) { return x; }
void Register(KernelRegistry* registry) { registry->AddKernel("test.k", BEF_KERNEL(Kernel)); }
}  // namespace bef
