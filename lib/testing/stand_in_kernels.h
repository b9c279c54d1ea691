// Typed stand-ins for the core `tfrt` kernels, for tests and fuzz targets that
// load BEF without linking the kernel libraries: registered under the real
// names with the real signatures, so the loader's register-type and
// attribute-layout verification sees what it sees with the real kernels.
#ifndef BEF_LIB_TESTING_STAND_IN_KERNELS_H_
#define BEF_LIB_TESTING_STAND_IN_KERNELS_H_

#include <cstdint>

#include "bef/host/kernel_registry.h"
#include "bef/host/kernel_utils.h"

namespace bef::testing {

namespace stand_in {
inline int32_t AddI32(Argument<int32_t> a, Argument<int32_t> b) { return *a + *b; }
inline int32_t ConstantI32(Attribute<int32_t> value) { return *value; }
inline Chain PrintI32(Argument<int32_t>, Argument<Chain>) { return Chain(); }
inline Chain NewChain() { return Chain(); }
}  // namespace stand_in

// tfrt.add.i32, tfrt.constant.i32, tfrt.print.i32 (prints nothing),
// tfrt.new.chain.
inline void AddStandInCoreKernels(KernelRegistry& registry) {
  registry.AddKernel("tfrt.add.i32", BEF_KERNEL(stand_in::AddI32));
  registry.AddKernel("tfrt.constant.i32", BEF_KERNEL(stand_in::ConstantI32));
  registry.AddKernel("tfrt.print.i32", BEF_KERNEL(stand_in::PrintI32));
  registry.AddKernel("tfrt.new.chain", BEF_KERNEL(stand_in::NewChain));
}

}  // namespace bef::testing

#endif  // BEF_LIB_TESTING_STAND_IN_KERNELS_H_
