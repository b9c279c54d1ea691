// Splitting a windowed 2-D operation (a convolution, a pooling) by output
// rows: the geometry the kernels that split share, in one place.
//
// A batch-N operation has N * OH output rows. ParallelFor hands out ranges
// of them; ForEachOutputRowRun turns a range into calls on whole images
// (one call for as many as the range covers) and on a part of one image
// (its rows [first_row, last_row)). A part reads only the input rows its
// windows cover, InputRowsOf says which, and the padding that falls in its
// range becomes the part's own: the part is the same operation on a
// shorter image, so a batch-1 layer splits as a batch-N one does.
#ifndef BEF_KERNELS_CPU_OUTPUT_ROWS_H_
#define BEF_KERNELS_CPU_OUTPUT_ROWS_H_

#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "bef/support/status_macros.h"

namespace bef::cpu_kernels {

// The input rows output rows [first_row, last_row) of one image read, and
// the padding around them: rows [first, first + count) of the image, with
// pad_top rows of padding above and pad_bottom below. count is 0 when
// every window of the part lies in the padding.
struct InputRows {
  int64_t first = 0;
  int64_t count = 0;
  int64_t pad_top = 0;
  int64_t pad_bottom = 0;
};

// For an operation with `window` rows per window, `stride` between
// windows, `pad_top` rows of padding above an image of `height` rows.
inline InputRows InputRowsOf(int64_t first_row, int64_t last_row, int64_t window, int64_t stride,
                             int64_t pad_top, int64_t height) {
  // Rows [read_first, read_last) hold the windows; those outside [0,
  // height) are padding.
  const int64_t read_first = first_row * stride - pad_top;
  const int64_t read_last = (last_row - 1) * stride - pad_top + window;
  const int64_t in_first = std::max<int64_t>(read_first, 0);
  const int64_t in_last = std::min(read_last, height);
  if (in_last <= in_first) return {.first = in_first, .count = 0};
  return {.first = in_first,
          .count = in_last - in_first,
          .pad_top = in_first - read_first,
          .pad_bottom = read_last - in_last};
}

// Covers output rows [begin, end) of the N * `out_height`:
// `images(image, count)` for each run of whole images, `rows(image,
// first_row, last_row)` for each part of one. Stops at the first error.
template <typename Images, typename Rows>
absl::Status ForEachOutputRowRun(int64_t begin, int64_t end, int64_t out_height, Images&& images,
                                 Rows&& rows) {
  while (begin < end) {
    const int64_t image = begin / out_height;
    const int64_t first_row = begin % out_height;
    if (first_row == 0 && end - begin >= out_height) {
      const int64_t count = (end - begin) / out_height;
      BEF_RETURN_IF_ERROR(images(image, count));
      begin += count * out_height;
    } else {
      const int64_t last_row = std::min(out_height, first_row + (end - begin));
      BEF_RETURN_IF_ERROR(rows(image, first_row, last_row));
      begin += last_row - first_row;
    }
  }
  return absl::OkStatus();
}

}  // namespace bef::cpu_kernels

#endif  // BEF_KERNELS_CPU_OUTPUT_ROWS_H_
