// The arithmetic of the CPU kernels' convolutions and matrix products, as a
// C interface to oneDNN (chosen by measurement: docs/performance.md
// "Compute libraries").
//
// Debian's oneDNN runs its own threads on OpenMP and links the shared
// libstdc++, libgomp and an OpenCL loader: linking it into the runtime would
// load all of them at every start and start a second thread pool fighting
// the work queue's. So it is reached only through this table, in the
// plugin //kernels/cpu:libbef_onednn.so that kernels/cpu/onednn.h loads on
// the first call. Every call runs on the calling thread alone (the plugin
// sets its OpenMP team to one thread): the kernels split large work over the
// host's work-queue threads and call the plugin once per part.
//
// Only C types cross the interface, so the plugin's libstdc++ and the
// binary's may differ. Every function returns 0, or 1 with a message in
// `error` (NUL-terminated, at most error_size bytes).
#ifndef BEF_KERNELS_CPU_ONEDNN_API_H_
#define BEF_KERNELS_CPU_ONEDNN_API_H_

#include <stddef.h>
#include <stdint.h>

extern "C" {

// A 2-D convolution of NHWC activations with an HWIO filter (TensorFlow's
// Conv2D: cross-correlation, dilation 1), with the padding already
// resolved: out[n, oh, ow, oc] = sum over kh, kw, ic of in[n, oh*SH + kh -
// pad_top, ow*SW + kw - pad_left, ic] * filter[kh, kw, ic, oc], positions
// outside the input contributing 0.
struct BefConv2DShape {
  int64_t batch;
  int64_t height;
  int64_t width;
  int64_t in_channels;
  int64_t filter_height;
  int64_t filter_width;
  int64_t out_channels;
  int64_t out_height;
  int64_t out_width;
  int64_t stride_height;
  int64_t stride_width;
  int64_t pad_top;
  int64_t pad_bottom;
  int64_t pad_left;
  int64_t pad_right;
  // What is applied to each output element as it is written (one of
  // kBefConvEpilogue*), with conv2d's `epilogue` vectors: none; + bias[oc];
  // (x - mean[oc]) * factor[oc] + offset[oc], then max(., 0) for the relu
  // form (TFRT's order of operations, in f32); + bias[oc], + addend (a
  // tensor of the output's shape, the rows of this call), then max(., 0)
  // for the relu forms (ONNX's Conv, Add and Relu of a residual block).
  int64_t epilogue;
  // The filter's extent in its last (output-channel) dimension: 0 for
  // out_channels (a dense filter); more for a convolution of a range of a
  // filter's output channels, `filter` pointing at the range's first.
  int64_t filter_out_channels;
};

enum {
  kBefConvEpilogueNone = 0,
  kBefConvEpilogueBias = 1,               // epilogue = {bias}
  kBefConvEpilogueBatchNorm = 2,          // epilogue = {mean, factor, offset}
  kBefConvEpilogueBatchNormRelu = 3,      // the same, then relu
  kBefConvEpilogueBiasRelu = 4,           // {bias}, then relu
  kBefConvEpilogueBiasAddend = 5,         // {bias, addend}
  kBefConvEpilogueBiasAddendRelu = 6,     // {bias, addend}, then relu
};

// A 2-D max pooling of NHWC activations with explicit padding (positions
// in the padding never enter a maximum).
struct BefPool2DShape {
  int64_t batch;
  int64_t height;
  int64_t width;
  int64_t channels;
  int64_t out_height;
  int64_t out_width;
  int64_t window_height;
  int64_t window_width;
  int64_t stride_height;
  int64_t stride_width;
  int64_t pad_top;
  int64_t pad_bottom;
  int64_t pad_left;
  int64_t pad_right;
};

struct BefOneDnnApi {
  // C = alpha * A * B + beta * C for row-major A [m, k], B [k, n], C [m,
  // n] with leading dimensions lda, ldb, ldc (BLAS semantics: beta == 0
  // does not read C).
  int (*sgemm)(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
               const float* b, int64_t ldb, float beta, float* c, int64_t ldc, char* error,
               size_t error_size);
  // output = conv2d(input, filter) for `shape` (input [N, H, W, IC],
  // filter [KH, KW, IC, OC], output [N, OH, OW, OC], all dense). The
  // primitive for a shape is made once per thread. The filter is
  // reordered into the layout the fastest implementation wants on every
  // call, unless `prepared` (from prepare_filter, or null) holds it in
  // that layout already.
  // `epilogue` holds shape->epilogue's vectors (null for none).
  int (*conv2d)(const BefConv2DShape* shape, const float* input, const float* filter,
                const void* prepared, const float* const* epilogue, float* output, char* error,
                size_t error_size);
  // The filter reordered once, for convolutions of `shape` and of shapes
  // whose primitive wants the same layout (the parts of one split
  // convolution): *prepared is set, and belongs to the caller until
  // release_filter. Any thread may use it, several at once.
  int (*prepare_filter)(const BefConv2DShape* shape, const float* filter, void** prepared,
                        char* error, size_t error_size);
  void (*release_filter)(void* prepared);
  // output [N, OH, OW, C] = max pooling of input [N, H, W, C] for `shape`
  // (a primitive per shape and thread, as for conv2d).
  int (*max_pool)(const BefPool2DShape* shape, const float* input, float* output, char* error,
                  size_t error_size);
};

// The table, with a version in the name: a plugin from another build of the
// interface is not found rather than called wrongly.
const BefOneDnnApi* BefOneDnnApiV4();

}  // extern "C"

#endif  // BEF_KERNELS_CPU_ONEDNN_API_H_
