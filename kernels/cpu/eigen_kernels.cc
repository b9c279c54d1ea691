// TFRT's `eigen.*` kernels (../shared/spec/cpu-kernels.md §4): matrix
// products, convolutions with their bias, batch-norm and relu forms,
// inference batch normalisation, max pooling, zero padding and the
// training gradients (plain loops: no model here trains). Names, operands, attribute order, checks and error
// texts are TFRT's; TFRT computes them with Eigen, hence the names.
//
// The arithmetic of the convolutions and f32 matrix products is oneDNN's
// (chosen by measurement: docs/performance.md "Compute libraries"),
// reached through the plugin onednn.h loads on first use. A large kernel
// splits its output over the work-queue threads (bef/host/parallel_for.h):
// convolutions by output rows (whole images in one call where a share
// holds them), matrix products by rows (or, for one row, by columns), max
// pooling by output positions; each part is one library call
// on one thread, so `mstd:2` runs a convolution on both threads and no
// second thread pool competes with the executor's. The result is a new
// chain, available once every part has written its share (TFRT's
// contract); when the work is one part it is written before the kernel
// returns.
//
// Layouts: activations NHWC, filters HWIO, per-channel vectors [C]. The
// ranks and the f32 dtype the names imply are checked (TFRT leaves them
// to debug builds), with messages naming the kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "bef/host/host_allocator.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/kernel_utils.h"
#include "bef/host/parallel_for.h"
#include "bef/kernels/kernel_types.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"
#include "kernels/cpu/onednn.h"
#include "kernels/cpu/output_rows.h"
#include "kernels/cpu/pooling.h"
#include "kernels/cpu/prepared_filters.h"
#include "kernels/cpu/small_matmul.h"
#include "kernels/cpu/tensor_access.h"

namespace bef {
namespace {

using cpu_kernels::CheckF32;
using cpu_kernels::Count;
using cpu_kernels::DerivedDimension;
using cpu_kernels::Elements;
using cpu_kernels::FixedShapeText;
using cpu_kernels::ForEachOutputRowRun;
using cpu_kernels::InputRows;
using cpu_kernels::InputRowsOf;
using cpu_kernels::kMinimumTaskWork;
using cpu_kernels::MaxPoolGeometry;
using cpu_kernels::MaxPoolPositions;
using cpu_kernels::OneDnn;
using cpu_kernels::PooledSize;
using cpu_kernels::PreparedFilter;
using cpu_kernels::SamePoolPadding;
using cpu_kernels::SmallMatMul;
using cpu_kernels::WorkProduct;
using cpu_kernels::WritableElements;
using cpu_kernels::ZeroPad;

// TFRT prints the 64-bit numbers of its printf-style messages with `%d`:
// their low 32 bits as a signed int.
int32_t AsPrinted(int64_t value) { return static_cast<int32_t>(value); }

// ---------------------------------------------------------------------------
// Convolution parameters (§4.1).

enum class ConvPadding { kSame, kValid };

absl::StatusOr<ConvPadding> ParseConvPadding(std::string_view padding) {
  const std::string lower = absl::AsciiStrToLower(ToAbsl(padding));
  if (lower == "same") return ConvPadding::kSame;
  if (lower == "valid") return ConvPadding::kValid;
  if (lower == "explicit") {
    return absl::InvalidArgumentError("For explicit padding, padding values must be defined");
  }
  return absl::InvalidArgumentError(absl::StrCat("Unknown padding type ", ToAbsl(padding)));
}

// One spatial dimension of a convolution: the output size and the padding
// before and after.
struct ConvWindow {
  int64_t out;
  int64_t before;
  int64_t after;
};

absl::StatusOr<ConvWindow> ConvWindowOf(int64_t input, int64_t filter, int64_t stride,
                                        ConvPadding padding, std::string_view kernel,
                                        const TensorShape& input_shape) {
  if (stride <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Stride must be > 0, but got ", AsPrinted(stride)));
  }
  ConvWindow window{0, 0, 0};
  if (padding == ConvPadding::kValid) {
    BEF_ASSIGN_OR_RETURN(window.out,
                         DerivedDimension((static_cast<__int128>(input) - filter + stride) /
                                              stride,
                                          kernel, input_shape));
  } else {
    BEF_ASSIGN_OR_RETURN(window.out,
                         DerivedDimension((static_cast<__int128>(input) + stride - 1) / stride,
                                          kernel, input_shape));
    const __int128 needed = std::max<__int128>(
        0, static_cast<__int128>(window.out - 1) * stride + filter - input);
    BEF_ASSIGN_OR_RETURN(int64_t total, DerivedDimension(needed, kernel, input_shape));
    window.before = total / 2;
    window.after = total - window.before;
  }
  if (window.out < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Computed output size would be negative: ", AsPrinted(window.out),
        " (input_size: ", AsPrinted(input), ", filter_size: ", AsPrinted(filter),
        ", stride: ", AsPrinted(stride), ", dilation: 1)"));
  }
  return window;
}

// The convolution of input dimensions `in` (NHWC) with filter dimensions
// `weights` (HWIO), its windows resolved; no epilogue.
BefConv2DShape ConvShape(const std::vector<int64_t>& in, const std::vector<int64_t>& weights,
                         std::span<const int64_t> strides, ConvWindow rows, ConvWindow columns) {
  return BefConv2DShape{.batch = in[0],
                        .height = in[1],
                        .width = in[2],
                        .in_channels = in[3],
                        .filter_height = weights[0],
                        .filter_width = weights[1],
                        .out_channels = weights[3],
                        .out_height = rows.out,
                        .out_width = columns.out,
                        .stride_height = strides[0],
                        .stride_width = strides[1],
                        .pad_top = rows.before,
                        .pad_bottom = rows.after,
                        .pad_left = columns.before,
                        .pad_right = columns.after,
                        .epilogue = kBefConvEpilogueNone,
                        .filter_out_channels = 0,
                        .algorithms = kBefConvAlgorithmDirect};
}

// The convolution of input [N, H, W, IC] with filter [KH, KW, FC, OC]
// (checks in TFRT's order: padding, channels, height, width).
absl::StatusOr<BefConv2DShape> ConvParameters(const DenseHostTensor& input,
                                              const DenseHostTensor& filter,
                                              std::string_view padding,
                                              std::span<const int64_t> strides,
                                              std::string_view kernel) {
  BEF_RETURN_IF_ERROR(CheckF32(input, kernel, "input", 4));
  BEF_RETURN_IF_ERROR(CheckF32(filter, kernel, "filter", 4));
  if (strides.size() != 2) return absl::InvalidArgumentError("strides should have 2 elements");
  BEF_ASSIGN_OR_RETURN(ConvPadding kind, ParseConvPadding(padding));
  const std::vector<int64_t>& in = input.shape().dims();
  const std::vector<int64_t>& weights = filter.shape().dims();
  if (weights[2] != in[3]) {
    return absl::InvalidArgumentError(
        absl::StrCat("Dimensions does not match: input channels is ", AsPrinted(in[3]),
                     " and kernel depth is ", AsPrinted(weights[2])));
  }
  BEF_ASSIGN_OR_RETURN(ConvWindow rows,
                       ConvWindowOf(in[1], weights[0], strides[0], kind, kernel, input.shape()));
  BEF_ASSIGN_OR_RETURN(ConvWindow columns,
                       ConvWindowOf(in[2], weights[1], strides[1], kind, kernel, input.shape()));
  return ConvShape(in, weights, strides, rows, columns);
}

std::vector<int64_t> OutputDims(const BefConv2DShape& shape) {
  return {shape.batch, shape.out_height, shape.out_width, shape.out_channels};
}

// "Dimensions does not match: NAME is COUNT and output channels size is OC".
absl::Status CheckChannelVector(const DenseHostTensor& vector, std::string_view name,
                                int64_t channels, std::string_view kernel) {
  BEF_RETURN_IF_ERROR(CheckF32(vector, kernel, name, 0));
  if (vector.NumElements() != channels) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Dimensions does not match: ", ToAbsl(name), " is ", AsPrinted(vector.NumElements()),
        " and output channels size is ", AsPrinted(channels)));
  }
  return absl::OkStatus();
}

// Output channels go to a part of a convolution split by channels in
// blocks of 16 (oneDNN's AVX-512 blocking of output channels).
constexpr int64_t kChannelBlock = 16;
// The most floats a thread keeps of its channel part's buffer between
// convolutions (1 MiB): above it the buffer is freed after each part.
constexpr size_t kKeptChannelBuffer = size_t{1} << 18;

// The shared state of one convolution's parts (ParallelFor returns when
// every part has run, so the operands outlive them): the operands and the
// per-channel factors of its epilogue.
struct ConvolutionWork {
  BefConv2DShape shape;
  const BefOneDnnApi* onednn;
  const float* input;
  const float* filter;
  float* output;
  // shape.epilogue's operands (onednn_api.h): a bias in `offset`; batch
  // norm: out = (conv - mean) * factor + offset, factor = scale /
  // sqrt(variance + epsilon) once per channel; an addend of the output's
  // shape.
  std::vector<float> mean, factor, offset;
  const float* addend = nullptr;

  const void* prepared_filter = nullptr;  // PreparedFilter's, or null
  const DenseHostTensor* filter_tensor = nullptr;  // for the prepared forms of channel ranges

  // Output rows [begin, end) of the N * OH: whole images in one call,
  // the rows of a part of an image in another (a batch-1 convolution on two
  // threads is two calls of half the rows, each with the input rows its
  // windows read and the padding that falls in its range).
  absl::Status Run(int64_t begin, int64_t end) const {
    return ForEachOutputRowRun(
        begin, end, shape.out_height,
        [this](int64_t image, int64_t count) { return RunImages(image, count); },
        [this](int64_t image, int64_t first_row, int64_t last_row) {
          return RunRows(image, first_row, last_row);
        });
  }

 private:
  int64_t ImageInput() const { return shape.height * shape.width * shape.in_channels; }
  int64_t RowOutput() const { return shape.out_width * shape.out_channels; }

  // The epilogue's vectors in the order onednn_api.h gives them, for
  // output channels from `first_channel` on, with `call_addend` the
  // addend of the call's output.
  void EpilogueVectors(int64_t first_channel, const float* call_addend,
                       const float* vectors[3]) const {
    vectors[0] = vectors[1] = vectors[2] = nullptr;
    switch (shape.epilogue) {
      case kBefConvEpilogueNone:
        break;
      case kBefConvEpilogueBatchNorm:
      case kBefConvEpilogueBatchNormRelu:
        vectors[0] = mean.data() + first_channel;
        vectors[1] = factor.data() + first_channel;
        vectors[2] = offset.data() + first_channel;
        break;
      case kBefConvEpilogueBiasAddend:
      case kBefConvEpilogueBiasAddendRelu:
        vectors[0] = offset.data() + first_channel;
        vectors[1] = call_addend;
        break;
      default:
        vectors[0] = offset.data() + first_channel;
    }
  }

  absl::Status Call(const BefConv2DShape& part, const float* in, float* out) const {
    const float* vectors[3];
    // The addend of this call's rows.
    EpilogueVectors(0, addend != nullptr ? addend + (out - output) : nullptr, vectors);
    char error[512];
    if (onednn->conv2d(&part, in, filter, prepared_filter, vectors, out, error,
                       sizeof(error)) != 0) {
      return absl::InternalError(error);
    }
    return absl::OkStatus();
  }

  absl::Status RunImages(int64_t first, int64_t count) const {
    BefConv2DShape part = shape;
    part.batch = count;
    float* out = output + first * shape.out_height * RowOutput();
    return Call(part, input + first * ImageInput(), out);
  }

  // Rows [first_row, last_row) of one image.
  absl::Status RunRows(int64_t image, int64_t first_row, int64_t last_row) const {
    const InputRows read = InputRowsOf(first_row, last_row, shape.filter_height,
                                       shape.stride_height, shape.pad_top, shape.height);
    float* out = output + (image * shape.out_height + first_row) * RowOutput();
    const int64_t count = (last_row - first_row) * RowOutput();
    if (read.count == 0) {
      Finish(out, count, /*zero_convolution=*/true);  // windows of padding only
      return absl::OkStatus();
    }
    BefConv2DShape part = shape;
    part.batch = 1;
    part.height = read.count;
    part.out_height = last_row - first_row;
    part.pad_top = read.pad_top;
    part.pad_bottom = read.pad_bottom;
    const float* in = input + image * ImageInput() + read.first * shape.width * shape.in_channels;
    return Call(part, in, out);  // with the epilogue
  }

  // (public: a convolution with nothing to convolve is all epilogue.)
 public:
  // Output channels [first_block, last_block) x kChannelBlock at every
  // output position: a part of a convolution whose filter outweighs its
  // input, split by channels (each part reads all of the input and its
  // channels of the filter, where a split by rows has every part read all
  // of the filter). The part is computed into a dense buffer of its own
  // (oneDNN's fast convolutions write a dense output only: a strided one
  // takes its reference kernel, 300x slower) and copied into the output's
  // channels; an addend's channels are copied into the buffer first.
  absl::Status RunChannels(int64_t first_block, int64_t last_block) const {
    const int64_t first = first_block * kChannelBlock;
    const int64_t width = std::min(shape.out_channels, last_block * kChannelBlock) - first;
    if (first == 0 && width == shape.out_channels) {
      return Run(0, shape.batch * shape.out_height);  // not split
    }
    BefConv2DShape part = shape;
    part.out_channels = width;
    part.filter_out_channels = shape.out_channels;
    const int64_t positions = shape.batch * shape.out_height * shape.out_width;
    // The thread's buffer, kept between calls up to kKeptChannelBuffer
    // floats (a batch-8 ResNet-18's largest part is about 100Ki).
    thread_local std::vector<float> buffer;
    if (buffer.size() < static_cast<size_t>(positions * width)) buffer.resize(positions * width);
    float* const part_output = buffer.data();
    if (addend != nullptr) {
      // The addend's channels, into the buffer the part's output goes to.
      for (int64_t position = 0; position < positions; ++position) {
        std::copy_n(addend + position * shape.out_channels + first, width,
                    part_output + position * width);
      }
    }
    const float* vectors[3];
    EpilogueVectors(first, part_output, vectors);
    const void* prepared =
        filter_tensor != nullptr ? PreparedFilter(*filter_tensor, part, *onednn, first) : nullptr;
    char error[512];
    if (onednn->conv2d(&part, input, filter + first, prepared, vectors, part_output, error,
                       sizeof(error)) != 0) {
      return absl::InternalError(error);
    }
    for (int64_t position = 0; position < positions; ++position) {
      std::copy_n(part_output + position * width, width,
                  output + position * shape.out_channels + first);
    }
    if (buffer.capacity() > kKeptChannelBuffer) {
      // A large model's part: given back, not held for the thread's life.
      std::vector<float>().swap(buffer);
    }
    return absl::OkStatus();
  }

  // The epilogue on `count` elements written at `out` (rows of padding
  // only: oneDNN applies it to everything it computes); with
  // `zero_convolution` the convolution's values are zeros, not read from
  // `out` (which may be the addend's memory: an in-place residual add).
  void Finish(float* out, int64_t count, bool zero_convolution = false) const {
    const int64_t kind = shape.epilogue;
    if (kind == kBefConvEpilogueNone) {
      if (zero_convolution) std::fill_n(out, count, 0.0f);
      return;
    }
    const bool relu = kind == kBefConvEpilogueBatchNormRelu || kind == kBefConvEpilogueBiasRelu ||
                      kind == kBefConvEpilogueBiasAddendRelu;
    const int64_t channels = shape.out_channels;
    for (float* pixel = out; pixel < out + count; pixel += channels) {
      for (int64_t c = 0; c < channels; ++c) {
        const float convolution = zero_convolution ? 0.0f : pixel[c];
        float value;
        if (kind == kBefConvEpilogueBatchNorm || kind == kBefConvEpilogueBatchNormRelu) {
          value = (convolution - mean[c]) * factor[c] + offset[c];
        } else {
          value = convolution + offset[c];
          if (kind == kBefConvEpilogueBiasAddend || kind == kBefConvEpilogueBiasAddendRelu) {
            value += addend[pixel - output + c];
          }
        }
        pixel[c] = relu ? std::max(value, 0.0f) : value;
      }
    }
  }
};

// Splits the work over the work queue's threads, each share at least
// kMinimumTaskWork multiply-adds: by output channels where the filter is
// larger than the input (ResNet's 14x14 and 7x7 layers: a split by rows
// had both threads stream all of a 9.4 MB filter, each half taking 1.06 ms
// where the whole took 1.59), by the N * OH output rows otherwise.
absl::StatusOr<Chain> RunConvolution(ConvolutionWork work, HostContext* host) {
  const BefConv2DShape& shape = work.shape;
  const int64_t input_elements =
      WorkProduct({shape.batch, shape.height, shape.width, shape.in_channels});
  const int64_t filter_elements =
      WorkProduct({shape.filter_height, shape.filter_width, shape.in_channels, shape.out_channels});
  if (filter_elements > input_elements && shape.out_channels >= 2 * kChannelBlock) {
    const int64_t blocks = (shape.out_channels + kChannelBlock - 1) / kChannelBlock;
    const int64_t work_per_block =
        WorkProduct({shape.batch, shape.out_height, shape.out_width, kChannelBlock,
                     shape.filter_height, shape.filter_width, shape.in_channels});
    const int64_t min_blocks =
        std::max<int64_t>(1, kMinimumTaskWork / std::max<int64_t>(work_per_block, 1));
    BEF_RETURN_IF_ERROR(ParallelFor(host, blocks, min_blocks, [&work](int64_t begin, int64_t end) {
      return work.RunChannels(begin, end);
    }));
    return Chain();
  }
  const int64_t rows = work.shape.batch * work.shape.out_height;
  const int64_t work_per_row =
      WorkProduct({work.shape.out_width, work.shape.out_channels, work.shape.filter_height,
                   work.shape.filter_width, work.shape.in_channels});
  const int64_t min_rows =
      std::max<int64_t>(1, kMinimumTaskWork / std::max<int64_t>(work_per_row, 1));
  BEF_RETURN_IF_ERROR(ParallelFor(
      host, rows, min_rows, [&work](int64_t begin, int64_t end) { return work.Run(begin, end); }));
  return Chain();
}

// The checks and operands every forward convolution shares; the output has
// an element when the result holds work.
absl::StatusOr<ConvolutionWork> PrepareConvolution(const DenseHostTensor& input,
                                                   const DenseHostTensor& filter,
                                                   DenseHostTensor& output,
                                                   std::string_view padding,
                                                   std::span<const int64_t> strides,
                                                   std::string_view kernel) {
  BEF_ASSIGN_OR_RETURN(BefConv2DShape shape,
                       ConvParameters(input, filter, padding, strides, kernel));
  BEF_RETURN_IF_ERROR(CheckF32(output, kernel, "output", 0));
  const std::vector<int64_t> expected = OutputDims(shape);
  if (output.shape().dims() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Tensor shapes do not match: output tensor shape is ", output.shape().ToString(),
        " and computed output shape is ", TensorShape(expected).ToString()));
  }
  ConvolutionWork work;
  work.shape = shape;
  return work;
}

// Fills in the operands, once every check has passed (the output is
// written from here on).
absl::Status BindConvolution(ConvolutionWork& work, const DenseHostTensor& input,
                             const DenseHostTensor& filter, DenseHostTensor& output,
                             HostAllocator* allocator) {
  BEF_ASSIGN_OR_RETURN(work.onednn, OneDnn());
  BEF_ASSIGN_OR_RETURN(work.output, WritableElements<float>(output, allocator));
  work.input = Elements<float>(input);
  work.filter = Elements<float>(filter);
  work.prepared_filter = PreparedFilter(filter, work.shape, *work.onednn);
  work.filter_tensor = &filter;
  return absl::OkStatus();
}

// A convolution with nothing to compute: an output with no element, or
// (with one) a filter or input with none, where every sum is empty.
bool NothingToConvolve(const DenseHostTensor& input, const DenseHostTensor& filter,
                       DenseHostTensor& output) {
  return Count(output) == 0 || Count(input) == 0 || Count(filter) == 0;
}

// eigen.conv2d.f32: (input, filter, output, chain) {padding, strides}.
absl::StatusOr<Chain> Conv2D(Argument<DenseHostTensor> input, Argument<DenseHostTensor> filter,
                             Argument<DenseHostTensor> output, Argument<Chain>,
                             StringAttribute padding, ArrayAttribute<int64_t> strides,
                             HostContext* host) {
  constexpr std::string_view kKernel = "eigen.conv2d.f32";
  BEF_ASSIGN_OR_RETURN(ConvolutionWork work,
                       PrepareConvolution(*input, *filter, *output, *padding, strides.data(),
                                          kKernel));
  if (NothingToConvolve(*input, *filter, *output)) {
    BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, host->allocator()));
    std::fill_n(out, Count(*output), 0.0f);
    return Chain();
  }
  BEF_RETURN_IF_ERROR(BindConvolution(work, *input, *filter, *output, host->allocator()));
  return RunConvolution(std::move(work), host);
}

// eigen.conv2d.bias.f32: (input, filter, bias, output, chain) {padding,
// strides}: the convolution plus bias[oc].
absl::StatusOr<Chain> Conv2DBias(Argument<DenseHostTensor> input, Argument<DenseHostTensor> filter,
                                 Argument<DenseHostTensor> bias, Argument<DenseHostTensor> output,
                                 Argument<Chain>, StringAttribute padding,
                                 ArrayAttribute<int64_t> strides, HostContext* host) {
  constexpr std::string_view kKernel = "eigen.conv2d.bias.f32";
  BEF_ASSIGN_OR_RETURN(ConvolutionWork work,
                       PrepareConvolution(*input, *filter, *output, *padding, strides.data(),
                                          kKernel));
  const int64_t channels = work.shape.out_channels;
  BEF_RETURN_IF_ERROR(CheckChannelVector(*bias, "bias shape", channels, kKernel));
  const float* bias_values = Elements<float>(*bias);
  if (NothingToConvolve(*input, *filter, *output)) {
    BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, host->allocator()));
    const size_t count = Count(*output);
    for (size_t i = 0; i < count; ++i) out[i] = bias_values[i % channels];
    return Chain();
  }
  work.shape.epilogue = kBefConvEpilogueBias;
  work.offset.assign(bias_values, bias_values + channels);
  BEF_RETURN_IF_ERROR(BindConvolution(work, *input, *filter, *output, host->allocator()));
  return RunConvolution(std::move(work), host);
}

// eigen.conv2d.batch_norm.f32 and .relu: (input, filter, scale, offset,
// mean, variance, output, chain) {epsilon, padding, strides}.
template <bool kRelu>
absl::StatusOr<Chain> Conv2DBatchNorm(
    Argument<DenseHostTensor> input, Argument<DenseHostTensor> filter,
    Argument<DenseHostTensor> scale, Argument<DenseHostTensor> offset,
    Argument<DenseHostTensor> mean, Argument<DenseHostTensor> variance,
    Argument<DenseHostTensor> output, Argument<Chain>, Attribute<float> epsilon,
    StringAttribute padding, ArrayAttribute<int64_t> strides, HostContext* host) {
  const std::string_view kernel =
      kRelu ? "eigen.conv2d.batch_norm.relu.f32" : "eigen.conv2d.batch_norm.f32";
  BEF_ASSIGN_OR_RETURN(ConvolutionWork work,
                       PrepareConvolution(*input, *filter, *output, *padding, strides.data(),
                                          kernel));
  const int64_t channels = work.shape.out_channels;
  BEF_RETURN_IF_ERROR(CheckChannelVector(*scale, "scale shape", channels, kernel));
  BEF_RETURN_IF_ERROR(CheckChannelVector(*offset, "offset shape", channels, kernel));
  BEF_RETURN_IF_ERROR(CheckChannelVector(*mean, "estimated mean shape", channels, kernel));
  BEF_RETURN_IF_ERROR(CheckChannelVector(*variance, "estimated var shape", channels, kernel));
  work.shape.epilogue = kRelu ? kBefConvEpilogueBatchNormRelu : kBefConvEpilogueBatchNorm;
  const float* scales = Elements<float>(*scale);
  const float* variances = Elements<float>(*variance);
  work.mean.assign(Elements<float>(*mean), Elements<float>(*mean) + channels);
  work.offset.assign(Elements<float>(*offset), Elements<float>(*offset) + channels);
  work.factor.resize(channels);
  for (int64_t c = 0; c < channels; ++c) {
    work.factor[c] = 1.0f / std::sqrt(variances[c] + *epsilon) * scales[c];
  }
  if (NothingToConvolve(*input, *filter, *output)) {
    BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, host->allocator()));
    std::fill_n(out, Count(*output), 0.0f);
    for (size_t at = 0; at < Count(*output); at += channels) {
      for (int64_t c = 0; c < channels; ++c) {
        float value = (0.0f - work.mean[c]) * work.factor[c] + work.offset[c];
        out[at + c] = kRelu ? std::max(value, 0.0f) : value;
      }
    }
    return Chain();
  }
  BEF_RETURN_IF_ERROR(BindConvolution(work, *input, *filter, *output, host->allocator()));
  return RunConvolution(std::move(work), host);
}

// ---------------------------------------------------------------------------
// ONNX's convolution (kernels/cpu/onnx_kernels.cc lists the onnx.* family):
// the same computation with explicit pads [top, left, bottom, right], its
// bias, then an optional addend of the output's shape (a residual block's
// Add) and relu, all as oneDNN post-ops (no pass over the output after
// the convolution, no padded copy of the input).
//
//   onnx.conv.f32      (input, filter, bias, output, chain) {pads, relu, strides}
//   onnx.conv.add.f32  (input, filter, bias, addend, output, chain) {pads, relu, strides}

absl::StatusOr<ConvolutionWork> PrepareOnnxConvolution(
    const DenseHostTensor& input, const DenseHostTensor& filter, const DenseHostTensor& bias,
    DenseHostTensor& output, std::span<const int64_t> pads, std::span<const int64_t> strides,
    std::string_view kernel) {
  BEF_RETURN_IF_ERROR(CheckF32(input, kernel, "input", 4));
  BEF_RETURN_IF_ERROR(CheckF32(filter, kernel, "filter", 4));
  BEF_RETURN_IF_ERROR(CheckF32(bias, kernel, "bias", 1));
  BEF_RETURN_IF_ERROR(CheckF32(output, kernel, "output", 4));
  constexpr int64_t kLimit = int64_t{1} << 32;
  if (pads.size() != 4 || strides.size() != 2 ||
      std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0 || p > kLimit; }) ||
      std::any_of(strides.begin(), strides.end(),
                  [](int64_t v) { return v < 1 || v > kLimit; })) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kernel), ": pads ", TensorShape(std::vector<int64_t>(pads.begin(), pads.end())).ToString(),
        " and strides ", TensorShape(std::vector<int64_t>(strides.begin(), strides.end())).ToString(),
        " must be 4 values in [0, 2^32] and 2 in [1, 2^32]"));
  }
  const std::vector<int64_t>& in = input.shape().dims();
  const std::vector<int64_t>& weights = filter.shape().dims();
  if (weights[2] != in[3]) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kernel), ": the input ", input.shape().ToString(), " has ", in[3],
        " channels, the filter ", filter.shape().ToString(), " takes ", weights[2]));
  }
  if (bias.shape().dims()[0] != weights[3]) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kernel), ": the bias has ", bias.shape().dims()[0], " values, the filter ",
        filter.shape().ToString(), " makes ", weights[3], " channels"));
  }
  int64_t out[2];
  for (int axis = 0; axis < 2; ++axis) {
    const __int128 padded = static_cast<__int128>(in[1 + axis]) + pads[axis] + pads[axis + 2];
    if (padded < weights[axis]) {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(kernel), ": the padded input is smaller than the filter ",
          filter.shape().ToString(), " (input ", input.shape().ToString(), ")"));
    }
    BEF_ASSIGN_OR_RETURN(out[axis], DerivedDimension((padded - weights[axis]) / strides[axis] + 1,
                                                     kernel, input.shape()));
  }
  ConvolutionWork work;
  work.shape = ConvShape(in, weights, strides, ConvWindow{out[0], pads[0], pads[2]},
                         ConvWindow{out[1], pads[1], pads[3]});
  // An ONNX model's convolutions may round as Winograd's do where it is
  // faster (ONNX Runtime's own kernels differ from a direct sum too).
  work.shape.algorithms = kBefConvAlgorithmFastest;
  const std::vector<int64_t> expected = OutputDims(work.shape);
  if (output.shape().dims() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kernel), ": the output has shape ", output.shape().ToString(),
        ", the convolution makes ", TensorShape(expected).ToString()));
  }
  const float* values = Elements<float>(bias);
  work.offset.assign(values, values + weights[3]);
  return work;
}

absl::StatusOr<Chain> RunOnnxConvolution(ConvolutionWork work, const DenseHostTensor& input,
                                         const DenseHostTensor& filter, DenseHostTensor& output,
                                         HostContext* host) {
  if (NothingToConvolve(input, filter, output)) {
    BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(output, host->allocator()));
    work.output = out;
    work.Finish(out, static_cast<int64_t>(Count(output)), /*zero_convolution=*/true);
    return Chain();
  }
  BEF_RETURN_IF_ERROR(BindConvolution(work, input, filter, output, host->allocator()));
  return RunConvolution(std::move(work), host);
}

absl::StatusOr<Chain> OnnxConv(Argument<DenseHostTensor> input, Argument<DenseHostTensor> filter,
                               Argument<DenseHostTensor> bias, Argument<DenseHostTensor> output,
                               Argument<Chain>, ArrayAttribute<int64_t> pads,
                               Attribute<int64_t> relu, ArrayAttribute<int64_t> strides,
                               HostContext* host) {
  BEF_ASSIGN_OR_RETURN(ConvolutionWork work,
                       PrepareOnnxConvolution(*input, *filter, *bias, *output, pads.data(),
                                              strides.data(), "onnx.conv.f32"));
  work.shape.epilogue = *relu != 0 ? kBefConvEpilogueBiasRelu : kBefConvEpilogueBias;
  return RunOnnxConvolution(std::move(work), *input, *filter, *output, host);
}

absl::StatusOr<Chain> OnnxConvAdd(Argument<DenseHostTensor> input, Argument<DenseHostTensor> filter,
                                  Argument<DenseHostTensor> bias, Argument<DenseHostTensor> addend,
                                  Argument<DenseHostTensor> output, Argument<Chain>,
                                  ArrayAttribute<int64_t> pads, Attribute<int64_t> relu,
                                  ArrayAttribute<int64_t> strides, HostContext* host) {
  constexpr std::string_view kKernel = "onnx.conv.add.f32";
  BEF_ASSIGN_OR_RETURN(ConvolutionWork work,
                       PrepareOnnxConvolution(*input, *filter, *bias, *output, pads.data(),
                                              strides.data(), kKernel));
  BEF_RETURN_IF_ERROR(CheckF32(*addend, kKernel, "addend", 4));
  if (addend->shape() != output->shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kKernel), ": the addend has shape ", addend->shape().ToString(), ", the output ",
        output->shape().ToString()));
  }
  work.shape.epilogue =
      *relu != 0 ? kBefConvEpilogueBiasAddendRelu : kBefConvEpilogueBiasAddend;
  work.addend = Elements<float>(*addend);
  return RunOnnxConvolution(std::move(work), *input, *filter, *output, host);
}

void RegisterOnnxConvolutionKernels(KernelRegistry* registry) {
  registry->AddKernel("onnx.conv.f32", BEF_KERNEL(OnnxConv));
  registry->AddKernel("onnx.conv.add.f32", BEF_KERNEL(OnnxConvAdd));
}

// ---------------------------------------------------------------------------
// Matrix products (§4.7).

// The checks of eigen.matmul.T: A [M, K], B [K, N], C [M, N].
absl::Status CheckMatMulShapes(const DenseHostTensor& a, const DenseHostTensor& b,
                               const DenseHostTensor& c, DType dtype, std::string_view kernel) {
  for (const DenseHostTensor* tensor : {&a, &b, &c}) {
    BEF_RETURN_IF_ERROR(tensor->CheckDType(dtype, kernel));
    if (tensor->shape().rank() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(kernel), ": an operand has shape ", tensor->shape().ToString(),
          ", the kernel takes rank-2 tensors"));
    }
  }
  const std::vector<int64_t>& left = a.shape().dims();
  const std::vector<int64_t>& right = b.shape().dims();
  if (left[1] != right[0]) {
    return absl::InvalidArgumentError(
        absl::StrCat("MatMul input tensors inner dimension mismatch: ", FixedShapeText(a.shape()),
                     " vs. ", FixedShapeText(b.shape())));
  }
  const std::vector<int64_t>& out = c.shape().dims();
  if (out[0] != left[0] || out[1] != right[1]) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MatMul output shape ", FixedShapeText(c.shape()),
        " does not match product shape of inputs: ", FixedShapeText(a.shape()), " * ",
        FixedShapeText(b.shape())));
  }
  return absl::OkStatus();
}

// eigen.matmul.f32: (alpha, A, B, beta, C, chain): C = A B (alpha 1, beta
// 0: C is not read), A B + beta C (alpha 1), else alpha (A B) + beta C,
// which reads C even when beta is 0 (TFRT's quirk: a NaN in C stays NaN).
absl::StatusOr<Chain> MatMulF32(Argument<float> alpha, Argument<DenseHostTensor> a,
                                Argument<DenseHostTensor> b, Argument<float> beta,
                                Argument<DenseHostTensor> c, Argument<Chain>, HostContext* host) {
  BEF_RETURN_IF_ERROR(CheckMatMulShapes(*a, *b, *c, DType::kF32, "eigen.matmul.f32"));
  const int64_t m = c->shape().dims()[0], n = c->shape().dims()[1];
  const int64_t k = a->shape().dims()[1];
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*c, host->allocator()));
  if (m == 0 || n == 0) return Chain();
  float scale = *alpha, keep = *beta;
  if (scale != 1.0f && keep == 0.0f) {
    // alpha (A B) + 0 C: C times 0 (NaN and infinities give NaN), added.
    const size_t count = Count(*c);
    for (size_t i = 0; i < count; ++i) out[i] *= 0.0f;
    keep = 1.0f;
  }
  if (k == 0) {
    // Every sum is empty: alpha 0 + beta C.
    const size_t count = Count(*c);
    for (size_t i = 0; i < count; ++i) {
      out[i] = keep == 0.0f ? scale * 0.0f : scale * 0.0f + keep * out[i];
    }
    return Chain();
  }
  const float* left = Elements<float>(*a);
  const float* right = Elements<float>(*b);
  if (SmallMatMul(m, n, k, scale, left, k, right, n, keep, out, n)) {
    // Too small for oneDNN's call to pay (small_matmul.h).
    return Chain();
  }
  BEF_ASSIGN_OR_RETURN(const BefOneDnnApi* onednn, OneDnn());
  struct Product {
    const BefOneDnnApi* onednn;
    const float* a;
    const float* b;
    float* c;
    int64_t m, n, k;
    float alpha, beta;
    bool by_rows;
    absl::Status operator()(int64_t begin, int64_t end) const {
      char error[512];
      const int status =
          by_rows ? onednn->sgemm(end - begin, n, k, alpha, a + begin * k, k, b, n, beta,
                                  c + begin * n, n, error, sizeof(error))
                  : onednn->sgemm(m, end - begin, k, alpha, a, k, b + begin, n, beta, c + begin,
                                  n, error, sizeof(error));
      if (status != 0) return absl::InternalError(error);
      return absl::OkStatus();
    }
  };
  // The larger of C's dimensions: a share by rows reads its rows of A and
  // all of B, by columns all of A and its columns of B, so the split that
  // reads less is across the larger one. An MLP layer of a small batch
  // splits by columns (each thread reads half the weights, which stay in
  // its core's cache from run to run, instead of all of them); a batch-8
  // 784x512 layer split by rows had both threads stream all 1.6 MB.
  const bool by_rows = m > n || n < 2;
  const int64_t parts_of = by_rows ? m : n;
  const int64_t work_per_part = by_rows ? n * k : m * k;
  const int64_t min_block =
      std::max<int64_t>(1, kMinimumTaskWork / std::max<int64_t>(work_per_part, 1));
  BEF_RETURN_IF_ERROR(ParallelFor(
      host, parts_of, min_block, Product{onednn, left, right, out, m, n, k, scale, keep, by_rows}));
  return Chain();
}

// eigen.matmul.i32: the same for i32, in wrapping arithmetic, here.
absl::StatusOr<Chain> MatMulI32(Argument<int32_t> alpha, Argument<DenseHostTensor> a,
                                Argument<DenseHostTensor> b, Argument<int32_t> beta,
                                Argument<DenseHostTensor> c, Argument<Chain>,
                                HostAllocator* allocator) {
  BEF_RETURN_IF_ERROR(CheckMatMulShapes(*a, *b, *c, DType::kI32, "eigen.matmul.i32"));
  const int64_t m = c->shape().dims()[0], n = c->shape().dims()[1];
  const int64_t k = a->shape().dims()[1];
  BEF_ASSIGN_OR_RETURN(int32_t* out, WritableElements<int32_t>(*c, allocator));
  if (m == 0 || n == 0) return Chain();
  const uint32_t* left = reinterpret_cast<const uint32_t*>(Elements<int32_t>(*a));
  const uint32_t* right = reinterpret_cast<const uint32_t*>(Elements<int32_t>(*b));
  const uint32_t scale = static_cast<uint32_t>(*alpha), keep = static_cast<uint32_t>(*beta);
  const bool product_only = *alpha == 1 && *beta == 0;
  std::vector<uint32_t> row(n);
  for (int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0u);
    for (int64_t p = 0; p < k; ++p) {
      const uint32_t factor = left[i * k + p];
      const uint32_t* from = right + p * n;
      for (int64_t j = 0; j < n; ++j) row[j] += factor * from[j];
    }
    int32_t* to = out + i * n;
    for (int64_t j = 0; j < n; ++j) {
      to[j] = static_cast<int32_t>(
          product_only ? row[j] : scale * row[j] + keep * static_cast<uint32_t>(to[j]));
    }
  }
  return Chain();
}

// ---------------------------------------------------------------------------
// Batch normalisation, pooling, padding.

// eigen.batch_norm.f32: (x, scale, bias, mean, variance, chain) {epsilon}:
// in place, x[..., c] = scale[c] ((x - mean[c]) / sqrt(variance[c] + e)) +
// bias[c].
absl::StatusOr<Chain> BatchNorm(Argument<DenseHostTensor> x, Argument<DenseHostTensor> scale,
                                Argument<DenseHostTensor> bias, Argument<DenseHostTensor> mean,
                                Argument<DenseHostTensor> variance, Argument<Chain>,
                                Attribute<float> epsilon, HostAllocator* allocator) {
  constexpr std::string_view kKernel = "eigen.batch_norm.f32";
  BEF_RETURN_IF_ERROR(CheckF32(*x, kKernel, "input", 4));
  const int64_t channels = x->shape().dims()[3];
  for (const DenseHostTensor* vector : {&*scale, &*bias, &*mean, &*variance}) {
    BEF_RETURN_IF_ERROR(CheckF32(*vector, kKernel, "parameter", 0));
    if (vector->NumElements() != channels) {
      return absl::InvalidArgumentError("parameter does not match the input channel number");
    }
  }
  BEF_ASSIGN_OR_RETURN(float* data, WritableElements<float>(*x, allocator));
  const size_t count = Count(*x);
  if (count == 0) return Chain();
  const float* s = Elements<float>(*scale);
  const float* b = Elements<float>(*bias);
  const float* mu = Elements<float>(*mean);
  std::vector<float> deviation(channels);
  for (int64_t c = 0; c < channels; ++c) {
    deviation[c] = std::sqrt(Elements<float>(*variance)[c] + *epsilon);
  }
  for (size_t at = 0; at < count; at += channels) {
    for (int64_t c = 0; c < channels; ++c) {
      data[at + c] = s[c] * ((data[at + c] - mu[c]) / deviation[c]) + b[c];
    }
  }
  return Chain();
}

// eigen.max_pooling_2d.f32: (input, output, chain) {padding, pool_size,
// strides} (i64 arrays): the window arithmetic and value of
// tfrt_test.max_pooling_2d.f32, split by output positions in blocks of at
// least max(1, 1000 / (C KH KW)).
absl::StatusOr<Chain> MaxPooling2D(Argument<DenseHostTensor> input,
                                   Argument<DenseHostTensor> output, Argument<Chain>,
                                   StringAttribute padding, ArrayAttribute<int64_t> pool_size,
                                   ArrayAttribute<int64_t> strides, HostContext* host) {
  constexpr std::string_view kKernel = "eigen.max_pooling_2d.f32";
  BEF_RETURN_IF_ERROR(CheckF32(*input, kKernel, "input", 4));
  BEF_RETURN_IF_ERROR(CheckF32(*output, kKernel, "output", 4));
  if (strides.size() != 2) return absl::InvalidArgumentError("strides should have 2 elements");
  if (pool_size.size() != 2) return absl::InvalidArgumentError("ksize should have 2 elements");
  const std::string_view kind = *padding;
  const bool same = kind == "SAME" || kind == "same";
  if (!same && kind != "VALID" && kind != "valid") {
    return absl::InvalidArgumentError("padding type is not supported");
  }
  // TFRT divides by a zero stride and walks negative windows; here both
  // are errors, as windows and strides over 2^32 are.
  constexpr int64_t kLimit = int64_t{1} << 32;
  for (int64_t value : {strides[0], strides[1]}) {
    if (value <= 0 || value > kLimit) {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(kKernel), ": strides must be in [1, 2^32], got ", value));
    }
  }
  for (int64_t value : {pool_size[0], pool_size[1]}) {
    if (value < 0 || value > kLimit) {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(kKernel), ": the window (pool_size) must be in [0, 2^32], got ", value));
    }
  }
  const std::vector<int64_t>& in = input->shape().dims();
  MaxPoolGeometry geometry{.batch = in[0], .height = in[1], .width = in[2], .channels = in[3],
                           .window_height = pool_size[0], .window_width = pool_size[1],
                           .stride_height = strides[0], .stride_width = strides[1]};
  if (same) {
    geometry.rows = SamePoolPadding(geometry.height, geometry.window_height,
                                    geometry.stride_height);
    geometry.columns = SamePoolPadding(geometry.width, geometry.window_width,
                                       geometry.stride_width);
  }
  BEF_ASSIGN_OR_RETURN(geometry.out_height,
                       PooledSize(geometry.height, geometry.rows, geometry.window_height,
                                  geometry.stride_height, kKernel, input->shape()));
  BEF_ASSIGN_OR_RETURN(geometry.out_width,
                       PooledSize(geometry.width, geometry.columns, geometry.window_width,
                                  geometry.stride_width, kKernel, input->shape()));
  if (output->shape().dims() !=
      std::vector<int64_t>{in[0], geometry.out_height, geometry.out_width, in[3]}) {
    return absl::InvalidArgumentError("output tensor has the wrong shape");
  }
  if (Count(*output) == 0) return Chain();
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, host->allocator()));
  const int64_t positions = geometry.batch * geometry.out_height * geometry.out_width;
  const int64_t window = std::max<int64_t>(
      1, WorkProduct({std::min(geometry.window_height, geometry.height),
                      std::min(geometry.window_width, geometry.width), geometry.channels}));
  const int64_t min_block = std::max<int64_t>(1, 1000 / window);
  BEF_RETURN_IF_ERROR(
      ParallelFor(host, positions, std::max(min_block, kMinimumTaskWork / window),
                  [geometry, data = Elements<float>(*input), out](int64_t begin, int64_t end) {
                    MaxPoolPositions(geometry, data, out, begin, end);
                    return absl::OkStatus();
                  }));
  return Chain();
}

// eigen.zero_padding.f32: (input, output, chain) {padding} (i64 [PH, PW],
// each read as 32 bits).
absl::StatusOr<Chain> ZeroPadding(Argument<DenseHostTensor> input,
                                  Argument<DenseHostTensor> output, Argument<Chain>,
                                  ArrayAttribute<int64_t> padding, HostAllocator* allocator) {
  BEF_RETURN_IF_ERROR(
      ZeroPad(*input, *output, padding.data(), "eigen.zero_padding.f32", allocator));
  return Chain();
}

// ---------------------------------------------------------------------------
// Training gradients (§4.8, §4.9): plain loops on the calling thread, with
// sums in double (TFRT's are Eigen's f32 reductions in an unspecified
// order; its tests allow 100000 ulp).

// "Tensor shapes do not match: A is [..] and B is [..]".
absl::Status ShapesMatch(const TensorShape& a, std::string_view a_name, const TensorShape& b,
                         std::string_view b_name) {
  if (a == b) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "Tensor shapes do not match: ", ToAbsl(a_name), " is ", a.ToString(), " and ",
      ToAbsl(b_name), " is ", b.ToString()));
}

// eigen.batch_norm.grad.f32: (output_grad, input, gamma, mean, variance,
// chain, input_grad, gamma_grad, beta_grad) {epsilon} -> three chains
// (input_grad, gamma_grad, beta_grad written).
absl::StatusOr<std::tuple<Chain, Chain, Chain>> BatchNormGrad(
    Argument<DenseHostTensor> output_grad, Argument<DenseHostTensor> input,
    Argument<DenseHostTensor> gamma, Argument<DenseHostTensor> mean,
    Argument<DenseHostTensor> variance, Argument<Chain>, Argument<DenseHostTensor> input_grad,
    Argument<DenseHostTensor> gamma_grad, Argument<DenseHostTensor> beta_grad,
    Attribute<float> epsilon, HostAllocator* allocator) {
  constexpr std::string_view kKernel = "eigen.batch_norm.grad.f32";
  BEF_RETURN_IF_ERROR(CheckF32(*output_grad, kKernel, "output gradient", 4));
  BEF_RETURN_IF_ERROR(CheckF32(*input, kKernel, "input", 4));
  BEF_RETURN_IF_ERROR(CheckF32(*input_grad, kKernel, "input gradient", 4));
  BEF_RETURN_IF_ERROR(ShapesMatch(output_grad->shape(), "output_grad shape",
                                  input_grad->shape(), "input_grad shape"));
  BEF_RETURN_IF_ERROR(
      ShapesMatch(input->shape(), "input shape", input_grad->shape(), "input_grad shape"));
  const int64_t channels = input_grad->shape().dims()[3];
  const TensorShape channel_shape({channels});
  const std::pair<const DenseHostTensor*, std::string_view> vectors[] = {
      {&*gamma, "gamma shape"},           {&*mean, "mean shape"},
      {&*variance, "variance shape"},     {&*gamma_grad, "gamma_grad shape"},
      {&*beta_grad, "beta_grad shape"}};
  for (const auto& [vector, name] : vectors) {
    BEF_RETURN_IF_ERROR(CheckF32(*vector, kKernel, name, 0));
    BEF_RETURN_IF_ERROR(
        ShapesMatch(channel_shape, "channels dimension size", vector->shape(), name));
  }
  BEF_ASSIGN_OR_RETURN(float* dx, WritableElements<float>(*input_grad, allocator));
  BEF_ASSIGN_OR_RETURN(float* dgamma, WritableElements<float>(*gamma_grad, allocator));
  BEF_ASSIGN_OR_RETURN(float* dbeta, WritableElements<float>(*beta_grad, allocator));
  const size_t count = Count(*input_grad);
  const float* dy = Elements<float>(*output_grad);
  const float* x = Elements<float>(*input);
  const float* g = Elements<float>(*gamma);
  const float* mu = Elements<float>(*mean);
  const float* var = Elements<float>(*variance);
  std::vector<float> inverse(channels);
  std::vector<double> sum_dy(channels, 0.0), sum_dy_centered(channels, 0.0);
  for (int64_t c = 0; c < channels; ++c) inverse[c] = 1.0f / std::sqrt(var[c] + *epsilon);
  for (size_t at = 0; at < count; at += channels) {
    for (int64_t c = 0; c < channels; ++c) {
      sum_dy[c] += dy[at + c];
      sum_dy_centered[c] += static_cast<double>(dy[at + c]) * (x[at + c] - mu[c]);
    }
  }
  const int64_t positions = channels == 0 ? 0 : static_cast<int64_t>(count) / channels;
  const float reciprocal = positions == 0 ? 0.0f : 1.0f / static_cast<float>(positions);
  for (int64_t c = 0; c < channels; ++c) {
    dbeta[c] = static_cast<float>(sum_dy[c]);
    dgamma[c] = static_cast<float>(sum_dy_centered[c]) * inverse[c];
  }
  for (size_t at = 0; at < count; at += channels) {
    for (int64_t c = 0; c < channels; ++c) {
      const float centered = x[at + c] - mu[c];
      const float mean_dy_centered =
          static_cast<float>(sum_dy_centered[c]) / static_cast<float>(positions);
      dx[at + c] = g[c] * inverse[c] *
                   ((dy[at + c] - dbeta[c] * reciprocal) -
                    centered * inverse[c] * inverse[c] * mean_dy_centered);
    }
  }
  return std::tuple<Chain, Chain, Chain>();
}

// The convolution of `input`'s shape with `filter`'s shape for the two
// gradient kernels, and their check of the output gradient's shape.
absl::StatusOr<BefConv2DShape> GradientParameters(const DenseHostTensor& output_grad,
                                                  const DenseHostTensor& input,
                                                  const DenseHostTensor& filter,
                                                  std::string_view padding,
                                                  std::span<const int64_t> strides,
                                                  std::string_view kernel) {
  BEF_ASSIGN_OR_RETURN(BefConv2DShape shape,
                       ConvParameters(input, filter, padding, strides, kernel));
  BEF_RETURN_IF_ERROR(CheckF32(output_grad, kernel, "output gradient", 0));
  const std::vector<int64_t> expected = OutputDims(shape);
  if (output_grad.shape().dims() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Tensor shapes do not match: output gradient shape is ", output_grad.shape().ToString(),
        " and computed output shape is ", TensorShape(expected).ToString()));
  }
  return shape;
}

// Calls visit(input offset, filter offset, output offset) for every pair
// of an input position and an output position a filter tap joins, in
// elements (the channel vectors start there). Bounded by the elements:
// REQUIRES every tensor to have one.
template <typename Visit>
void ForEachTap(const BefConv2DShape& s, Visit visit) {
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t i = 0; i < s.out_height; ++i) {
      for (int64_t j = 0; j < s.out_width; ++j) {
        const int64_t out = ((n * s.out_height + i) * s.out_width + j) * s.out_channels;
        for (int64_t a = 0; a < s.filter_height; ++a) {
          const int64_t r = i * s.stride_height + a - s.pad_top;
          if (r < 0 || r >= s.height) continue;
          for (int64_t b = 0; b < s.filter_width; ++b) {
            const int64_t c = j * s.stride_width + b - s.pad_left;
            if (c < 0 || c >= s.width) continue;
            visit(((n * s.height + r) * s.width + c) * s.in_channels,
                  (a * s.filter_width + b) * s.in_channels * s.out_channels, out);
          }
        }
      }
    }
  }
}

// eigen.conv2d.grad.filter.f32: (output_grad, input, filter_grad, chain)
// {padding, strides}: filter_grad[kh, kw, ic, oc] = the sum over images and
// output positions of input x output_grad.
absl::StatusOr<Chain> Conv2DGradFilter(Argument<DenseHostTensor> output_grad,
                                       Argument<DenseHostTensor> input,
                                       Argument<DenseHostTensor> filter_grad, Argument<Chain>,
                                       StringAttribute padding, ArrayAttribute<int64_t> strides,
                                       HostAllocator* allocator) {
  constexpr std::string_view kKernel = "eigen.conv2d.grad.filter.f32";
  BEF_ASSIGN_OR_RETURN(BefConv2DShape shape,
                       GradientParameters(*output_grad, *input, *filter_grad, *padding,
                                          strides.data(), kKernel));
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*filter_grad, allocator));
  std::vector<double> sums(Count(*filter_grad), 0.0);
  if (Count(*output_grad) != 0 && Count(*input) != 0 && !sums.empty()) {
    const float* x = Elements<float>(*input);
    const float* dy = Elements<float>(*output_grad);
    const int64_t in_channels = shape.in_channels, out_channels = shape.out_channels;
    ForEachTap(shape, [&](int64_t in, int64_t tap, int64_t at) {
      for (int64_t ic = 0; ic < in_channels; ++ic) {
        double* row = sums.data() + tap + ic * out_channels;
        for (int64_t oc = 0; oc < out_channels; ++oc) {
          row[oc] += static_cast<double>(x[in + ic]) * dy[at + oc];
        }
      }
    });
  }
  std::copy(sums.begin(), sums.end(), out);
  return Chain();
}

// eigen.conv2d.grad.input.f32: (output_grad, filter, input_grad, chain)
// {padding, strides}: input_grad[n, h, w, ic] = the sum over the taps that
// reach (h, w) of output_grad x filter.
absl::StatusOr<Chain> Conv2DGradInput(Argument<DenseHostTensor> output_grad,
                                      Argument<DenseHostTensor> filter,
                                      Argument<DenseHostTensor> input_grad, Argument<Chain>,
                                      StringAttribute padding, ArrayAttribute<int64_t> strides,
                                      HostAllocator* allocator) {
  constexpr std::string_view kKernel = "eigen.conv2d.grad.input.f32";
  BEF_ASSIGN_OR_RETURN(BefConv2DShape shape,
                       GradientParameters(*output_grad, *input_grad, *filter, *padding,
                                          strides.data(), kKernel));
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*input_grad, allocator));
  std::vector<double> sums(Count(*input_grad), 0.0);
  if (Count(*output_grad) != 0 && Count(*filter) != 0 && !sums.empty()) {
    const float* w = Elements<float>(*filter);
    const float* dy = Elements<float>(*output_grad);
    const int64_t in_channels = shape.in_channels, out_channels = shape.out_channels;
    ForEachTap(shape, [&](int64_t in, int64_t tap, int64_t at) {
      for (int64_t ic = 0; ic < in_channels; ++ic) {
        const float* row = w + tap + ic * out_channels;
        double sum = 0.0;
        for (int64_t oc = 0; oc < out_channels; ++oc) sum += static_cast<double>(dy[at + oc]) * row[oc];
        sums[in + ic] += sum;
      }
    });
  }
  std::copy(sums.begin(), sums.end(), out);
  return Chain();
}

void RegisterEigenKernels(KernelRegistry* registry) {
  registry->AddKernel("eigen.matmul.f32", BEF_KERNEL(MatMulF32));
  registry->AddKernel("eigen.matmul.i32", BEF_KERNEL(MatMulI32));
  registry->AddKernel("eigen.conv2d.f32", BEF_KERNEL(Conv2D));
  registry->AddKernel("eigen.conv2d.bias.f32", BEF_KERNEL(Conv2DBias));
  registry->AddKernel("eigen.conv2d.batch_norm.f32", BEF_KERNEL(Conv2DBatchNorm<false>));
  registry->AddKernel("eigen.conv2d.batch_norm.relu.f32", BEF_KERNEL(Conv2DBatchNorm<true>));
  registry->AddKernel("eigen.batch_norm.f32", BEF_KERNEL(BatchNorm));
  registry->AddKernel("eigen.max_pooling_2d.f32", BEF_KERNEL(MaxPooling2D));
  registry->AddKernel("eigen.zero_padding.f32", BEF_KERNEL(ZeroPadding));
  registry->AddKernel("eigen.batch_norm.grad.f32", BEF_KERNEL(BatchNormGrad));
  registry->AddKernel("eigen.conv2d.grad.filter.f32", BEF_KERNEL(Conv2DGradFilter));
  registry->AddKernel("eigen.conv2d.grad.input.f32", BEF_KERNEL(Conv2DGradInput));
}

}  // namespace

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterEigenKernels, "eigen");
BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterOnnxConvolutionKernels, "onnx");

}  // namespace bef
