// Small programs for tests and benchmarks, built with BefWriter: the
// constants and adds most of them are made of. (Users write MLIR text and
// convert it with mlir-to-bef; program benchmarks that back a claim do too,
// benchmarks/programs. These are for tests and microbenchmarks.)
#ifndef BEF_LIB_TESTING_PROGRAM_BUILDER_H_
#define BEF_LIB_TESTING_PROGRAM_BUILDER_H_

#include <cstdint>

#include "bef/format/bef_writer.h"

namespace bef::testing {

// tfrt.constant.i32 `value`; its result register.
inline uint32_t Constant(BefWriter::Function& f, int32_t value) {
  return f.AddKernel("tfrt.constant.i32")
      .AddAttribute(BefAttribute::I32(value), "value")
      .AddResult("i32");
}

// tfrt.add.i32 of registers `a` and `b`; its result register.
inline uint32_t Add(BefWriter::Function& f, uint32_t a, uint32_t b) {
  return f.AddKernel("tfrt.add.i32").AddArgument(a).AddArgument(b).AddResult("i32");
}

// `count` dependent adds, each adding `step` to the previous sum, the first
// to `start`; the last sum's register (`start` when count is 0).
inline uint32_t AddChain(BefWriter::Function& f, uint32_t start, uint32_t step, int count) {
  uint32_t value = start;
  for (int i = 0; i < count; ++i) value = Add(f, value, step);
  return value;
}

// A rank-1 f32 tensor of `elements` elements filled with `value` once
// `chain` is ready: the tensor's register and the fill's chain.
struct FilledTensor {
  uint32_t tensor;
  uint32_t chain;
};
inline FilledTensor FilledF32Tensor(BefWriter::Function& f, uint32_t chain, int64_t elements,
                                    float value) {
  uint32_t tensor = f.AddKernel("tfrt_dht.create_uninitialized_tensor.f32.1")
                        .AddAttribute(BefAttribute::I64Array({elements}), "shape")
                        .AddResult("!tfrt_tensor.tensor");
  uint32_t filled = f.AddKernel("tfrt_dht.fill_tensor_with_constant.f32")
                        .AddArgument(tensor)
                        .AddArgument(chain)
                        .AddAttribute(BefAttribute::F32(value), "value")
                        .AddResult("!tfrt.chain");
  return {tensor, filled};
}

}  // namespace bef::testing

#endif  // BEF_LIB_TESTING_PROGRAM_BUILDER_H_
