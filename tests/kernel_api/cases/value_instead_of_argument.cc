// EXPECT: BEF_KERNEL: unsupported kernel parameter type
// EXPECT: KernelParameter<bef::DenseHostTensor>
#include "bef/host/kernel_utils.h"
#include "bef/tensor/dense_host_tensor.h"
namespace bef {
bool Kernel(DenseHostTensor tensor) { return tensor.DataSize() == 0; }
void Register(KernelRegistry* registry) { registry->AddKernel("test.k", BEF_KERNEL(Kernel)); }
}  // namespace bef
