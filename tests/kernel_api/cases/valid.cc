// EXPECT-COMPILES: every kind of parameter in an order the ABI takes.
#include "bef/host/kernel_utils.h"
namespace bef {
void Kernel(Argument<int32_t>, RemainingArguments, Result<int32_t>, RemainingResults,
            Attribute<int32_t>, RemainingAttributes, const Function*, RemainingFunctions,
            const ExecutionContext&, HostContext*, KernelErrorHandler) {}
int32_t Add(Argument<int32_t> a, Argument<int32_t> b) { return *a + *b; }
void Register(KernelRegistry* registry) {
  registry->AddKernel("test.kernel", BEF_KERNEL(Kernel));
  registry->AddKernel("test.add", BEF_KERNEL(Add));
}
}  // namespace bef
