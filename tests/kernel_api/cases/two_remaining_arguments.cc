// EXPECT: BEF_KERNEL: two RemainingArguments
#include "bef/host/kernel_utils.h"
namespace bef {
void Kernel(RemainingArguments, RemainingArguments) {}
void Register(KernelRegistry* registry) { registry->AddKernel("test.k", BEF_KERNEL(Kernel)); }
}  // namespace bef
