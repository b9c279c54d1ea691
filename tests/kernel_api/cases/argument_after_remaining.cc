// EXPECT: BEF_KERNEL: an Argument<T> after RemainingArguments
#include "bef/host/kernel_utils.h"
namespace bef {
void Kernel(RemainingArguments, Argument<int32_t>) {}
void Register(KernelRegistry* registry) { registry->AddKernel("test.k", BEF_KERNEL(Kernel)); }
}  // namespace bef
