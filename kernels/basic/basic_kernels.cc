// tfrt.* basic kernels: constants, integer and float arithmetic, comparisons,
// casts, boolean, printing, chains, value aliasing, devices
// (host-dialects.md §2.1-2.7, §2.9).
#include <cinttypes>
#include <limits>
#include <type_traits>
#include <complex>
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_utils.h"
#include "bef/kernels/kernel_types.h"

namespace bef {
namespace {

// ---- Constants.
template <typename T>
T Constant(Attribute<T> value) {
  return *value;
}
bool ConstantI1(Attribute<bool> value) { return *value; }
template <typename T>
std::complex<T> ConstantComplex(Attribute<T> imaginary, Attribute<T> real) {
  // Attributes arrive in name order: imaginary, then real.
  return std::complex<T>(*real, *imaginary);
}

// ---- Arithmetic.
template <typename T>
T Add(Argument<T> a, Argument<T> b) {
  // Integers wrap around, as TFRT's do in practice (without the UB).
  if constexpr (std::is_integral_v<T>) {
    return WrappingAdd(*a, *b);
  } else {
    return *a + *b;
  }
}
template <typename T>
T Minus(Argument<T> a, Argument<T> b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(*a) - static_cast<U>(*b));
}
template <typename T>
T Mul(Argument<T> a, Argument<T> b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(*a) * static_cast<U>(*b));
  } else {
    return *a * *b;
  }
}
template <typename T>
absl::StatusOr<std::pair<T, T>> DivInt(Argument<T> a, Argument<T> b) {
  if (*b == 0) return absl::InternalError("Divide by zero");
  if (*b == -1) {  // avoid the INT_MIN / -1 trap: wraps like the hardware would not
    using U = std::make_unsigned_t<T>;
    return std::make_pair(static_cast<T>(U{0} - static_cast<U>(*a)), T{0});
  }
  return std::make_pair(static_cast<T>(*a / *b), static_cast<T>(*a % *b));
}
template <typename T>
absl::StatusOr<T> DivFloat(Argument<T> a, Argument<T> b) {
  if (*b == 0) return absl::InternalError("Divide by zero");
  return *a / *b;
}
template <typename T>
T Minimum(Argument<T> a, Argument<T> b) {
  return std::min(*a, *b);
}
template <typename T>
bool Equal(Argument<T> a, Argument<T> b) {
  return *a == *b;
}
template <typename T>
bool LessEqual(Argument<T> a, Argument<T> b) {
  return *a <= *b;
}
bool And(Argument<bool> a, Argument<bool> b) { return *a && *b; }

// ---- Casts.
// Float to integer truncates toward zero. NaN and values outside the
// integer's range (undefined in C++) give the minimum integer, which is what
// TFRT's static_cast produces on x86-64 (cvttss2si's "integer indefinite").
template <typename From, typename To>
To Cast(Argument<From> value) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // 2^(bits-1): the integer's maximum plus one, exact in From.
    constexpr From kLimit = -static_cast<From>(std::numeric_limits<To>::min());
    if (!(*value >= -kLimit && *value < kLimit)) return std::numeric_limits<To>::min();
  }
  return static_cast<To>(*value);
}

// ---- Printing: one line, flushed.
Chain PrintI1(Argument<bool> value) {
  PrintToStdout(absl::StrCat("int1 = ", *value ? 1 : 0, "\n"));
  return Chain();
}
Chain PrintI32(Argument<int32_t> value) {
  PrintToStdout(absl::StrCat("int32 = ", *value, "\n"));
  return Chain();
}
Chain PrintI64(Argument<int64_t> value) {
  PrintToStdout(absl::StrCat("int64 = ", *value, "\n"));
  return Chain();
}
std::string Printf(const char* format, double a, double b = 0) {
  char buffer[512];
  std::snprintf(buffer, sizeof(buffer), format, a, b);
  return buffer;
}
Chain PrintF32(Argument<float> value) {
  PrintToStdout(Printf("f32 = %f\n", *value));
  return Chain();
}
Chain PrintF64(Argument<double> value) {
  PrintToStdout(Printf("f64 = %f\n", *value));
  return Chain();
}
Chain PrintF16(Argument<Half> value) {
  PrintToStdout(absl::StrCat("f16 = ", value->bits, "\n"));
  return Chain();
}
Chain PrintComplex64(Argument<std::complex<float>> value) {
  PrintToStdout(Printf("complex64 = %f+%fi\n", value->real(), value->imag()));
  return Chain();
}
Chain PrintComplex128(Argument<std::complex<double>> value) {
  PrintToStdout(Printf("complex128 = %f+%fi\n", value->real(), value->imag()));
  return Chain();
}

// ---- Chains and aliasing.
Chain NewChain() { return Chain(); }
Chain MergeChains(RemainingArguments) { return Chain(); }
RCReference<AsyncValue> AliasValue(Argument<Chain>, AsyncKernelFrame* frame) {
  return FormRef(frame->GetArgAt(1));
}

// ---- Devices.
absl::StatusOr<Device> GetDevice(Argument<Chain>, StringAttribute name,
                                 HostContext* host) {
  if (*name != host->host_device_name()) {
    return absl::InternalError(absl::StrCat("cannot find device ", absl::string_view(name.get().data(), name.get().size())));
  }
  return Device{std::string(*name)};
}

void RegisterBasicKernels(KernelRegistry* registry) {
  registry->AddKernel("tfrt.constant.i1", BEF_KERNEL(ConstantI1));
  registry->AddKernel("tfrt.constant.i32", BEF_KERNEL(Constant<int32_t>));
  registry->AddKernel("tfrt.constant.i64", BEF_KERNEL(Constant<int64_t>));
  registry->AddKernel("tfrt.constant.ui32", BEF_KERNEL(Constant<uint32_t>));
  registry->AddKernel("tfrt.constant.ui64", BEF_KERNEL(Constant<uint64_t>));
  registry->AddKernel("tfrt.constant.f16", BEF_KERNEL(Constant<Half>));
  registry->AddKernel("tfrt.constant.bf16", BEF_KERNEL(Constant<BFloat16>));
  registry->AddKernel("tfrt.constant.f32", BEF_KERNEL(Constant<float>));
  registry->AddKernel("tfrt.constant.f64", BEF_KERNEL(Constant<double>));
  registry->AddKernel("tfrt.constant.complex64", BEF_KERNEL(ConstantComplex<float>));
  registry->AddKernel("tfrt.constant.complex128", BEF_KERNEL(ConstantComplex<double>));

  registry->AddKernel("tfrt.add.i32", BEF_KERNEL(Add<int32_t>));
  registry->AddKernel("tfrt.add.i64", BEF_KERNEL(Add<int64_t>));
  registry->AddKernel("tfrt.add.f32", BEF_KERNEL(Add<float>));
  registry->AddKernel("tfrt.add.f64", BEF_KERNEL(Add<double>));
  registry->AddKernel("tfrt.minus.i32", BEF_KERNEL(Minus<int32_t>));
  registry->AddKernel("tfrt.minus.i64", BEF_KERNEL(Minus<int64_t>));
  registry->AddKernel("tfrt.mul.i32", BEF_KERNEL(Mul<int32_t>));
  registry->AddKernel("tfrt.mul.i64", BEF_KERNEL(Mul<int64_t>));
  registry->AddKernel("tfrt.multiply.f32", BEF_KERNEL(Mul<float>));
  registry->AddKernel("tfrt.multiply.f64", BEF_KERNEL(Mul<double>));
  registry->AddKernel("tfrt.div.i32", BEF_KERNEL(DivInt<int32_t>));
  registry->AddKernel("tfrt.div.i64", BEF_KERNEL(DivInt<int64_t>));
  registry->AddKernel("tfrt.div.f32", BEF_KERNEL(DivFloat<float>));
  registry->AddKernel("tfrt.div.f64", BEF_KERNEL(DivFloat<double>));
  registry->AddKernel("tfrt.minimum.f32", BEF_KERNEL(Minimum<float>));
  registry->AddKernel("tfrt.minimum.f64", BEF_KERNEL(Minimum<double>));
  registry->AddKernel("tfrt.equal.i32", BEF_KERNEL(Equal<int32_t>));
  registry->AddKernel("tfrt.equal.i64", BEF_KERNEL(Equal<int64_t>));
  registry->AddKernel("tfrt.lessequal.i32", BEF_KERNEL(LessEqual<int32_t>));
  registry->AddKernel("tfrt.lessequal.i64", BEF_KERNEL(LessEqual<int64_t>));
  registry->AddKernel("tfrt.and.i1", BEF_KERNEL(And));

  registry->AddKernel("tfrt.cast.i64_to_f32", BEF_KERNEL(Cast<int64_t, float>));
  registry->AddKernel("tfrt.cast.f32_to_i64", BEF_KERNEL(Cast<float, int64_t>));
  registry->AddKernel("tfrt.cast.i64_to_f64", BEF_KERNEL(Cast<int64_t, double>));
  registry->AddKernel("tfrt.cast.f64_to_i64", BEF_KERNEL(Cast<double, int64_t>));

  registry->AddKernel("tfrt.print.i1", BEF_KERNEL(PrintI1));
  registry->AddKernel("tfrt.print.i32", BEF_KERNEL(PrintI32));
  registry->AddKernel("tfrt.print.i64", BEF_KERNEL(PrintI64));
  registry->AddKernel("tfrt.print.f16", BEF_KERNEL(PrintF16));
  registry->AddKernel("tfrt.print.f32", BEF_KERNEL(PrintF32));
  registry->AddKernel("tfrt.print.f64", BEF_KERNEL(PrintF64));
  registry->AddKernel("tfrt.print.complex64", BEF_KERNEL(PrintComplex64));
  registry->AddKernel("tfrt.print.complex128", BEF_KERNEL(PrintComplex128));

  registry->AddKernel("tfrt.new.chain", ChainOnly(BEF_KERNEL(NewChain)));
  registry->AddKernel("tfrt.merge.chains", ChainOnly(BEF_KERNEL(MergeChains)));
  registry->AddKernel("tfrt.alias.value", BEF_KERNEL(AliasValue));
  registry->AddKernel("tfrt.get_device", BEF_KERNEL(GetDevice));
}

}  // namespace

void PrintToStdout(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterBasicKernels, "tfrt");

}  // namespace bef
