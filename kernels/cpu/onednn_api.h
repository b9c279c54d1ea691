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
  // Which algorithms may compute it (one of kBefConvAlgorithm*): a direct
  // sum only, or also one that rounds differently (Winograd's, with
  // relative errors near 1e-6 against a direct sum's) where it is faster.
  int64_t algorithms;
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

enum {
  // A direct sum of products (TFRT's eigen.* kernels: results as TFRT's).
  kBefConvAlgorithmDirect = 0,
  // The faster of the direct convolution and oneDNN's Winograd (3x3
  // filters, stride 1, a bias or an addend as the epilogue), measured once
  // per shape when its primitive is made (ONNX models).
  kBefConvAlgorithmFastest = 1,
  // Winograd wherever oneDNN has it for the shape, unmeasured (tests).
  kBefConvAlgorithmWinogradWhereAvailable = 2,
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
  // primitive for a shape is made once per process, on its first call. The
  // filter is reordered into the layout that primitive wants on every
  // call, unless `prepared` (from prepare_filter, or null) is given: it
  // keeps the filter in each layout its calls have wanted (up to 4: the
  // parts of a split convolution may want a layout of their own, as
  // Winograd's 2x3 and 4x3 kernels do), reordered on the first call that
  // wants it.
  // `epilogue` holds shape->epilogue's vectors (null for none).
  int (*conv2d)(const BefConv2DShape* shape, const float* input, const float* filter,
                const void* prepared, const float* const* epilogue, float* output, char* error,
                size_t error_size);
  // A holder of the filter reordered once per layout, for convolutions of
  // `shape` and of its parts (the same filter, or for a part of a split by
  // output channels, the same range of it): *prepared is set, empty (each
  // layout is reordered by the first conv2d call that wants it), and
  // belongs to the caller until release_filter. Any thread may use it,
  // several at once; `filter` must stay unchanged while it is kept.
  int (*prepare_filter)(const BefConv2DShape* shape, const float* filter, void** prepared,
                        char* error, size_t error_size);
  void (*release_filter)(void* prepared);
  // The oneDNN implementation that computes convolutions of `shape` (its
  // name, as DNNL_VERBOSE prints it: "brgconv:avx512_core",
  // "jit_wino_4x3:avx512_core"), making its primitive if needed; null after
  // a failure, with the message in `error`.
  const char* (*conv2d_implementation)(const BefConv2DShape* shape, char* error, size_t error_size);
  // output [N, OH, OW, C] = max pooling of input [N, H, W, C] for `shape`
  // (a primitive per shape and thread, as for conv2d).
  int (*max_pool)(const BefPool2DShape* shape, const float* input, float* output, char* error,
                  size_t error_size);
};

// The table, with a version in the name: a plugin from another build of the
// interface is not found rather than called wrongly.
const BefOneDnnApi* BefOneDnnApiV5();

}  // extern "C"

#endif  // BEF_KERNELS_CPU_ONEDNN_API_H_
