// The plugin libbef_onednn.so: onednn_api.h's table on oneDNN 2.6.
//
// The primitives (one per convolution shape, made on the shape's first call
// by any thread: oneDNN generates its code then) are shared; each thread
// keeps its own scratchpad and buffers (a filter reordered per call, a
// Winograd convolution's blocked activations), so calls from different
// work-queue threads take no lock once their shape is known to them; a
// prepared filter is read without one once it holds the call's layout. oneDNN
// reports failures as exceptions (dnnl::error); they stay inside the plugin
// and come out as messages.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "kernels/cpu/onednn_api.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace {

// One OpenMP thread for the calling thread: the runtime splits work over
// its own threads. omp_set_num_threads sets the calling thread's value.
void OneThread() {
  thread_local bool set = false;
  if (!set) {
    omp_set_num_threads(1);
    set = true;
  }
}

int Fail(char* error, size_t error_size, const char* what, const char* detail) {
  if (error_size > 0) std::snprintf(error, error_size, "oneDNN %s: %s", what, detail);
  return 1;
}

int Sgemm(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc, char* error,
          size_t error_size) {
  OneThread();
  const dnnl_status_t status = dnnl_sgemm('N', 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (status != dnnl_success) return Fail(error, error_size, "sgemm", "failed");
  return 0;
}

// Hash and equality for a shape struct made only of int64_t fields (no
// padding, so its bytes are its value): the keys of the primitive caches.
template <typename Shape>
struct Int64FieldsHash {
  static_assert(sizeof(Shape) % sizeof(int64_t) == 0 &&
                std::has_unique_object_representations_v<Shape>);
  size_t operator()(const Shape& shape) const {
    int64_t fields[sizeof(Shape) / sizeof(int64_t)];
    std::memcpy(fields, &shape, sizeof(shape));
    size_t hash = 0;
    for (int64_t field : fields) hash = hash * 1000003u ^ static_cast<size_t>(field);
    return hash;
  }
};
template <typename Shape>
struct Int64FieldsEqual {
  bool operator()(const Shape& a, const Shape& b) const {
    return std::memcmp(&a, &b, sizeof(a)) == 0;
  }
};

// A reorder primitive with a scratchpad its caller brings: with oneDNN's
// own (per primitive), two threads running one reorder at once corrupt each
// other's data (Winograd's filter reorder uses one: a ResNet's filters
// came out wrong on `mstd:2`, where the two parts of a convolution split
// by output channels share a shape).
struct Reorder {
  dnnl::reorder primitive;
  size_t scratchpad_size = 0;

  Reorder() = default;
  Reorder(const dnnl::engine& engine, const dnnl::memory::desc& from,
          const dnnl::memory::desc& to) {
    dnnl::primitive_attr attributes;
    attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::reorder::primitive_desc description(engine, from, engine, to, attributes);
    scratchpad_size = description.scratchpad_desc().get_size();
    primitive = dnnl::reorder(description);
  }
};

// A convolution of one shape, ready to run (on any thread, with its own
// scratchpad and buffers).
struct Convolution {
  dnnl::convolution_forward primitive;
  std::string implementation;       // oneDNN's name for it (DNNL_VERBOSE's)
  dnnl::memory::desc source;        // NHWC, the caller's
  dnnl::memory::desc destination;   // NHWC, the caller's
  dnnl::memory::desc user_weights;  // HWIO
  dnnl::memory::desc weights;       // what the primitive wants
  Reorder weights_reorder;          // HWIO -> weights, when they differ
  bool reorder_weights = false;
  // Nonzero: the filter is a range of one with this many output channels,
  // packed into a dense HWIO filter before weights_reorder.
  int64_t filter_pitch = 0;
  size_t scratchpad_size = 0;
  int epilogue_vectors = 0;  // binary post-ops, in order, from epilogue[0]
  // epilogue[0] is the primitive's bias argument (Winograd's kernels take
  // no binary post-op).
  bool bias_argument = false;
  // An addend of the output's shape is a sum post-op: copied into the
  // output first (unless it is the output), then added as each block is
  // written. As a binary post-op of the output's shape, oneDNN 2.6 falls
  // back from its brgemm convolutions to an older kernel, 10-25% slower
  // on ResNet's 14x14 and 7x7 layers (DNNL_VERBOSE, this VM).
  bool addend_in_destination = false;
  dnnl::memory::desc channel_vector;  // [1, OC, 1, 1]
  dnnl::memory::desc bias;            // [OC]
  // Winograd's kernels take blocked activations (nChw16c), not NHWC: the
  // source is reordered into a thread's buffer before the call (an addend
  // into the destination's), the result out of one after. Measured with
  // the reorders, Winograd is still 1.3-2.4x faster than the direct NHWC
  // kernel on ResNet's 3x3 layers (docs/performance.md).
  bool blocked = false;
  dnnl::memory::desc blocked_source, blocked_destination;
  Reorder source_to_blocked, destination_to_blocked, blocked_to_destination;
};

// A max pooling of one shape, ready to run (the same).
struct Pooling {
  dnnl::pooling_forward primitive;
  dnnl::memory::desc source;
  dnnl::memory::desc destination;
  size_t scratchpad_size = 0;
};

// The primitives, made once per shape for the process: any thread runs
// them (oneDNN's primitives are thread-safe to execute when each execution
// brings its own scratchpad, as here). Made per thread before, a kernel
// split over the work queue's threads made each shape's parts again on
// every thread that happened to run one, in a model's first runs (a
// ResNet-18 on `mstd:2`, 8 runs: 74 creations answered from oneDNN's own
// cache beside the 55 new ones, each a primitive descriptor built again;
// now 31, the filter reorders convolutions of different shapes share).
// Never destroyed: threads may call in while the process exits.
struct Primitives;
Primitives& Shared();

// What a thread keeps: its stream, its view of the shared primitives (no
// lock once a shape is known here), its scratchpad and reorder buffer.
struct ThreadState {
  dnnl::engine& engine;
  dnnl::stream stream{engine};
  std::unordered_map<BefConv2DShape, Convolution*, Int64FieldsHash<BefConv2DShape>,
                     Int64FieldsEqual<BefConv2DShape>>
      convolutions;
  std::unordered_map<BefPool2DShape, Pooling*, Int64FieldsHash<BefPool2DShape>,
                     Int64FieldsEqual<BefPool2DShape>>
      poolings;
  std::vector<float> weights;  // the reordered filter of the current call
  std::vector<unsigned char> scratchpad;
  // A blocked convolution's activations (Convolution::blocked).
  std::vector<float> blocked_source, blocked_destination;
};

struct Primitives {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  std::mutex mutex;  // guards the maps (a lookup, a creation)
  std::unordered_map<BefConv2DShape, std::unique_ptr<Convolution>,
                     Int64FieldsHash<BefConv2DShape>, Int64FieldsEqual<BefConv2DShape>>
      convolutions;
  std::unordered_map<BefPool2DShape, std::unique_ptr<Pooling>, Int64FieldsHash<BefPool2DShape>,
                     Int64FieldsEqual<BefPool2DShape>>
      poolings;
};

Primitives& Shared() {
  static Primitives* const primitives = new Primitives;
  return *primitives;
}

ThreadState& State() {
  thread_local ThreadState state{Shared().engine};
  return state;
}

// The parts of a convolution every algorithm shares: the caller's layouts
// (NHWC activations, an HWIO filter or a range of one's output channels)
// and the epilogue's vector layouts.
std::unique_ptr<Convolution> NewConvolution(const BefConv2DShape& shape) {
  using dnnl::memory;
  using tag = memory::format_tag;
  auto convolution = std::make_unique<Convolution>();
  const memory::dims source_dims = {shape.batch, shape.in_channels, shape.height, shape.width};
  const memory::dims weights_dims = {shape.out_channels, shape.in_channels, shape.filter_height,
                                     shape.filter_width};
  const memory::dims destination_dims = {shape.batch, shape.out_channels, shape.out_height,
                                         shape.out_width};
  convolution->source = memory::desc(source_dims, memory::data_type::f32, tag::nhwc);
  convolution->destination = memory::desc(destination_dims, memory::data_type::f32, tag::nhwc);
  if (shape.filter_out_channels > shape.out_channels) {
    // A range of a larger filter's output channels: HWIO with its pitch.
    const int64_t pitch = shape.filter_out_channels;
    convolution->user_weights =
        memory::desc(weights_dims, memory::data_type::f32,
                     memory::dims{1, pitch, shape.filter_width * shape.in_channels * pitch,
                                  shape.in_channels * pitch});
  } else {
    convolution->user_weights = memory::desc(weights_dims, memory::data_type::f32, tag::hwio);
  }
  convolution->channel_vector =
      memory::desc({1, shape.out_channels, 1, 1}, memory::data_type::f32, tag::nchw);
  convolution->bias = memory::desc({shape.out_channels}, memory::data_type::f32, tag::a);
  return convolution;
}

// The description of `shape`'s convolution by `algorithm`, its filter and
// (with `any_activations`) its activations in whatever layout the
// implementation wants; with `bias`, a bias argument.
dnnl::convolution_forward::desc Describe(const BefConv2DShape& shape,
                                         const Convolution& convolution, dnnl::algorithm algorithm,
                                         bool any_activations, bool bias) {
  using dnnl::memory;
  const memory::desc any_weights(convolution.user_weights.dims(), memory::data_type::f32,
                                 memory::format_tag::any);
  const memory::desc source =
      any_activations
          ? memory::desc(convolution.source.dims(), memory::data_type::f32, memory::format_tag::any)
          : convolution.source;
  const memory::desc destination =
      any_activations ? memory::desc(convolution.destination.dims(), memory::data_type::f32,
                                     memory::format_tag::any)
                      : convolution.destination;
  const memory::dims strides = {shape.stride_height, shape.stride_width};
  const memory::dims padding_before = {shape.pad_top, shape.pad_left};
  const memory::dims padding_after = {shape.pad_bottom, shape.pad_right};
  if (bias) {
    return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm, source,
                                           any_weights, convolution.bias, destination, strides,
                                           padding_before, padding_after);
  }
  return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm, source,
                                         any_weights, destination, strides, padding_before,
                                         padding_after);
}

// Fills in what the primitive description decided: the primitive, its
// filter layout (and the reorder into it), its scratchpad.
void Finish(const BefConv2DShape& shape, Convolution& convolution,
            const dnnl::convolution_forward::primitive_desc& primitive_description,
            const dnnl::engine& engine) {
  convolution.implementation = primitive_description.impl_info_str();
  convolution.weights = primitive_description.weights_desc();
  convolution.scratchpad_size = primitive_description.scratchpad_desc().get_size();
  convolution.primitive = dnnl::convolution_forward(primitive_description);
  if (convolution.weights == convolution.user_weights) return;
  convolution.reorder_weights = true;
  try {
    convolution.weights_reorder = Reorder(engine, convolution.user_weights, convolution.weights);
  } catch (const dnnl::error&) {
    if (shape.filter_out_channels <= shape.out_channels) throw;
    // oneDNN 2.6 reorders no strided filter into Winograd's layout: the
    // range is packed into a dense HWIO filter first.
    convolution.filter_pitch = shape.filter_out_channels;
    convolution.weights_reorder =
        Reorder(engine,
                dnnl::memory::desc(convolution.user_weights.dims(), dnnl::memory::data_type::f32,
                                   dnnl::memory::format_tag::hwio),
                convolution.weights);
  }
}

bool EndsInRelu(int64_t epilogue) {
  return epilogue == kBefConvEpilogueBatchNormRelu || epilogue == kBefConvEpilogueBiasRelu ||
         epilogue == kBefConvEpilogueBiasAddendRelu;
}

// The direct convolution of `shape` on NHWC activations (oneDNN's brgemm
// kernels on AVX-512), its epilogue as post-ops applied while each output
// block is in registers (no second pass over the output): per-channel
// vectors broadcast over N, H and W.
std::unique_ptr<Convolution> MakeDirect(const BefConv2DShape& shape, const dnnl::engine& engine) {
  std::unique_ptr<Convolution> convolution = NewConvolution(shape);
  dnnl::post_ops post_ops;
  switch (shape.epilogue) {
    case kBefConvEpilogueNone:
      break;
    case kBefConvEpilogueBias:
    case kBefConvEpilogueBiasRelu:
      post_ops.append_binary(dnnl::algorithm::binary_add, convolution->channel_vector);
      convolution->epilogue_vectors = 1;
      break;
    case kBefConvEpilogueBatchNorm:
    case kBefConvEpilogueBatchNormRelu:
      post_ops.append_binary(dnnl::algorithm::binary_sub, convolution->channel_vector);
      post_ops.append_binary(dnnl::algorithm::binary_mul, convolution->channel_vector);
      post_ops.append_binary(dnnl::algorithm::binary_add, convolution->channel_vector);
      convolution->epilogue_vectors = 3;
      break;
    case kBefConvEpilogueBiasAddend:
    case kBefConvEpilogueBiasAddendRelu:
      post_ops.append_binary(dnnl::algorithm::binary_add, convolution->channel_vector);
      post_ops.append_sum(1.0f);
      convolution->epilogue_vectors = 1;
      convolution->addend_in_destination = true;
      break;
    default:
      throw std::invalid_argument("unknown convolution epilogue");
  }
  if (EndsInRelu(shape.epilogue)) {
    post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  }
  dnnl::primitive_attr attributes;
  attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attributes.set_post_ops(post_ops);
  Finish(shape, *convolution,
         dnnl::convolution_forward::primitive_desc(
             Describe(shape, *convolution, dnnl::algorithm::convolution_direct,
                      /*any_activations=*/false, /*bias=*/false),
             attributes, engine),
         engine);
  return convolution;
}

// Winograd's convolution of `shape` (blocked activations, reordered around
// the call), or null where oneDNN has none: a 3x3 filter at stride 1, no
// epilogue or a bias (an addend, relu: a bias argument and sum and eltwise
// post-ops; Winograd's kernels take no binary post-op), and a kernel for
// the CPU and shape (oneDNN 2.6: AVX-512, channels in multiples of 16).
std::unique_ptr<Convolution> MakeWinograd(const BefConv2DShape& shape, const dnnl::engine& engine) {
  if (shape.filter_height != 3 || shape.filter_width != 3 || shape.stride_height != 1 ||
      shape.stride_width != 1) {
    return nullptr;
  }
  std::unique_ptr<Convolution> convolution = NewConvolution(shape);
  dnnl::post_ops post_ops;
  switch (shape.epilogue) {
    case kBefConvEpilogueNone:
      break;
    case kBefConvEpilogueBias:
    case kBefConvEpilogueBiasRelu:
      convolution->bias_argument = true;
      break;
    case kBefConvEpilogueBiasAddend:
    case kBefConvEpilogueBiasAddendRelu:
      convolution->bias_argument = true;
      convolution->addend_in_destination = true;
      post_ops.append_sum(1.0f);
      break;
    default:
      return nullptr;  // batch norm: three vectors, as binary post-ops only
  }
  if (EndsInRelu(shape.epilogue)) {
    post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  }
  dnnl::primitive_attr attributes;
  attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attributes.set_post_ops(post_ops);
  try {
    const dnnl::convolution_forward::primitive_desc chosen(
        Describe(shape, *convolution, dnnl::algorithm::convolution_winograd,
                 /*any_activations=*/true, convolution->bias_argument),
        attributes, engine);
    Finish(shape, *convolution, chosen, engine);
    convolution->blocked = true;
    convolution->blocked_source = chosen.src_desc();
    convolution->blocked_destination = chosen.dst_desc();
    convolution->source_to_blocked =
        Reorder(engine, convolution->source, convolution->blocked_source);
    convolution->destination_to_blocked =
        Reorder(engine, convolution->destination, convolution->blocked_destination);
    convolution->blocked_to_destination =
        Reorder(engine, convolution->blocked_destination, convolution->destination);
  } catch (const dnnl::error&) {
    return nullptr;  // no Winograd kernel (or reorder for it) for this CPU and shape
  }
  return convolution;
}

// The thread's scratchpad as a primitive's argument, if it needs one.
void AddScratchpad(size_t bytes, ThreadState& state,
                   std::unordered_map<int, dnnl::memory>& arguments) {
  if (bytes == 0) return;
  if (state.scratchpad.size() < bytes) state.scratchpad.resize(bytes);
  arguments.emplace(
      DNNL_ARG_SCRATCHPAD,
      dnnl::memory(dnnl::memory::desc({static_cast<int64_t>(bytes)}, dnnl::memory::data_type::u8,
                                      dnnl::memory::format_tag::x),
                   state.engine, state.scratchpad.data()));
}

// Runs `reorder` from `from` into `to` on this thread.
void Run(const Reorder& reorder, ThreadState& state, const dnnl::memory& from,
         const dnnl::memory& to) {
  std::unordered_map<int, dnnl::memory> arguments = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  AddScratchpad(reorder.scratchpad_size, state, arguments);
  reorder.primitive.execute(state.stream, arguments);
}

float* Grown(std::vector<float>& buffer, const dnnl::memory::desc& layout) {
  const size_t floats = layout.get_size() / sizeof(float) + 1;
  if (buffer.size() < floats) buffer.resize(floats);
  return buffer.data();
}

// Runs `convolution` on this thread with `weights` in its layout.
void Execute(const Convolution& convolution, ThreadState& state, const float* input,
             const dnnl::memory& weights, const float* const* epilogue, float* output) {
  dnnl::memory source(convolution.source, state.engine, const_cast<float*>(input));
  dnnl::memory destination(convolution.destination, state.engine, output);
  std::unordered_map<int, dnnl::memory> arguments = {{DNNL_ARG_WEIGHTS, weights}};
  for (int i = 0; i < convolution.epilogue_vectors; ++i) {
    arguments.emplace(
        DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1,
        dnnl::memory(convolution.channel_vector, state.engine, const_cast<float*>(epilogue[i])));
  }
  if (convolution.bias_argument) {
    arguments.emplace(DNNL_ARG_BIAS, dnnl::memory(convolution.bias, state.engine,
                                                  const_cast<float*>(epilogue[0])));
  }
  dnnl::memory blocked_destination;
  if (convolution.blocked) {
    dnnl::memory blocked_source(convolution.blocked_source, state.engine,
                                Grown(state.blocked_source, convolution.blocked_source));
    blocked_destination =
        dnnl::memory(convolution.blocked_destination, state.engine,
                     Grown(state.blocked_destination, convolution.blocked_destination));
    Run(convolution.source_to_blocked, state, source, blocked_source);
    if (convolution.addend_in_destination) {
      dnnl::memory addend(convolution.destination, state.engine, const_cast<float*>(epilogue[1]));
      Run(convolution.destination_to_blocked, state, addend, blocked_destination);
    }
    arguments.emplace(DNNL_ARG_SRC, blocked_source);
    arguments.emplace(DNNL_ARG_DST, blocked_destination);
  } else {
    if (convolution.addend_in_destination && epilogue[1] != output) {
      std::memmove(output, epilogue[1], convolution.destination.get_size());
    }
    arguments.emplace(DNNL_ARG_SRC, source);
    arguments.emplace(DNNL_ARG_DST, destination);
  }
  AddScratchpad(convolution.scratchpad_size, state, arguments);
  convolution.primitive.execute(state.stream, arguments);
  if (convolution.blocked) {
    Run(convolution.blocked_to_destination, state, blocked_destination, destination);
  }
  state.stream.wait();
}

// Whether `winograd` runs faster than `direct` here: each run 4 times on
// zeros, alternating (the arithmetic's time does not depend on the
// values), the fastest of each compared. A few milliseconds, once per
// shape; ResNet-18's 3x3 layers on an AVX-512 VM: Winograd 1.3-2.4x faster
// on all but the 7x7 layers split by output channels, 3x slower there.
bool WinogradIsFaster(const Convolution& winograd, const Convolution& direct, ThreadState& state) {
  std::vector<float> input(direct.source.get_size() / sizeof(float));
  std::vector<float> output(direct.destination.get_size() / sizeof(float));
  std::vector<float> addend(output.size());
  std::vector<float> vector(direct.bias.get_size() / sizeof(float));
  std::vector<float> winograd_weights(winograd.weights.get_size() / sizeof(float) + 1);
  std::vector<float> direct_weights(direct.weights.get_size() / sizeof(float) + 1);
  const float* epilogue[3] = {vector.data(), addend.data(), vector.data()};
  double fastest[2] = {1e30, 1e30};
  for (int round = 0; round < 4; ++round) {
    for (int which = 0; which < 2; ++which) {
      const Convolution& convolution = which == 0 ? direct : winograd;
      dnnl::memory weights(convolution.weights, state.engine,
                           which == 0 ? direct_weights.data() : winograd_weights.data());
      const auto start = std::chrono::steady_clock::now();
      Execute(convolution, state, input.data(), weights, epilogue, output.data());
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fastest[which] = std::min(fastest[which], seconds);
    }
  }
  return fastest[1] < fastest[0];
}

// The convolution of `shape` by the algorithm shape.algorithms allows and
// (kBefConvAlgorithmFastest) measures faster.
std::unique_ptr<Convolution> MakeConvolution(const BefConv2DShape& shape,
                                             const dnnl::engine& engine, ThreadState& state) {
  if (shape.algorithms == kBefConvAlgorithmDirect) return MakeDirect(shape, engine);
  std::unique_ptr<Convolution> winograd = MakeWinograd(shape, engine);
  if (winograd == nullptr) return MakeDirect(shape, engine);
  if (shape.algorithms == kBefConvAlgorithmWinogradWhereAvailable) return winograd;
  std::unique_ptr<Convolution> direct = MakeDirect(shape, engine);
  return WinogradIsFaster(*winograd, *direct, state) ? std::move(winograd) : std::move(direct);
}

// The convolution of `shape`, made on its first use by any thread.
Convolution& ConvolutionOf(const BefConv2DShape& shape, ThreadState& state) {
  Convolution*& known = state.convolutions[shape];
  if (known == nullptr) {
    Primitives& shared = Shared();
    std::lock_guard<std::mutex> lock(shared.mutex);
    std::unique_ptr<Convolution>& slot = shared.convolutions[shape];
    if (slot == nullptr) slot = MakeConvolution(shape, shared.engine, state);
    known = slot.get();
  }
  return *known;
}

// `filter` (in the convolution's user layout) in the convolution's layout.
void ReorderFilter(const Convolution& convolution, ThreadState& state, const float* filter,
                   float* into) {
  if (!convolution.reorder_weights) {
    std::memcpy(into, filter, convolution.weights.get_size());
    return;
  }
  std::vector<float> packed;
  if (convolution.filter_pitch != 0) {
    const dnnl::memory::dims dims = convolution.user_weights.dims();  // OC, IC, KH, KW
    const int64_t out_channels = dims[0];
    const int64_t rows = dims[1] * dims[2] * dims[3];
    packed.resize(rows * out_channels);
    for (int64_t row = 0; row < rows; ++row) {
      std::memcpy(packed.data() + row * out_channels, filter + row * convolution.filter_pitch,
                  out_channels * sizeof(float));
    }
    filter = packed.data();
  }
  dnnl::memory user_weights(
      convolution.filter_pitch != 0
          ? dnnl::memory::desc(convolution.user_weights.dims(), dnnl::memory::data_type::f32,
                               dnnl::memory::format_tag::hwio)
          : convolution.user_weights,
      state.engine, const_cast<float*>(filter));
  dnnl::memory weights(convolution.weights, state.engine, into);
  Run(convolution.weights_reorder, state, user_weights, weights);
  state.stream.wait();
}

// A filter in the layouts its convolutions want, each reordered by the
// first call that wants it (prepare_filter makes an empty one). A call
// finds its layout without a lock: a layout is published (count's release
// store) only once written, and never changes or goes while the filter is
// prepared.
class PreparedFilter {
 public:
  // The filter in `convolution`'s layout, reordered from `filter` now if
  // no call has wanted it yet; null when kLayouts are kept already.
  const float* In(const Convolution& convolution, ThreadState& state, const float* filter) {
    if (const float* found = Find(convolution.weights)) return found;
    std::lock_guard<std::mutex> lock(mutex_);
    if (const float* found = Find(convolution.weights)) return found;
    const int count = count_.load(std::memory_order_relaxed);
    if (count == kLayouts) return nullptr;
    auto layout = std::make_unique<Layout>();
    layout->layout = convolution.weights;
    layout->data.resize(convolution.weights.get_size() / sizeof(float) + 1);
    ReorderFilter(convolution, state, filter, layout->data.data());
    layouts_[count] = std::move(layout);
    count_.store(count + 1, std::memory_order_release);
    return layouts_[count]->data.data();
  }

 private:
  static constexpr int kLayouts = 4;
  struct Layout {
    dnnl::memory::desc layout;
    std::vector<float> data;
  };

  const float* Find(const dnnl::memory::desc& layout) const {
    const int count = count_.load(std::memory_order_acquire);
    for (int i = 0; i < count; ++i) {
      if (layouts_[i]->layout == layout) return layouts_[i]->data.data();
    }
    return nullptr;
  }

  std::unique_ptr<Layout> layouts_[kLayouts];
  std::atomic<int> count_{0};
  std::mutex mutex_;  // held while a layout is added
};

// Nothing is reordered yet: each layout on the first call that wants it
// (a convolution split by output channels never runs its whole shape, and
// a reorder into Winograd's layout takes 5-50 ms for a ResNet filter).
int PrepareFilter(const BefConv2DShape*, const float*, void** prepared, char*, size_t) {
  *prepared = new PreparedFilter;
  return 0;
}

void ReleaseFilter(void* prepared) { delete static_cast<PreparedFilter*>(prepared); }

int Conv2D(const BefConv2DShape* shape, const float* input, const float* filter,
           const void* prepared, const float* const* epilogue, float* output, char* error,
           size_t error_size) {
  OneThread();
  try {
    ThreadState& state = State();
    Convolution& convolution = ConvolutionOf(*shape, state);
    const float* weights = nullptr;
    if (prepared != nullptr) {
      // Const to the caller; a layout added is invisible to it.
      weights = const_cast<PreparedFilter*>(static_cast<const PreparedFilter*>(prepared))
                    ->In(convolution, state, filter);
    }
    if (weights == nullptr && convolution.reorder_weights) {
      float* reordered = Grown(state.weights, convolution.weights);
      ReorderFilter(convolution, state, filter, reordered);
      weights = reordered;
    } else if (weights == nullptr) {
      weights = filter;
    }
    Execute(convolution, state, input,
            dnnl::memory(convolution.weights, state.engine, const_cast<float*>(weights)), epilogue,
            output);
    return 0;
  } catch (const std::exception& failure) {
    return Fail(error, error_size, "conv2d", failure.what());
  }
}

const char* Conv2DImplementation(const BefConv2DShape* shape, char* error, size_t error_size) {
  OneThread();
  try {
    return ConvolutionOf(*shape, State()).implementation.c_str();
  } catch (const std::exception& failure) {
    Fail(error, error_size, "conv2d", failure.what());
    return nullptr;
  }
}

std::unique_ptr<Pooling> MakePooling(const BefPool2DShape& shape, const dnnl::engine& engine) {
  using dnnl::memory;
  using tag = memory::format_tag;
  auto pooling = std::make_unique<Pooling>();
  pooling->source = memory::desc({shape.batch, shape.channels, shape.height, shape.width},
                                 memory::data_type::f32, tag::nhwc);
  pooling->destination =
      memory::desc({shape.batch, shape.channels, shape.out_height, shape.out_width},
                   memory::data_type::f32, tag::nhwc);
  dnnl::pooling_forward::desc description(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, pooling->source,
      pooling->destination, {shape.stride_height, shape.stride_width},
      {shape.window_height, shape.window_width}, {shape.pad_top, shape.pad_left},
      {shape.pad_bottom, shape.pad_right});
  dnnl::primitive_attr attributes;
  attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::pooling_forward::primitive_desc primitive_description(description, attributes, engine);
  pooling->scratchpad_size = primitive_description.scratchpad_desc().get_size();
  pooling->primitive = dnnl::pooling_forward(primitive_description);
  return pooling;
}

int MaxPool(const BefPool2DShape* shape, const float* input, float* output, char* error,
            size_t error_size) {
  OneThread();
  try {
    ThreadState& state = State();
    Pooling*& known = state.poolings[*shape];
    if (known == nullptr) {
      Primitives& shared = Shared();
      std::lock_guard<std::mutex> lock(shared.mutex);
      std::unique_ptr<Pooling>& slot = shared.poolings[*shape];
      if (slot == nullptr) slot = MakePooling(*shape, shared.engine);
      known = slot.get();
    }
    Pooling& pooling = *known;
    std::unordered_map<int, dnnl::memory> arguments = {
        {DNNL_ARG_SRC, dnnl::memory(pooling.source, state.engine, const_cast<float*>(input))},
        {DNNL_ARG_DST, dnnl::memory(pooling.destination, state.engine, output)}};
    AddScratchpad(pooling.scratchpad_size, state, arguments);
    pooling.primitive.execute(state.stream, arguments);
    state.stream.wait();
    return 0;
  } catch (const std::exception& failure) {
    return Fail(error, error_size, "max pooling", failure.what());
  }
}

const BefOneDnnApi kApi = {&Sgemm,  &Conv2D, &PrepareFilter, &ReleaseFilter, &Conv2DImplementation,
                           &MaxPool};

}  // namespace

extern "C" __attribute__((visibility("default"))) const BefOneDnnApi* BefOneDnnApiV5() {
  return &kApi;
}
