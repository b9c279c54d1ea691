// Payload types of the host kernels and their BEF type names (for kernel
// signatures): f16/bf16 raw storage, complex numbers, strings, devices.
#ifndef BEF_KERNELS_KERNEL_TYPES_H_
#define BEF_KERNELS_KERNEL_TYPES_H_

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bef/host/kernel_utils.h"

namespace bef {

// IEEE half and bfloat16 values, kept as raw 16-bit patterns.
struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

// A device known to the host (the host device is "CPU:0").
struct Device {
  std::string name;
};

BEF_DEFINE_TYPE_NAME(Half, "f16");
BEF_DEFINE_TYPE_NAME(BFloat16, "bf16");
BEF_DEFINE_TYPE_NAME(std::complex<float>, "complex<f32>");
BEF_DEFINE_TYPE_NAME(std::complex<double>, "complex<f64>");
BEF_DEFINE_TYPE_NAME(std::string, "!tfrt.string");
BEF_DEFINE_TYPE_NAME(Device, "!tfrt.device");
BEF_DEFINE_DTYPE(Half, kF16);
BEF_DEFINE_DTYPE(BFloat16, kBF16);
BEF_DEFINE_DTYPE(std::complex<float>, kComplex64);
BEF_DEFINE_DTYPE(std::complex<double>, kComplex128);

// Two's-complement wrap-around arithmetic (what TFRT's kernels do in
// practice, without signed-overflow undefined behaviour).
template <typename T>
T WrappingAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}

// Writes `text` to stdout and flushes: every printing kernel and the
// driver use this one channel, so output appears in program order.
void PrintToStdout(std::string_view text);

}  // namespace bef

#endif  // BEF_KERNELS_KERNEL_TYPES_H_
