// The ResNet-family tensor kernels of TFRT's CPU backend (`tfrt_test.*.f32`,
// ../shared/spec/cpu-kernels.md §3): pooling, padding, flatten, softmax and
// the small training kernels TFRT's ResNet programs were written with. Names,
// operands, attribute order, checks and error texts are TFRT's.
//
// Layout of every 4-D tensor: NHWC. The kernels write into an output tensor
// the program allocated (destination passing) and return a chain ready once
// every element is written. Where TFRT leaves a precondition unchecked (the
// dtype and rank a kernel's name implies, the shapes of a few outputs, a
// zero stride) these kernels report an error naming the kernel instead of
// reading or writing outside a tensor: TFRT's behaviour there is undefined.
//
// The arithmetic is plain loops on the calling thread: these kernels are
// the reference programs' (their tensors have tens to thousands of
// elements); the heavy kernels of a model are the `eigen.*` ones.
//
// Every loop is bounded by the elements it reads or writes, never by a bare
// dimension: a tensor with no element may have dimensions of 2^42 (it takes
// no memory), so a kernel whose output has no element returns after its
// checks; pooling and padding (pooling.h) clamp their windows too.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bef/host/host_allocator.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/kernel_utils.h"
#include "bef/kernels/kernel_types.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"
#include "kernels/cpu/pooling.h"
#include "kernels/cpu/tensor_access.h"

namespace bef {
namespace {

using cpu_kernels::CheckF32;
using cpu_kernels::Count;
using cpu_kernels::Elements;
using cpu_kernels::MaxPoolGeometry;
using cpu_kernels::MaxPoolPositions;
using cpu_kernels::PooledSize;
using cpu_kernels::SamePoolPadding;
using cpu_kernels::ZeroPad;
using cpu_kernels::FixedShapeText;
using cpu_kernels::SameShapes;
using cpu_kernels::WritableElements;

// TFRT's texts for an output of the wrong shape, with fixed-rank shapes:
// "NAME output shape [..] does not match the input shape [..]" and
// "NAME output shape [..] does not match the expected output shape [..]".
absl::Status OutputShapeError(std::string_view name, const TensorShape& output,
                              const TensorShape& input) {
  return absl::InvalidArgumentError(absl::StrCat(ToAbsl(name), " output shape ",
                                                 FixedShapeText(output),
                                                 " does not match the input shape ",
                                                 FixedShapeText(input)));
}
absl::Status ExpectedShapeError(std::string_view name, const TensorShape& output,
                                const std::vector<int64_t>& expected) {
  return absl::InvalidArgumentError(absl::StrCat(ToAbsl(name), " output shape ",
                                                 FixedShapeText(output),
                                                 " does not match the expected output shape ",
                                                 FixedShapeText(expected)));
}

// tfrt_test.max_pooling_2d.f32: (input [N, H, W, C], output, chain) with
// `padding` ("same" / "valid"), `pool_size` and `strides` (i32[2], read as
// unsigned). output[n, i, j, c] is the maximum of the window's elements
// inside the input, starting from FLT_MIN (TFRT's initial value: a window of
// values at most FLT_MIN, or of padding only, gives FLT_MIN).
absl::StatusOr<Chain> MaxPooling2D(Argument<DenseHostTensor> input,
                                   Argument<DenseHostTensor> output, Argument<Chain>,
                                   StringAttribute padding, ArrayAttribute<uint32_t> pool_size,
                                   ArrayAttribute<uint32_t> strides, HostAllocator* allocator) {
  constexpr std::string_view kKernel = "tfrt_test.max_pooling_2d.f32";
  BEF_RETURN_IF_ERROR(CheckF32(*input, kKernel, "input", 4));
  BEF_RETURN_IF_ERROR(CheckF32(*output, kKernel, "output", 4));
  if (pool_size.size() != 2) {
    return absl::InvalidArgumentError("MaxPool2D expects pool_size to have 2 elements");
  }
  if (strides.size() != 2) {
    return absl::InvalidArgumentError("MaxPool2D expects strides to have 2 elements");
  }
  const std::vector<int64_t>& in = input->shape().dims();
  const int64_t batch = in[0], height = in[1], width = in[2], channels = in[3];
  const int64_t window_height = pool_size[0], window_width = pool_size[1];
  const int64_t stride_height = strides[0], stride_width = strides[1];
  const bool same = *padding == "same";
  if (!same && *padding != "valid") {
    return absl::InvalidArgumentError(
        absl::StrCat("MaxPool2D padding '", ToAbsl(*padding), "' is not recognized"));
  }
  if (stride_height == 0 || stride_width == 0) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(kKernel), ": strides must be positive"));
  }
  MaxPoolGeometry geometry{.batch = batch, .height = height, .width = width,
                           .channels = channels, .window_height = window_height,
                           .window_width = window_width, .stride_height = stride_height,
                           .stride_width = stride_width};
  if (same) {
    geometry.rows = SamePoolPadding(height, window_height, stride_height);
    geometry.columns = SamePoolPadding(width, window_width, stride_width);
  }
  BEF_ASSIGN_OR_RETURN(geometry.out_height,
                       PooledSize(height, geometry.rows, window_height, stride_height, kKernel,
                                  input->shape()));
  BEF_ASSIGN_OR_RETURN(geometry.out_width,
                       PooledSize(width, geometry.columns, window_width, stride_width, kKernel,
                                  input->shape()));
  const std::vector<int64_t> expected = {batch, geometry.out_height, geometry.out_width,
                                         channels};
  if (output->shape().dims() != expected) {
    return ExpectedShapeError("MaxPool2D", output->shape(), expected);
  }
  if (Count(*output) == 0) return Chain();
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, allocator));
  MaxPoolPositions(geometry, Elements<float>(*input), out, 0,
                   batch * geometry.out_height * geometry.out_width);
  return Chain();
}

// tfrt_test.global_average_pooling.f32: (input [N, H, W, C], output [N, C],
// chain): the mean over axes 1 and 2 (a rank-3 input [N, H, W] gives [N]).
absl::StatusOr<Chain> GlobalAveragePooling(Argument<DenseHostTensor> input,
                                           Argument<DenseHostTensor> output, Argument<Chain>,
                                           HostAllocator* allocator) {
  constexpr std::string_view kKernel = "tfrt_test.global_average_pooling.f32";
  BEF_RETURN_IF_ERROR(CheckF32(*input, kKernel, "input", 0));
  BEF_RETURN_IF_ERROR(CheckF32(*output, kKernel, "output", 0));
  const std::vector<int64_t>& in = input->shape().dims();
  // TFRT accepts rank 2 too and then reads an axis that does not exist.
  if (in.size() != 3 && in.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Unsupported reduction ranks: input_rank=", in.size(), " reduction_rank=2"));
  }
  const int64_t batch = in[0];
  const int64_t channels = in.size() == 4 ? in[3] : 1;
  std::vector<int64_t> expected = {batch};
  if (in.size() == 4) expected.push_back(channels);
  if (output->shape().NumElements() != TensorShape(expected).NumElements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kKernel), ": the output has shape ", output->shape().ToString(),
        ", the reduced shape is ", TensorShape(expected).ToString()));
  }
  if (Count(*output) == 0) return Chain();
  // An output element means batch and channels are real; area * batch *
  // channels is then the input's count, or a dimension is 0 and area is 0.
  const int64_t area = Count(*input) == 0 ? 0 : in[1] * in[2];
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, allocator));
  const float* data = Elements<float>(*input);
  for (int64_t n = 0; n < batch; ++n) {
    float* sums = out + n * channels;
    std::fill_n(sums, channels, 0.0f);
    const float* image = data + n * area * channels;
    for (int64_t p = 0; p < area; ++p) {
      for (int64_t c = 0; c < channels; ++c) sums[c] += image[p * channels + c];
    }
    for (int64_t c = 0; c < channels; ++c) sums[c] /= static_cast<float>(area);
  }
  return Chain();
}

// tfrt_test.flatten.f32: (input, output, chain): the elements in row-major
// order, when the counts and dimension 0 agree.
absl::StatusOr<Chain> Flatten(Argument<DenseHostTensor> input, Argument<DenseHostTensor> output,
                              Argument<Chain>, HostAllocator* allocator) {
  constexpr std::string_view kKernel = "tfrt_test.flatten.f32";
  BEF_RETURN_IF_ERROR(CheckF32(*input, kKernel, "input", 0));
  BEF_RETURN_IF_ERROR(CheckF32(*output, kKernel, "output", 0));
  const TensorShape& in = input->shape();
  const TensorShape& out_shape = output->shape();
  if (in.rank() == 0 || out_shape.rank() == 0 || in.NumElements() != out_shape.NumElements() ||
      in.dims()[0] != out_shape.dims()[0]) {
    return absl::InvalidArgumentError(absl::StrCat("Flatten output shape ", out_shape.ToString(),
                                                   " does not match the input shape ",
                                                   in.ToString()));
  }
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, allocator));
  std::copy_n(Elements<float>(*input), Count(*input), out);
  return Chain();
}

// tfrt_test.zero_padding.f32: (input [N, H, W, C], output, chain) with
// `padding` [PH, PW] (i32): PH zero rows above and below, PW zero columns
// left and right.
absl::StatusOr<Chain> ZeroPadding(Argument<DenseHostTensor> input,
                                  Argument<DenseHostTensor> output, Argument<Chain>,
                                  ArrayAttribute<int32_t> padding, HostAllocator* allocator) {
  BEF_RETURN_IF_ERROR(
      ZeroPad(*input, *output, padding.data(), "tfrt_test.zero_padding.f32", allocator));
  return Chain();
}

// tfrt_test.softmax_inplace.f32: (A, chain): exp(A[i]) / the sum of exp
// over every element of A (not per row), no maximum subtracted, summed in
// f32 in row-major order.
absl::StatusOr<Chain> SoftmaxInplace(Argument<DenseHostTensor> tensor, Argument<Chain>,
                                     HostAllocator* allocator) {
  BEF_RETURN_IF_ERROR(CheckF32(*tensor, "tfrt_test.softmax_inplace.f32", "tensor", 0));
  BEF_ASSIGN_OR_RETURN(float* data, WritableElements<float>(*tensor, allocator));
  const size_t count = Count(*tensor);
  float sum = 0.0f;
  for (size_t i = 0; i < count; ++i) {
    data[i] = std::exp(data[i]);
    sum += data[i];
  }
  for (size_t i = 0; i < count; ++i) data[i] /= sum;
  return Chain();
}

// tfrt_test.gradient_descent.f32: (gradient, lr, output): output[i] -=
// gradient[i] x lr[0].
absl::StatusOr<Chain> GradientDescent(Argument<DenseHostTensor> gradient,
                                      Argument<DenseHostTensor> learning_rate,
                                      Argument<DenseHostTensor> output,
                                      HostAllocator* allocator) {
  constexpr std::string_view kKernel = "tfrt_test.gradient_descent.f32";
  BEF_RETURN_IF_ERROR(CheckF32(*gradient, kKernel, "gradient", 0));
  BEF_RETURN_IF_ERROR(CheckF32(*learning_rate, kKernel, "learning rate", 0));
  BEF_RETURN_IF_ERROR(CheckF32(*output, kKernel, "output", 0));
  if (learning_rate->NumElements() != 1) {
    return absl::InvalidArgumentError("GradientDescent lr should have only one element");
  }
  BEF_RETURN_IF_ERROR(SameShapes(*gradient, *output));
  const float rate = Elements<float>(*learning_rate)[0];
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, allocator));
  const float* g = Elements<float>(*gradient);
  const size_t count = Count(*output);
  for (size_t i = 0; i < count; ++i) out[i] -= g[i] * rate;
  return Chain();
}

// tfrt_test.subtract_inplace.f32: (input, output): output[i] -= input[i].
absl::StatusOr<Chain> SubtractInplace(Argument<DenseHostTensor> input,
                                      Argument<DenseHostTensor> output,
                                      HostAllocator* allocator) {
  constexpr std::string_view kKernel = "tfrt_test.subtract_inplace.f32";
  BEF_RETURN_IF_ERROR(CheckF32(*input, kKernel, "input", 0));
  BEF_RETURN_IF_ERROR(CheckF32(*output, kKernel, "output", 0));
  BEF_RETURN_IF_ERROR(SameShapes(*input, *output));
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, allocator));
  const float* in = Elements<float>(*input);
  const size_t count = Count(*output);
  for (size_t i = 0; i < count; ++i) out[i] -= in[i];
  return Chain();
}

// tfrt_test.tensor_transpose.f32: (input [R, C], output [C, R], chain).
absl::StatusOr<Chain> TensorTranspose(Argument<DenseHostTensor> input,
                                      Argument<DenseHostTensor> output, Argument<Chain>,
                                      HostAllocator* allocator) {
  constexpr std::string_view kKernel = "tfrt_test.tensor_transpose.f32";
  BEF_RETURN_IF_ERROR(CheckF32(*input, kKernel, "input", 2));
  BEF_RETURN_IF_ERROR(CheckF32(*output, kKernel, "output", 2));
  const std::vector<int64_t>& in = input->shape().dims();
  const std::vector<int64_t>& out_dims = output->shape().dims();
  if (out_dims[0] != in[1] || out_dims[1] != in[0]) {
    return OutputShapeError("TensorTranspose", output->shape(), input->shape());
  }
  if (Count(*output) == 0) return Chain();
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, allocator));
  const float* data = Elements<float>(*input);
  for (int64_t r = 0; r < in[0]; ++r) {
    for (int64_t c = 0; c < in[1]; ++c) out[c * in[0] + r] = data[r * in[1] + c];
  }
  return Chain();
}

// tfrt_test.mean_axis_zero.f32: (input [R, C], output [C], chain): column
// means, summed in f32 in increasing row order.
absl::StatusOr<Chain> MeanAxisZero(Argument<DenseHostTensor> input,
                                   Argument<DenseHostTensor> output, Argument<Chain>,
                                   HostAllocator* allocator) {
  constexpr std::string_view kKernel = "tfrt_test.mean_axis_zero.f32";
  BEF_RETURN_IF_ERROR(CheckF32(*input, kKernel, "input", 2));
  BEF_RETURN_IF_ERROR(CheckF32(*output, kKernel, "output", 1));
  const std::vector<int64_t>& in = input->shape().dims();
  if (in[1] != output->shape().dims()[0]) {
    return OutputShapeError("MeanAxisZero", output->shape(), input->shape());
  }
  if (Count(*output) == 0) return Chain();
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, allocator));
  const float* data = Elements<float>(*input);
  std::fill_n(out, in[1], 0.0f);
  for (int64_t r = 0; r < in[0]; ++r) {
    for (int64_t c = 0; c < in[1]; ++c) out[c] += data[r * in[1] + c];
  }
  for (int64_t c = 0; c < in[1]; ++c) out[c] /= static_cast<float>(in[0]);
  return Chain();
}

// tfrt_test.broadcast_2d.f32: (input [N, C], output [N, H, W, C], chain):
// output[i, j, k, l] = input[i, l]. TFRT reports the shapes only when both
// dimensions differ (and reads outside the input when one does); here one
// differing dimension is the same error.
absl::StatusOr<Chain> Broadcast2D(Argument<DenseHostTensor> input,
                                  Argument<DenseHostTensor> output, Argument<Chain>,
                                  HostAllocator* allocator) {
  constexpr std::string_view kKernel = "tfrt_test.broadcast_2d.f32";
  BEF_RETURN_IF_ERROR(CheckF32(*input, kKernel, "input", 2));
  BEF_RETURN_IF_ERROR(CheckF32(*output, kKernel, "output", 4));
  const std::vector<int64_t>& in = input->shape().dims();
  const std::vector<int64_t>& out_dims = output->shape().dims();
  if (in[0] != out_dims[0] || in[1] != out_dims[3]) {
    return OutputShapeError("Broadcast2D", output->shape(), input->shape());
  }
  if (Count(*output) == 0) return Chain();
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, allocator));
  const float* data = Elements<float>(*input);
  const int64_t channels = in[1], area = out_dims[1] * out_dims[2];
  for (int64_t n = 0; n < in[0]; ++n) {
    for (int64_t p = 0; p < area; ++p) {
      std::copy_n(data + n * channels, channels, out + (n * area + p) * channels);
    }
  }
  return Chain();
}

void RegisterResnetTensorKernels(KernelRegistry* registry) {
  registry->AddKernel("tfrt_test.max_pooling_2d.f32", BEF_KERNEL(MaxPooling2D));
  registry->AddKernel("tfrt_test.global_average_pooling.f32", BEF_KERNEL(GlobalAveragePooling));
  registry->AddKernel("tfrt_test.flatten.f32", BEF_KERNEL(Flatten));
  registry->AddKernel("tfrt_test.zero_padding.f32", BEF_KERNEL(ZeroPadding));
  registry->AddKernel("tfrt_test.softmax_inplace.f32", BEF_KERNEL(SoftmaxInplace));
  registry->AddKernel("tfrt_test.gradient_descent.f32", BEF_KERNEL(GradientDescent));
  registry->AddKernel("tfrt_test.subtract_inplace.f32", BEF_KERNEL(SubtractInplace));
  registry->AddKernel("tfrt_test.tensor_transpose.f32", BEF_KERNEL(TensorTranspose));
  registry->AddKernel("tfrt_test.mean_axis_zero.f32", BEF_KERNEL(MeanAxisZero));
  registry->AddKernel("tfrt_test.broadcast_2d.f32", BEF_KERNEL(Broadcast2D));
}

}  // namespace

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterResnetTensorKernels, "tfrt_test");

}  // namespace bef
