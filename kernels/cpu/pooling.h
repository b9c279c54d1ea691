// What the two max-pooling kernels (tfrt_test.max_pooling_2d.f32 and
// eigen.max_pooling_2d.f32) and the two zero-padding kernels share: TFRT
// gives each pair one window arithmetic and one value and differs only in
// attribute types, checks and texts, so the arithmetic is written once,
// here (../shared/spec/cpu-kernels.md §3.1, §3.4, §4.5, §4.6).
//
// Layout NHWC. Every loop is bounded by the elements it reads or writes,
// never by a bare dimension (a tensor with no element may have dimensions
// of 2^42), and pooling windows are clamped to the input before they are
// walked (a window may be 2^32 wide).
#ifndef BEF_KERNELS_CPU_POOLING_H_
#define BEF_KERNELS_CPU_POOLING_H_

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <span>
#include <string_view>

#include "absl/status/statusor.h"
#include "bef/tensor/dense_host_tensor.h"
#include "kernels/cpu/tensor_access.h"

namespace bef::cpu_kernels {

// "Pool padding" (§3.1): the rows (or columns) added before and after an
// input of `size` for windows of `window` every `stride`. `same` pads
// window - stride when the stride divides the size, else window - (size mod
// stride), split with the larger half after; the total is not clamped at 0.
struct PoolPadding {
  int64_t before = 0;
  int64_t after = 0;
};
inline PoolPadding SamePoolPadding(int64_t size, int64_t window, int64_t stride) {
  const int64_t total = size % stride == 0 ? window - stride : window - size % stride;
  return PoolPadding{static_cast<int64_t>(total / 2.0),
                     static_cast<int64_t>(total / 2.0 + 0.5)};
}

// The pooled size (size + before + after - window) / stride + 1, in 128 bits.
inline absl::StatusOr<int64_t> PooledSize(int64_t size, PoolPadding padding, int64_t window,
                                          int64_t stride, std::string_view kernel,
                                          const TensorShape& input) {
  const __int128 span = static_cast<__int128>(size) + padding.before + padding.after - window;
  return DerivedDimension(span / stride + 1, kernel, input);
}

// A max pooling of input [N, H, W, C] into output [N, OH, OW, C].
struct MaxPoolGeometry {
  int64_t batch, height, width, channels;
  int64_t out_height, out_width;
  int64_t window_height, window_width;  // at least 0, at most 2^32
  int64_t stride_height, stride_width;  // at least 1, at most 2^32
  PoolPadding rows, columns;
};

// The window offsets [begin, end) of a window starting at `first` (an
// input row or column, possibly before 0) that fall inside [0, size).
struct WindowRange {
  int64_t begin;
  int64_t end;
};
inline WindowRange ClampWindow(int64_t first, int64_t window, int64_t size) {
  const int64_t begin = first < 0 ? std::min(window, -first) : 0;
  if (first >= size) return WindowRange{begin, begin};
  // size - first in unsigned arithmetic: first > -2^33 and size < 2^63.
  const uint64_t inside = static_cast<uint64_t>(size) - static_cast<uint64_t>(first);
  return WindowRange{begin, static_cast<int64_t>(std::min<uint64_t>(window, inside))};
}

// Output positions [first, last) of the N * OH * OW, each a vector of C
// channels: the maximum of the window's elements inside the input, from
// FLT_MIN (TFRT's initial value: a window of values at most FLT_MIN, or of
// padding only, gives FLT_MIN). REQUIRES: the output has an element (then
// i * stride <= size + padding - window fits).
inline void MaxPoolPositions(const MaxPoolGeometry& g, const float* input, float* output,
                             int64_t first, int64_t last) {
  const int64_t channels = g.channels;
  for (int64_t position = first; position < last; ++position) {
    const int64_t j = position % g.out_width;
    const int64_t i = position / g.out_width % g.out_height;
    const int64_t n = position / g.out_width / g.out_height;
    float* __restrict cell = output + position * channels;
    for (int64_t c = 0; c < channels; ++c) cell[c] = FLT_MIN;
    const int64_t first_row = i * g.stride_height - g.rows.before;
    const int64_t first_column = j * g.stride_width - g.columns.before;
    const WindowRange rows = ClampWindow(first_row, g.window_height, g.height);
    const WindowRange columns = ClampWindow(first_column, g.window_width, g.width);
    for (int64_t x = rows.begin; x < rows.end; ++x) {
      for (int64_t y = columns.begin; y < columns.end; ++y) {
        const float* __restrict pixel =
            input + ((n * g.height + first_row + x) * g.width + first_column + y) * channels;
        // The current value first: a NaN input never replaces it (TFRT's
        // comparison); written so that it vectorises (maxps).
        for (int64_t c = 0; c < channels; ++c) {
          cell[c] = pixel[c] > cell[c] ? pixel[c] : cell[c];
        }
      }
    }
  }
}

// The two zero-padding kernels: output = input [N, H, W, C] with PH zero
// rows above and below and PW zero columns left and right, `padding` = [PH,
// PW] (i32 or i64; both kernels read each value as 32 bits), when output
// has TFRT's expected shape; else "ZeroPadding output shape <output> does
// not match the expected output shape <expected>" (fixed shapes).
template <typename T>
absl::Status ZeroPad(const DenseHostTensor& input, DenseHostTensor& output,
                     std::span<const T> padding, std::string_view kernel,
                     HostAllocator* allocator) {
  BEF_RETURN_IF_ERROR(CheckF32(input, kernel, "input", 4));
  BEF_RETURN_IF_ERROR(CheckF32(output, kernel, "output", 4));
  if (padding.size() != 2) {
    return absl::InvalidArgumentError("ZeroPadding expects padding of length 2");
  }
  const int32_t pad_rows = static_cast<int32_t>(padding[0]);
  const int32_t pad_columns = static_cast<int32_t>(padding[1]);
  const std::vector<int64_t>& in = input.shape().dims();
  BEF_ASSIGN_OR_RETURN(int64_t out_height,
                       DerivedDimension(static_cast<__int128>(in[1]) + 2 * int64_t{pad_rows},
                                        kernel, input.shape()));
  BEF_ASSIGN_OR_RETURN(int64_t out_width,
                       DerivedDimension(static_cast<__int128>(in[2]) + 2 * int64_t{pad_columns},
                                        kernel, input.shape()));
  const std::vector<int64_t> expected = {in[0], out_height, out_width, in[3]};
  if (output.shape().dims() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ZeroPadding output shape ", FixedShapeText(output.shape()),
        " does not match the expected output shape ", FixedShapeText(expected)));
  }
  if (pad_rows < 0 || pad_columns < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(kernel), ": the padding must not be negative"));
  }
  BEF_ASSIGN_OR_RETURN(float* out, WritableElements<float>(output, allocator));
  std::fill_n(out, Count(output), 0.0f);
  if (Count(input) == 0) return absl::OkStatus();
  const float* data = Elements<float>(input);
  const int64_t row = in[2] * in[3];
  for (int64_t n = 0; n < in[0]; ++n) {
    for (int64_t h = 0; h < in[1]; ++h) {
      std::copy_n(data + (n * in[1] + h) * row, row,
                  out + ((n * out_height + h + pad_rows) * out_width + pad_columns) * in[3]);
    }
  }
  return absl::OkStatus();
}

}  // namespace bef::cpu_kernels

#endif  // BEF_KERNELS_CPU_POOLING_H_
