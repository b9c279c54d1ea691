// The `onnx.*` kernels: ONNX operators whose semantics TFRT's kernel
// library has no kernel for, written for the programs `onnx-to-bef`
// (python/bef/onnx_to_bef.py) makes of ONNX models. Everything else a
// model needs runs on TFRT's kernels (eigen.conv2d*, eigen.matmul.f32,
// tfrt_test.relu.f32, tfrt_test.global_average_pooling.f32, ...).
//
// The conventions are TFRT's CPU kernels' (kernels/cpu/*): f32 tensors,
// 4-D tensors in NHWC, destination passing (the program allocates the
// output, the kernel writes all of it) and a chain operand last whose
// readiness orders the kernel after the writes of its inputs. Each kernel
// checks every shape it relies on and reports an error naming itself,
// the operand and the shapes; nothing outside a tensor is read or written.
//
//   onnx.transpose.f32   (input, output, chain) {perm}: output = input's
//                        axes permuted (numpy.transpose), any rank <= 8.
//   onnx.reshape.f32     (input, output, chain): the elements copied in
//                        row-major order (equal counts; Reshape, Flatten).
//   onnx.broadcast.f32   (input, output, chain): input broadcast to the
//                        output's shape (numpy rules; Gemm's bias, Expand).
//   onnx.add.f32, onnx.sub.f32, onnx.mul.f32, onnx.div.f32
//                        (a, b, output, chain): elementwise with numpy
//                        broadcasting to the output's shape.
//   onnx.clip.f32        (input, output, chain) {min, max}: min(max(x, min), max).
//   onnx.max_pool.f32    (input, output, chain) {kernel_shape, pads, strides}:
//                        NHWC, pads [top, left, bottom, right] left out of
//                        each maximum (ONNX MaxPool); on oneDNN's pooling.
//   onnx.average_pool.f32 (input, output, chain) {count_include_pad,
//                        kernel_shape, pads, strides}: NHWC; the divisor
//                        counts the padding only with count_include_pad = 1.
//   onnx.softmax.f32     (input, output, chain) {axis}: along one axis, the
//                        maximum subtracted first (ONNX Softmax, opset 13).
//   onnx.concat.f32      (inputs..., output, chain) {axis}.
//   onnx.conv.f32, onnx.conv.add.f32: in eigen_kernels.cc, beside the
//                        convolutions they share their oneDNN calls with.
//
// Attributes are i64 arrays and scalars (i64, f32) in alphabetical order,
// as MLIR prints them.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
#include "kernels/cpu/tensor_access.h"

namespace bef {
namespace {

using cpu_kernels::CheckF32;
using cpu_kernels::Count;
using cpu_kernels::Elements;
using cpu_kernels::ForEachOutputRowRun;
using cpu_kernels::InputRows;
using cpu_kernels::InputRowsOf;
using cpu_kernels::kMinimumTaskWork;
using cpu_kernels::MaxPoolGeometry;
using cpu_kernels::PoolPadding;
using cpu_kernels::WorkProduct;
using cpu_kernels::WritableElements;

constexpr size_t kMaxRank = 8;

std::string Dims(std::span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

absl::Status CheckRank(const DenseHostTensor& tensor, std::string_view kernel,
                       std::string_view operand) {
  if (tensor.shape().rank() > kMaxRank) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(kernel), ": the ", ToAbsl(operand),
                                                   " has rank ", tensor.shape().rank(),
                                                   ", the kernel takes at most ", kMaxRank));
  }
  return absl::OkStatus();
}

// The f32 checks of a kernel's input and output (any rank).
absl::Status CheckInputAndOutput(const DenseHostTensor& input, const DenseHostTensor& output,
                                 std::string_view kernel) {
  BEF_RETURN_IF_ERROR(CheckF32(input, kernel, "input", 0));
  return CheckF32(output, kernel, "output", 0);
}

// CheckInputAndOutput, and the output has the input's shape (an
// elementwise kernel).
absl::Status CheckSameShapeInputAndOutput(const DenseHostTensor& input,
                                          const DenseHostTensor& output,
                                          std::string_view kernel) {
  BEF_RETURN_IF_ERROR(CheckInputAndOutput(input, output, kernel));
  if (input.shape() != output.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(kernel), ": the output has shape ",
                                                   output.shape().ToString(), ", the input ",
                                                   input.shape().ToString()));
  }
  return absl::OkStatus();
}

// The element strides of `input` read as a tensor of `output`'s rank under
// numpy broadcasting (right-aligned; a dimension of 1 is stride 0), or an
// error when the input does not broadcast to the output's shape.
absl::StatusOr<std::vector<int64_t>> BroadcastStrides(const TensorShape& input,
                                                      const TensorShape& output,
                                                      std::string_view kernel,
                                                      std::string_view operand) {
  const std::vector<int64_t>& in = input.dims();
  const std::vector<int64_t>& out = output.dims();
  std::vector<int64_t> strides(out.size(), 0);
  bool fits = in.size() <= out.size();
  int64_t stride = 1;
  for (size_t k = 0; fits && k < in.size(); ++k) {
    const size_t i = in.size() - 1 - k;
    const size_t o = out.size() - 1 - k;
    if (in[i] == out[o]) {
      strides[o] = in[i] == 1 ? 0 : stride;
    } else if (in[i] != 1) {
      fits = false;
      break;
    }
    // Saturates: an output with no element may have dimensions whose
    // product leaves int64, and its strides are never used.
    stride = WorkProduct({stride, std::max<int64_t>(in[i], 1)});
  }
  if (!fits) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kernel), ": the ", ToAbsl(operand), " of shape ", input.ToString(),
        " does not broadcast to the output's shape ", output.ToString()));
  }
  return strides;
}

// Calls body(output_offset, {input offsets...}, run) for each run of the
// output's last dimension: `run` elements whose inputs advance by their
// last stride. REQUIRES: the output has an element; every strides vector
// has the output's rank.
template <size_t kInputs, typename Body>
void ForEachRow(const std::vector<int64_t>& out,
                const std::array<const std::vector<int64_t>*, kInputs>& strides, Body body) {
  const size_t rank = out.size();
  if (rank == 0) {
    std::array<int64_t, kInputs> offsets{};
    body(int64_t{0}, offsets, int64_t{1});
    return;
  }
  const int64_t run = out[rank - 1];
  std::array<int64_t, kMaxRank> index{};
  std::array<int64_t, kInputs> offsets{};
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= out[d];
  for (int64_t row = 0; row < rows; ++row) {
    body(row * run, offsets, run);
    // The next row: the odometer over dimensions [0, rank - 1).
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < out[d]) {
        for (size_t k = 0; k < kInputs; ++k) offsets[k] += (*strides[k])[d];
        break;
      }
      for (size_t k = 0; k < kInputs; ++k) offsets[k] -= (*strides[k])[d] * (out[d] - 1);
      index[d] = 0;
    }
  }
}

// ---- onnx.transpose.f32

absl::StatusOr<Chain> Transpose(Argument<DenseHostTensor> input, Argument<DenseHostTensor> output,
                                Argument<Chain>, ArrayAttribute<int64_t> perm,
                                HostAllocator* allocator) {
  constexpr std::string_view kKernel = "onnx.transpose.f32";
  BEF_RETURN_IF_ERROR(CheckInputAndOutput(*input, *output, kKernel));
  BEF_RETURN_IF_ERROR(CheckRank(*input, kKernel, "input"));
  const std::vector<int64_t>& in = input->shape().dims();
  const size_t rank = in.size();
  std::vector<int64_t> expected;
  std::vector<bool> seen(rank, false);
  for (int64_t axis : perm.data()) {
    if (axis < 0 || static_cast<size_t>(axis) >= rank || seen[axis]) {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(kKernel), ": perm ", Dims(perm.data()), " is not a permutation of the input's ", rank,
          " axes"));
    }
    seen[axis] = true;
    expected.push_back(in[axis]);
  }
  if (perm.size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kKernel), ": perm ", Dims(perm.data()), " is not a permutation of the input's ", rank,
        " axes"));
  }
  if (output->shape().dims() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kKernel), ": the output has shape ", output->shape().ToString(), ", the input ",
        input->shape().ToString(), " transposed by ", Dims(perm.data()), " is ", Dims(expected)));
  }
  const size_t count = Count(*output);
  if (count == 0) return Chain();
  // The input's stride of each output axis.
  std::vector<int64_t> input_strides(rank);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    input_strides[d] = stride;
    stride *= in[d];
  }
  std::vector<int64_t> strides(rank);
  for (size_t d = 0; d < rank; ++d) strides[d] = input_strides[perm[d]];
  const float* from = Elements<float>(*input);
  BEF_ASSIGN_OR_RETURN(float* to, WritableElements<float>(*output, allocator));
  if (rank < 2) {
    std::copy_n(from, count, to);  // rank 0 or 1: the identity
    return Chain();
  }
  // Planes of the last two output axes, each a double loop (an image's
  // NCHW -> NHWC has 3-element rows: per-row bookkeeping would dominate).
  const int64_t rows = expected[rank - 2], columns = expected[rank - 1];
  const int64_t row_step = strides[rank - 2], column_step = strides[rank - 1];
  std::vector<int64_t> outer(expected.begin(), expected.end() - 1);
  outer.back() = 1;  // ForEachRow's runs: one per plane
  std::vector<int64_t> outer_strides(strides.begin(), strides.end() - 1);
  ForEachRow<1>(outer, {&outer_strides},
                [&](int64_t plane, const std::array<int64_t, 1>& offsets, int64_t) {
                  const float* source = from + offsets[0];
                  float* target = to + plane * rows * columns;
                  for (int64_t r = 0; r < rows; ++r) {
                    const float* in_row = source + r * row_step;
                    float* out_row = target + r * columns;
                    for (int64_t c = 0; c < columns; ++c) out_row[c] = in_row[c * column_step];
                  }
                });
  return Chain();
}

// ---- onnx.reshape.f32

absl::StatusOr<Chain> Reshape(Argument<DenseHostTensor> input, Argument<DenseHostTensor> output,
                              Argument<Chain>, HostAllocator* allocator) {
  constexpr std::string_view kKernel = "onnx.reshape.f32";
  BEF_RETURN_IF_ERROR(CheckInputAndOutput(*input, *output, kKernel));
  if (input->NumElements() != output->NumElements() || input->NumElements() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kKernel), ": the output's shape ", output->shape().ToString(),
        " does not hold the elements of the input's ", input->shape().ToString()));
  }
  const size_t count = Count(*output);
  if (count == 0) return Chain();
  BEF_ASSIGN_OR_RETURN(float* to, WritableElements<float>(*output, allocator));
  std::copy_n(Elements<float>(*input), count, to);
  return Chain();
}

// ---- onnx.broadcast.f32

absl::StatusOr<Chain> Broadcast(Argument<DenseHostTensor> input, Argument<DenseHostTensor> output,
                                Argument<Chain>, HostAllocator* allocator) {
  constexpr std::string_view kKernel = "onnx.broadcast.f32";
  BEF_RETURN_IF_ERROR(CheckInputAndOutput(*input, *output, kKernel));
  BEF_RETURN_IF_ERROR(CheckRank(*output, kKernel, "output"));
  BEF_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                       BroadcastStrides(input->shape(), output->shape(), kKernel, "input"));
  if (Count(*output) == 0) return Chain();
  const float* from = Elements<float>(*input);
  BEF_ASSIGN_OR_RETURN(float* to, WritableElements<float>(*output, allocator));
  const int64_t step = strides.empty() ? 0 : strides.back();
  ForEachRow<1>(output->shape().dims(), {&strides},
                [&](int64_t out, const std::array<int64_t, 1>& offsets, int64_t run) {
                  const float* source = from + offsets[0];
                  for (int64_t i = 0; i < run; ++i) to[out + i] = source[i * step];
                });
  return Chain();
}

// ---- onnx.add/sub/mul/div.f32

struct AddOperation {
  static constexpr std::string_view kKernel = "onnx.add.f32";
  static float Apply(float a, float b) { return a + b; }
};
struct SubOperation {
  static constexpr std::string_view kKernel = "onnx.sub.f32";
  static float Apply(float a, float b) { return a - b; }
};
struct MulOperation {
  static constexpr std::string_view kKernel = "onnx.mul.f32";
  static float Apply(float a, float b) { return a * b; }
};
struct DivOperation {
  static constexpr std::string_view kKernel = "onnx.div.f32";
  static float Apply(float a, float b) { return a / b; }
};

template <typename Operation>
absl::StatusOr<Chain> Elementwise(Argument<DenseHostTensor> a, Argument<DenseHostTensor> b,
                                  Argument<DenseHostTensor> output, Argument<Chain>,
                                  HostAllocator* allocator) {
  constexpr std::string_view kKernel = Operation::kKernel;
  BEF_RETURN_IF_ERROR(CheckF32(*a, kKernel, "first operand", 0));
  BEF_RETURN_IF_ERROR(CheckF32(*b, kKernel, "second operand", 0));
  BEF_RETURN_IF_ERROR(CheckF32(*output, kKernel, "output", 0));
  BEF_RETURN_IF_ERROR(CheckRank(*output, kKernel, "output"));
  const size_t count = Count(*output);
  const float* x = Elements<float>(*a);
  const float* y = Elements<float>(*b);
  if (a->shape() == output->shape() && b->shape() == output->shape()) {
    if (count == 0) return Chain();
    BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, allocator));
    for (size_t i = 0; i < count; ++i) out[i] = Operation::Apply(x[i], y[i]);
    return Chain();
  }
  BEF_ASSIGN_OR_RETURN(std::vector<int64_t> a_strides,
                       BroadcastStrides(a->shape(), output->shape(), kKernel, "first operand"));
  BEF_ASSIGN_OR_RETURN(std::vector<int64_t> b_strides,
                       BroadcastStrides(b->shape(), output->shape(), kKernel, "second operand"));
  if (count == 0) return Chain();
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, allocator));
  const int64_t a_step = a_strides.empty() ? 0 : a_strides.back();
  const int64_t b_step = b_strides.empty() ? 0 : b_strides.back();
  ForEachRow<2>(output->shape().dims(), {&a_strides, &b_strides},
                [&](int64_t at, const std::array<int64_t, 2>& offsets, int64_t run) {
                  const float* p = x + offsets[0];
                  const float* q = y + offsets[1];
                  float* target = out + at;
                  if (a_step == 1 && b_step == 1) {
                    for (int64_t i = 0; i < run; ++i) target[i] = Operation::Apply(p[i], q[i]);
                  } else if (a_step == 1 && b_step == 0) {
                    const float value = *q;
                    for (int64_t i = 0; i < run; ++i) target[i] = Operation::Apply(p[i], value);
                  } else {
                    for (int64_t i = 0; i < run; ++i) {
                      target[i] = Operation::Apply(p[i * a_step], q[i * b_step]);
                    }
                  }
                });
  return Chain();
}

// ---- onnx.clip.f32

absl::StatusOr<Chain> Clip(Argument<DenseHostTensor> input, Argument<DenseHostTensor> output,
                           Argument<Chain>, Attribute<float> max, Attribute<float> min,
                           HostAllocator* allocator) {
  constexpr std::string_view kKernel = "onnx.clip.f32";
  BEF_RETURN_IF_ERROR(CheckSameShapeInputAndOutput(*input, *output, kKernel));
  const size_t count = Count(*output);
  if (count == 0) return Chain();
  const float* from = Elements<float>(*input);
  BEF_ASSIGN_OR_RETURN(float* to, WritableElements<float>(*output, allocator));
  const float low = *min;
  const float high = *max;
  // ONNX: min(max(x, low), high); NaN stays NaN.
  for (size_t i = 0; i < count; ++i) {
    const float x = from[i];
    to[i] = x < low ? low : (x > high ? high : x);
  }
  return Chain();
}

// ---- pooling

// The window, stride and explicit padding of an ONNX pooling over an NHWC
// input, checked against the output's shape.
absl::StatusOr<MaxPoolGeometry> PoolGeometry(const DenseHostTensor& input,
                                             const DenseHostTensor& output,
                                             std::span<const int64_t> kernel_shape,
                                             std::span<const int64_t> pads,
                                             std::span<const int64_t> strides,
                                             std::string_view kernel) {
  BEF_RETURN_IF_ERROR(CheckF32(input, kernel, "input", 4));
  BEF_RETURN_IF_ERROR(CheckF32(output, kernel, "output", 4));
  if (kernel_shape.size() != 2 || pads.size() != 4 || strides.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kernel), ": kernel_shape ", Dims(kernel_shape), ", pads ", Dims(pads), " and strides ",
        Dims(strides), " must have 2, 4 and 2 values"));
  }
  constexpr int64_t kLimit = int64_t{1} << 32;
  for (int64_t value : kernel_shape) {
    if (value < 1 || value > kLimit) {
      return absl::InvalidArgumentError(
          absl::StrCat(ToAbsl(kernel), ": kernel_shape ", Dims(kernel_shape), " must be in [1, 2^32]"));
    }
  }
  for (int64_t value : strides) {
    if (value < 1 || value > kLimit) {
      return absl::InvalidArgumentError(
          absl::StrCat(ToAbsl(kernel), ": strides ", Dims(strides), " must be in [1, 2^32]"));
    }
  }
  for (size_t i = 0; i < 4; ++i) {
    // ONNX: a pad is smaller than its window, so no window is all padding.
    if (pads[i] < 0 || pads[i] >= kernel_shape[i % 2]) {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(kernel), ": pads ", Dims(pads), " must be at least 0 and less than kernel_shape ",
          Dims(kernel_shape)));
    }
  }
  const std::vector<int64_t>& in = input.shape().dims();
  MaxPoolGeometry g{.batch = in[0], .height = in[1], .width = in[2], .channels = in[3],
                    .window_height = kernel_shape[0], .window_width = kernel_shape[1],
                    .stride_height = strides[0], .stride_width = strides[1],
                    .rows = PoolPadding{pads[0], pads[2]},
                    .columns = PoolPadding{pads[1], pads[3]}};
  BEF_ASSIGN_OR_RETURN(g.out_height, cpu_kernels::PooledSize(g.height, g.rows, g.window_height,
                                                             g.stride_height, kernel,
                                                             input.shape()));
  BEF_ASSIGN_OR_RETURN(g.out_width, cpu_kernels::PooledSize(g.width, g.columns, g.window_width,
                                                            g.stride_width, kernel,
                                                            input.shape()));
  const std::vector<int64_t> expected = {g.batch, g.out_height, g.out_width, g.channels};
  if (output.shape().dims() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kernel), ": the output has shape ", output.shape().ToString(), ", the pooling of ",
        input.shape().ToString(), " gives ", Dims(expected)));
  }
  return g;
}

// On oneDNN's max pooling (onednn_api.h), split by output rows over the
// work queue's threads.
absl::StatusOr<Chain> MaxPool(Argument<DenseHostTensor> input, Argument<DenseHostTensor> output,
                              Argument<Chain>, ArrayAttribute<int64_t> kernel_shape,
                              ArrayAttribute<int64_t> pads, ArrayAttribute<int64_t> strides,
                              HostContext* host) {
  BEF_ASSIGN_OR_RETURN(MaxPoolGeometry g,
                       PoolGeometry(*input, *output, kernel_shape.data(), pads.data(),
                                    strides.data(), "onnx.max_pool.f32"));
  if (Count(*output) == 0) return Chain();
  BEF_ASSIGN_OR_RETURN(const BefOneDnnApi* onednn, cpu_kernels::OneDnn());
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, host->allocator()));
  const BefPool2DShape shape{.batch = g.batch, .height = g.height, .width = g.width,
                             .channels = g.channels, .out_height = g.out_height,
                             .out_width = g.out_width, .window_height = g.window_height,
                             .window_width = g.window_width, .stride_height = g.stride_height,
                             .stride_width = g.stride_width, .pad_top = g.rows.before,
                             .pad_bottom = g.rows.after, .pad_left = g.columns.before,
                             .pad_right = g.columns.after};
  const int64_t row_work = std::max<int64_t>(
      1, WorkProduct({g.out_width, g.channels, std::min(g.window_height, g.height),
                      std::min(g.window_width, g.width)}));
  const float* const data = Elements<float>(*input);
  const int64_t image_input = shape.height * shape.width * shape.channels;
  const int64_t row_output = shape.out_width * shape.channels;
  // `count` whole images from `image` on, or output rows [first_row,
  // last_row) of one with the input rows its windows read (output_rows.h).
  const auto pool = [&](int64_t image, int64_t count, int64_t first_row,
                        int64_t last_row) -> absl::Status {
    BefPool2DShape part = shape;
    part.batch = count;
    const float* in = data + image * image_input;
    if (first_row != 0 || last_row != shape.out_height) {
      const InputRows read = InputRowsOf(first_row, last_row, shape.window_height,
                                         shape.stride_height, shape.pad_top, shape.height);
      part.height = read.count;
      part.out_height = last_row - first_row;
      part.pad_top = read.pad_top;
      part.pad_bottom = read.pad_bottom;
      in += read.first * shape.width * shape.channels;
    }
    char error[512];
    if (onednn->max_pool(&part, in, out + (image * shape.out_height + first_row) * row_output,
                         error, sizeof(error)) != 0) {
      return absl::InternalError(error);
    }
    return absl::OkStatus();
  };
  // Rows split only where every window of a part reads an input row (a
  // pad under the window's height; ONNX's pads always are).
  const bool rows_split =
      shape.pad_top < shape.window_height && shape.pad_bottom < shape.window_height;
  const int64_t rows = rows_split ? g.batch * g.out_height : g.batch;
  const int64_t min_block =
      std::max<int64_t>(1, kMinimumTaskWork / (rows_split ? row_work : row_work * g.out_height));
  BEF_RETURN_IF_ERROR(ParallelFor(host, rows, min_block, [&](int64_t begin, int64_t end) {
    if (!rows_split) return pool(begin, end - begin, 0, shape.out_height);
    return ForEachOutputRowRun(
        begin, end, shape.out_height,
        [&](int64_t image, int64_t count) { return pool(image, count, 0, shape.out_height); },
        [&](int64_t image, int64_t first_row, int64_t last_row) {
          return pool(image, 1, first_row, last_row);
        });
  }));
  return Chain();
}

absl::StatusOr<Chain> AveragePool(Argument<DenseHostTensor> input,
                                  Argument<DenseHostTensor> output, Argument<Chain>,
                                  Attribute<int64_t> count_include_pad,
                                  ArrayAttribute<int64_t> kernel_shape,
                                  ArrayAttribute<int64_t> pads, ArrayAttribute<int64_t> strides,
                                  HostAllocator* allocator) {
  BEF_ASSIGN_OR_RETURN(MaxPoolGeometry g,
                       PoolGeometry(*input, *output, kernel_shape.data(), pads.data(),
                                    strides.data(), "onnx.average_pool.f32"));
  if (Count(*output) == 0) return Chain();
  const float* data = Elements<float>(*input);
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(*output, allocator));
  const bool include_pad = *count_include_pad != 0;
  const int64_t positions = g.batch * g.out_height * g.out_width;
  for (int64_t position = 0; position < positions; ++position) {
    const int64_t j = position % g.out_width;
    const int64_t i = position / g.out_width % g.out_height;
    const int64_t n = position / g.out_width / g.out_height;
    float* cell = out + position * g.channels;
    std::fill_n(cell, g.channels, 0.0f);
    const int64_t first_row = i * g.stride_height - g.rows.before;
    const int64_t first_column = j * g.stride_width - g.columns.before;
    const cpu_kernels::WindowRange rows =
        cpu_kernels::ClampWindow(first_row, g.window_height, g.height);
    const cpu_kernels::WindowRange columns =
        cpu_kernels::ClampWindow(first_column, g.window_width, g.width);
    for (int64_t x = rows.begin; x < rows.end; ++x) {
      for (int64_t y = columns.begin; y < columns.end; ++y) {
        const float* pixel =
            data + ((n * g.height + first_row + x) * g.width + first_column + y) * g.channels;
        for (int64_t c = 0; c < g.channels; ++c) cell[c] += pixel[c];
      }
    }
    // With count_include_pad the window counts the padding it covers (not
    // what lies past the padding, as ONNX Runtime counts).
    int64_t divisor;
    if (include_pad) {
      const int64_t row_end = std::min(first_row + g.window_height, g.height + g.rows.after);
      const int64_t column_end =
          std::min(first_column + g.window_width, g.width + g.columns.after);
      divisor = (row_end - first_row) * (column_end - first_column);
    } else {
      divisor = (rows.end - rows.begin) * (columns.end - columns.begin);
    }
    const float scale = 1.0f / static_cast<float>(std::max<int64_t>(divisor, 1));
    for (int64_t c = 0; c < g.channels; ++c) cell[c] *= scale;
  }
  return Chain();
}

// ---- onnx.softmax.f32

absl::StatusOr<Chain> Softmax(Argument<DenseHostTensor> input, Argument<DenseHostTensor> output,
                              Argument<Chain>, Attribute<int64_t> axis,
                              HostAllocator* allocator) {
  constexpr std::string_view kKernel = "onnx.softmax.f32";
  BEF_RETURN_IF_ERROR(CheckSameShapeInputAndOutput(*input, *output, kKernel));
  const std::vector<int64_t>& dims = input->shape().dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (*axis < 0 || *axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(kKernel), ": axis ", *axis,
                                                   " is not an axis of the input's shape ",
                                                   input->shape().ToString()));
  }
  const size_t count = Count(*output);
  if (count == 0) return Chain();
  int64_t inner = 1;
  for (int64_t d = *axis + 1; d < rank; ++d) inner *= dims[d];
  const int64_t length = dims[*axis];
  const int64_t outer = static_cast<int64_t>(count) / (inner * length);
  const float* from = Elements<float>(*input);
  BEF_ASSIGN_OR_RETURN(float* to, WritableElements<float>(*output, allocator));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < inner; ++k) {
      const float* x = from + o * length * inner + k;
      float* y = to + o * length * inner + k;
      float maximum = -std::numeric_limits<float>::infinity();
      for (int64_t i = 0; i < length; ++i) maximum = std::max(maximum, x[i * inner]);
      float sum = 0.0f;
      for (int64_t i = 0; i < length; ++i) {
        y[i * inner] = std::exp(x[i * inner] - maximum);
        sum += y[i * inner];
      }
      const float scale = 1.0f / sum;
      for (int64_t i = 0; i < length; ++i) y[i * inner] *= scale;
    }
  }
  return Chain();
}

// ---- onnx.concat.f32

absl::StatusOr<Chain> Concat(RemainingArguments arguments, Attribute<int64_t> axis,
                             HostAllocator* allocator) {
  constexpr std::string_view kKernel = "onnx.concat.f32";
  // inputs..., output, chain
  if (arguments.size() < 3) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(kKernel), ": takes at least one input, the output and a chain"));
  }
  const size_t inputs = arguments.size() - 2;
  for (size_t i = 0; i <= inputs; ++i) {
    if (!arguments[i]->IsType<DenseHostTensor>()) {
      return absl::InvalidArgumentError(
          absl::StrCat(ToAbsl(kKernel), ": operand ", i, " is not a tensor"));
    }
  }
  DenseHostTensor& output = arguments[inputs]->get<DenseHostTensor>();
  BEF_RETURN_IF_ERROR(CheckF32(output, kKernel, "output", 0));
  const std::vector<int64_t>& out = output.shape().dims();
  const int64_t rank = static_cast<int64_t>(out.size());
  if (*axis < 0 || *axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(kKernel), ": axis ", *axis,
                                                   " is not an axis of the output's shape ",
                                                   output.shape().ToString()));
  }
  int64_t total = 0;
  for (size_t i = 0; i < inputs; ++i) {
    const DenseHostTensor& in = arguments[i]->get<DenseHostTensor>();
    BEF_RETURN_IF_ERROR(CheckF32(in, kKernel, "input", 0));
    const std::vector<int64_t>& dims = in.shape().dims();
    bool fits = static_cast<int64_t>(dims.size()) == rank;
    for (int64_t d = 0; fits && d < rank; ++d) fits = d == *axis || dims[d] == out[d];
    if (!fits || dims[*axis] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(kKernel), ": input ", i, " has shape ", in.shape().ToString(),
          ", which does not fit the output's ", output.shape().ToString(), " along axis ",
          *axis));
    }
    total += dims[*axis];
  }
  if (total != out[*axis]) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kKernel), ": the inputs have ", total, " entries along axis ", *axis,
        ", the output's shape ", output.shape().ToString(), " has ", out[*axis]));
  }
  if (Count(output) == 0) return Chain();
  int64_t inner = 1;
  for (int64_t d = *axis + 1; d < rank; ++d) inner *= out[d];
  const int64_t outer = static_cast<int64_t>(Count(output)) / (inner * out[*axis]);
  BEF_ASSIGN_OR_RETURN(float* to, WritableElements<float>(output, allocator));
  int64_t offset = 0;
  for (size_t i = 0; i < inputs; ++i) {
    const DenseHostTensor& in = arguments[i]->get<DenseHostTensor>();
    const int64_t block = in.shape().dims()[*axis] * inner;
    const float* from = Elements<float>(in);
    for (int64_t o = 0; o < outer; ++o) {
      std::copy_n(from + o * block, block, to + o * out[*axis] * inner + offset);
    }
    offset += block;
  }
  return Chain();
}

void RegisterOnnxKernels(KernelRegistry* registry) {
  registry->AddKernel("onnx.transpose.f32", BEF_KERNEL(Transpose));
  registry->AddKernel("onnx.reshape.f32", BEF_KERNEL(Reshape));
  registry->AddKernel("onnx.broadcast.f32", BEF_KERNEL(Broadcast));
  registry->AddKernel("onnx.add.f32", BEF_KERNEL(Elementwise<AddOperation>));
  registry->AddKernel("onnx.sub.f32", BEF_KERNEL(Elementwise<SubOperation>));
  registry->AddKernel("onnx.mul.f32", BEF_KERNEL(Elementwise<MulOperation>));
  registry->AddKernel("onnx.div.f32", BEF_KERNEL(Elementwise<DivOperation>));
  registry->AddKernel("onnx.clip.f32", BEF_KERNEL(Clip));
  registry->AddKernel("onnx.max_pool.f32", BEF_KERNEL(MaxPool));
  registry->AddKernel("onnx.average_pool.f32", BEF_KERNEL(AveragePool));
  registry->AddKernel("onnx.softmax.f32", BEF_KERNEL(Softmax));
  registry->AddKernel("onnx.concat.f32", BEF_KERNEL(Concat));
}

}  // namespace

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterOnnxKernels, "onnx");

}  // namespace bef
