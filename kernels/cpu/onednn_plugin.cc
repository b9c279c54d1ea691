// The plugin libbef_onednn.so: onednn_api.h's table on oneDNN 2.6.
//
// Each thread keeps its own primitives (one per convolution shape, made on
// the shape's first call: oneDNN generates its code then), its own
// scratchpad and its own buffer for a filter reordered per call, so calls
// from different work-queue threads share nothing and take no lock; a
// prepared filter (reordered once) is only read. oneDNN
// reports failures as exceptions (dnnl::error); they stay inside the plugin
// and come out as messages.
#include <omp.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
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

// A convolution of one shape, ready to run (on any thread, with its own
// scratchpad).
struct Convolution {
  dnnl::convolution_forward primitive;
  dnnl::memory::desc source;
  dnnl::memory::desc destination;
  dnnl::memory::desc user_weights;  // HWIO
  dnnl::memory::desc weights;       // what the primitive wants
  dnnl::reorder weights_reorder;    // HWIO -> weights, when they differ
  bool reorder_weights = false;
  size_t scratchpad_size = 0;
  int epilogue_vectors = 0;            // binary post-ops, in order
  // An addend of the output's shape is a sum post-op: copied into the
  // output first (unless it is the output), then added as each block is
  // written. As a binary post-op of the output's shape, oneDNN 2.6 falls
  // back from its brgemm convolutions to an older kernel, 10-25% slower
  // on ResNet's 14x14 and 7x7 layers (DNNL_VERBOSE, this VM).
  bool addend_in_destination = false;
  dnnl::memory::desc channel_vector;   // [1, OC, 1, 1]
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

std::unique_ptr<Convolution> MakeConvolution(const BefConv2DShape& shape,
                                             const dnnl::engine& engine) {
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
  const memory::desc any_weights(weights_dims, memory::data_type::f32, tag::any);
  dnnl::convolution_forward::desc description(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      convolution->source, any_weights, convolution->destination,
      {shape.stride_height, shape.stride_width}, {shape.pad_top, shape.pad_left},
      {shape.pad_bottom, shape.pad_right});
  dnnl::primitive_attr attributes;
  attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  // The epilogue as post-ops, applied while each output block is in
  // registers (no second pass over the output): per-channel vectors
  // broadcast over N, H and W.
  const memory::desc channel_vector({1, shape.out_channels, 1, 1}, memory::data_type::f32,
                                    tag::nchw);
  dnnl::post_ops post_ops;
  const auto relu = [&] { post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f); };
  switch (shape.epilogue) {
    case kBefConvEpilogueNone:
      break;
    case kBefConvEpilogueBias:
    case kBefConvEpilogueBiasRelu:
      post_ops.append_binary(dnnl::algorithm::binary_add, channel_vector);
      if (shape.epilogue == kBefConvEpilogueBiasRelu) relu();
      break;
    case kBefConvEpilogueBatchNorm:
    case kBefConvEpilogueBatchNormRelu:
      post_ops.append_binary(dnnl::algorithm::binary_sub, channel_vector);
      post_ops.append_binary(dnnl::algorithm::binary_mul, channel_vector);
      post_ops.append_binary(dnnl::algorithm::binary_add, channel_vector);
      if (shape.epilogue == kBefConvEpilogueBatchNormRelu) relu();
      break;
    case kBefConvEpilogueBiasAddend:
    case kBefConvEpilogueBiasAddendRelu:
      post_ops.append_binary(dnnl::algorithm::binary_add, channel_vector);
      post_ops.append_sum(1.0f);
      if (shape.epilogue == kBefConvEpilogueBiasAddendRelu) relu();
      break;
    default:
      throw std::invalid_argument("unknown convolution epilogue");
  }
  switch (shape.epilogue) {
    case kBefConvEpilogueNone:
      convolution->epilogue_vectors = 0;
      break;
    case kBefConvEpilogueBatchNorm:
    case kBefConvEpilogueBatchNormRelu:
      convolution->epilogue_vectors = 3;
      break;
    case kBefConvEpilogueBiasAddend:
    case kBefConvEpilogueBiasAddendRelu:
      convolution->epilogue_vectors = 1;
      convolution->addend_in_destination = true;
      break;
    default:
      convolution->epilogue_vectors = 1;
  }
  convolution->channel_vector = channel_vector;
  attributes.set_post_ops(post_ops);
  dnnl::convolution_forward::primitive_desc primitive_description(description, attributes,
                                                                  engine);
  convolution->weights = primitive_description.weights_desc();
  convolution->scratchpad_size = primitive_description.scratchpad_desc().get_size();
  convolution->primitive = dnnl::convolution_forward(primitive_description);
  if (convolution->weights != convolution->user_weights) {
    convolution->reorder_weights = true;
    convolution->weights_reorder = dnnl::reorder(
        dnnl::reorder::primitive_desc(engine, convolution->user_weights, engine,
                                      convolution->weights));
  }
  return convolution;
}

// The convolution of `shape`, made on its first use by any thread.
Convolution& ConvolutionOf(const BefConv2DShape& shape, ThreadState& state) {
  Convolution*& known = state.convolutions[shape];
  if (known == nullptr) {
    Primitives& shared = Shared();
    std::lock_guard<std::mutex> lock(shared.mutex);
    std::unique_ptr<Convolution>& slot = shared.convolutions[shape];
    if (slot == nullptr) slot = MakeConvolution(shape, shared.engine);
    known = slot.get();
  }
  return *known;
}

// A filter in the layout some primitive wants.
struct PreparedFilter {
  dnnl::memory::desc layout;
  std::vector<float> data;
};

int PrepareFilter(const BefConv2DShape* shape, const float* filter, void** prepared,
                  char* error, size_t error_size) {
  OneThread();
  try {
    ThreadState& state = State();
    Convolution& convolution = ConvolutionOf(*shape, state);
    auto result = std::make_unique<PreparedFilter>();
    result->layout = convolution.weights;
    result->data.resize(convolution.weights.get_size() / sizeof(float) + 1);
    dnnl::memory user_weights(convolution.user_weights, state.engine,
                              const_cast<float*>(filter));
    dnnl::memory weights(convolution.weights, state.engine, result->data.data());
    if (convolution.reorder_weights) {
      convolution.weights_reorder.execute(state.stream, user_weights, weights);
      state.stream.wait();
    } else {
      std::memcpy(result->data.data(), filter, convolution.weights.get_size());
    }
    *prepared = result.release();
    return 0;
  } catch (const std::exception& failure) {
    return Fail(error, error_size, "filter reorder", failure.what());
  }
}

void ReleaseFilter(void* prepared) { delete static_cast<PreparedFilter*>(prepared); }

int Conv2D(const BefConv2DShape* shape, const float* input, const float* filter,
           const void* prepared, const float* const* epilogue, float* output, char* error,
           size_t error_size) {
  OneThread();
  try {
    ThreadState& state = State();
    Convolution& convolution = ConvolutionOf(*shape, state);
    dnnl::memory user_weights(convolution.user_weights, state.engine,
                              const_cast<float*>(filter));
    dnnl::memory weights = user_weights;
    const auto* ready = static_cast<const PreparedFilter*>(prepared);
    if (ready != nullptr && ready->layout == convolution.weights) {
      weights = dnnl::memory(convolution.weights, state.engine,
                             const_cast<float*>(ready->data.data()));
    } else if (convolution.reorder_weights) {
      const size_t floats = convolution.weights.get_size() / sizeof(float) + 1;
      if (state.weights.size() < floats) state.weights.resize(floats);
      weights = dnnl::memory(convolution.weights, state.engine, state.weights.data());
      convolution.weights_reorder.execute(state.stream, user_weights, weights);
    }
    dnnl::memory source(convolution.source, state.engine, const_cast<float*>(input));
    dnnl::memory destination(convolution.destination, state.engine, output);
    std::unordered_map<int, dnnl::memory> arguments = {
        {DNNL_ARG_SRC, source}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, destination}};
    for (int i = 0; i < convolution.epilogue_vectors; ++i) {
      arguments.emplace(
          DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1,
          dnnl::memory(convolution.channel_vector, state.engine, const_cast<float*>(epilogue[i])));
    }
    if (convolution.addend_in_destination && epilogue[1] != output) {
      std::memmove(output, epilogue[1], convolution.destination.get_size());
    }
    if (convolution.scratchpad_size > 0) {
      if (state.scratchpad.size() < convolution.scratchpad_size) {
        state.scratchpad.resize(convolution.scratchpad_size);
      }
      arguments.emplace(DNNL_ARG_SCRATCHPAD,
                        dnnl::memory(dnnl::memory::desc(
                                         {static_cast<int64_t>(convolution.scratchpad_size)},
                                         dnnl::memory::data_type::u8, dnnl::memory::format_tag::x),
                                     state.engine, state.scratchpad.data()));
    }
    convolution.primitive.execute(state.stream, arguments);
    state.stream.wait();
    return 0;
  } catch (const std::exception& failure) {
    return Fail(error, error_size, "conv2d", failure.what());
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
    if (pooling.scratchpad_size > 0) {
      if (state.scratchpad.size() < pooling.scratchpad_size) {
        state.scratchpad.resize(pooling.scratchpad_size);
      }
      arguments.emplace(DNNL_ARG_SCRATCHPAD,
                        dnnl::memory(dnnl::memory::desc(
                                         {static_cast<int64_t>(pooling.scratchpad_size)},
                                         dnnl::memory::data_type::u8, dnnl::memory::format_tag::x),
                                     state.engine, state.scratchpad.data()));
    }
    pooling.primitive.execute(state.stream, arguments);
    state.stream.wait();
    return 0;
  } catch (const std::exception& failure) {
    return Fail(error, error_size, "max pooling", failure.what());
  }
}

const BefOneDnnApi kApi = {&Sgemm, &Conv2D, &PrepareFilter, &ReleaseFilter, &MaxPool};

}  // namespace

extern "C" __attribute__((visibility("default"))) const BefOneDnnApi* BefOneDnnApiV4() {
  return &kApi;
}
