// The oneDNN plugin's Winograd convolutions (onednn_api.h's
// kBefConvAlgorithm*) against its direct ones, on the shapes the CPU
// kernels give it: whole images, the rows of a part of one (padding on one
// side only), a range of a filter's output channels, each epilogue an ONNX
// convolution has, an addend in place.
#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/cpu/onednn.h"

namespace bef::cpu_kernels {
namespace {

bool CpuHasWinograd() {
  // oneDNN 2.6 has f32 Winograd kernels for AVX-512 (avx512_core) only.
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
}

std::vector<float> Random(size_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& value : values) value = uniform(generator);
  return values;
}

// max |a - b| / max |b|.
double RelativeError(const std::vector<float>& a, const std::vector<float>& b) {
  double difference = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    difference = std::max(difference, std::fabs(double{a[i]} - b[i]));
    scale = std::max(scale, std::fabs(double{b[i]}));
  }
  return difference / scale;
}

// A convolution on random operands: input [N, H, W, IC], a filter of
// `filter_channels` output channels read from `first_channel`, bias and
// addend.
struct Case {
  BefConv2DShape shape;
  int64_t filter_channels;
  int64_t first_channel = 0;
  bool addend_in_place = false;

  std::vector<float> Run(int64_t algorithms, const void* prepared = nullptr,
                         std::string* implementation = nullptr) const {
    const BefOneDnnApi* onednn = *OneDnn();
    BefConv2DShape call = shape;
    call.algorithms = algorithms;
    call.filter_out_channels = filter_channels > shape.out_channels ? filter_channels : 0;
    const std::vector<float> input =
        Random(shape.batch * shape.height * shape.width * shape.in_channels, 1);
    const std::vector<float> filter = Filter();
    const std::vector<float> bias = Random(shape.out_channels, 3);
    const size_t outputs = shape.batch * shape.out_height * shape.out_width * shape.out_channels;
    std::vector<float> addend = Random(outputs, 4);
    std::vector<float> output(outputs, NAN);
    float* out = addend_in_place ? addend.data() : output.data();
    const float* epilogue[3] = {bias.data(), addend.data(), nullptr};
    char error[512] = "";
    EXPECT_EQ(onednn->conv2d(&call, input.data(), filter.data() + first_channel, prepared, epilogue,
                             out, error, sizeof(error)),
              0)
        << error;
    if (implementation != nullptr) {
      const char* name = onednn->conv2d_implementation(&call, error, sizeof(error));
      EXPECT_NE(name, nullptr) << error;
      *implementation = name != nullptr ? name : "";
    }
    return addend_in_place ? addend : output;
  }

  std::vector<float> Filter() const {
    return Random(shape.filter_height * shape.filter_width * shape.in_channels * filter_channels,
                  2);
  }

  // Winograd's result against the direct one; true when Winograd ran.
  bool Check(int64_t epilogue) const {
    Case with = *this;
    with.shape.epilogue = epilogue;
    std::string implementation;
    const std::vector<float> winograd =
        with.Run(kBefConvAlgorithmWinogradWhereAvailable, nullptr, &implementation);
    const std::vector<float> direct = with.Run(kBefConvAlgorithmDirect);
    EXPECT_LE(RelativeError(winograd, direct), 1e-5) << implementation << ", epilogue " << epilogue;
    return implementation.find("wino") != std::string::npos;
  }
};

constexpr BefConv2DShape kImage{.batch = 2,
                                .height = 12,
                                .width = 12,
                                .in_channels = 32,
                                .filter_height = 3,
                                .filter_width = 3,
                                .out_channels = 32,
                                .out_height = 12,
                                .out_width = 12,
                                .stride_height = 1,
                                .stride_width = 1,
                                .pad_top = 1,
                                .pad_bottom = 1,
                                .pad_left = 1,
                                .pad_right = 1};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  cases.push_back({.shape = kImage, .filter_channels = 32});
  // Output rows [0, 6) of a 12-row image: input rows [0, 7), padding above.
  BefConv2DShape top = kImage;
  top.batch = 1, top.height = 7, top.out_height = 6, top.pad_bottom = 0;
  cases.push_back({.shape = top, .filter_channels = 32});
  // Rows [6, 12): input rows [5, 12), padding below.
  BefConv2DShape bottom = kImage;
  bottom.batch = 1, bottom.height = 7, bottom.out_height = 6, bottom.pad_top = 0;
  cases.push_back({.shape = bottom, .filter_channels = 32});
  // Output channels [16, 32) of a 48-channel filter.
  BefConv2DShape range = kImage;
  range.out_channels = 16;
  cases.push_back({.shape = range, .filter_channels = 48, .first_channel = 16});
  return cases;
}

TEST(OneDnnWinograd, AgreesWithTheDirectConvolution) {
  // oneDNN picks its kernels by the CPU's caches too: on an AVX-512 CPU at
  // least some of these shapes run by Winograd (all of them on this
  // project's VMs).
  int winograd_runs = 0;
  for (const Case& convolution : Cases()) {
    for (int64_t epilogue : {kBefConvEpilogueNone, kBefConvEpilogueBias, kBefConvEpilogueBiasRelu,
                             kBefConvEpilogueBiasAddend, kBefConvEpilogueBiasAddendRelu}) {
      SCOPED_TRACE(testing::Message() << "rows " << convolution.shape.out_height << ", channels "
                                      << convolution.shape.out_channels);
      winograd_runs += convolution.Check(epilogue);
      Case in_place = convolution;
      in_place.addend_in_place = true;
      if (epilogue >= kBefConvEpilogueBiasAddend) winograd_runs += in_place.Check(epilogue);
    }
  }
  if (CpuHasWinograd()) {
    EXPECT_GT(winograd_runs, 0);
  }
}

// One prepared filter serves convolutions that want different layouts
// (a whole image's direct kernel, Winograd's for the rows of a part):
// each finds its own, reordered on its first call.
TEST(OneDnnWinograd, APreparedFilterKeepsEachLayoutItsCallsWant) {
  const BefOneDnnApi* onednn = *OneDnn();
  Case whole{.shape = kImage, .filter_channels = 32};
  whole.shape.epilogue = kBefConvEpilogueBias;
  Case part = Cases()[1];
  part.shape.epilogue = kBefConvEpilogueBias;
  const std::vector<float> filter = whole.Filter();
  void* prepared = nullptr;
  char error[512] = "";
  ASSERT_EQ(onednn->prepare_filter(&whole.shape, filter.data(), &prepared, error, sizeof(error)), 0)
      << error;
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(whole.Run(kBefConvAlgorithmDirect, prepared), whole.Run(kBefConvAlgorithmDirect));
    EXPECT_EQ(part.Run(kBefConvAlgorithmWinogradWhereAvailable, prepared),
              part.Run(kBefConvAlgorithmWinogradWhereAvailable));
  }
  onednn->release_filter(prepared);
}

// Two threads preparing filters of one shape at once (the two parts of a
// convolution split by output channels, on the work queue's two threads):
// each gets its own filter's layout, as it would alone.
TEST(OneDnnWinograd, ThreadsPreparingFiltersOfOneShapeAtOnceGetTheirOwn) {
  const BefOneDnnApi* onednn = *OneDnn();
  BefConv2DShape shape = kImage;
  shape.batch = 1, shape.in_channels = 64, shape.out_channels = 64;
  shape.epilogue = kBefConvEpilogueBias;
  shape.algorithms = kBefConvAlgorithmWinogradWhereAvailable;
  shape.filter_out_channels = 128;
  const std::vector<float> input = Random(12 * 12 * 64, 1);
  const std::vector<float> filter = Random(3 * 3 * 64 * 128, 2);
  const std::vector<float> bias = Random(64, 3);
  const float* epilogue[3] = {bias.data(), nullptr, nullptr};
  // Channels [0, 64) and [64, 128), each alone.
  auto run = [&](int half, const void* prepared) {
    std::vector<float> output(12 * 12 * 64);
    char error[512] = "";
    EXPECT_EQ(onednn->conv2d(&shape, input.data(), filter.data() + 64 * half, prepared, epilogue,
                             output.data(), error, sizeof(error)),
              0)
        << error;
    return output;
  };
  const std::vector<float> alone[2] = {run(0, nullptr), run(1, nullptr)};
  for (int round = 0; round < 20; ++round) {
    void* prepared[2] = {nullptr, nullptr};
    char error[512] = "";
    for (void*& each : prepared) {
      ASSERT_EQ(onednn->prepare_filter(&shape, filter.data(), &each, error, sizeof(error)), 0);
    }
    std::vector<float> together[2];
    std::atomic<int> ready{0};
    auto part = [&](int half) {
      ++ready;
      while (ready.load() < 2) {
      }
      together[half] = run(half, prepared[half]);
    };
    std::thread other(part, 1);
    part(0);
    other.join();
    EXPECT_EQ(together[0], alone[0]) << "round " << round;
    EXPECT_EQ(together[1], alone[1]) << "round " << round;
    for (void* each : prepared) onednn->release_filter(each);
  }
}

// A shape Winograd cannot take (a 1x1 filter, batch norm) runs directly
// whatever the algorithms allow.
TEST(OneDnnWinograd, OtherShapesRunDirectly) {
  Case pointwise{.shape = kImage, .filter_channels = 32};
  pointwise.shape.filter_height = pointwise.shape.filter_width = 1;
  pointwise.shape.pad_top = pointwise.shape.pad_bottom = 0;
  pointwise.shape.pad_left = pointwise.shape.pad_right = 0;
  std::string implementation;
  const std::vector<float> fastest =
      pointwise.Run(kBefConvAlgorithmWinogradWhereAvailable, nullptr, &implementation);
  EXPECT_EQ(implementation.find("wino"), std::string::npos) << implementation;
  EXPECT_EQ(fastest, pointwise.Run(kBefConvAlgorithmDirect));
}

}  // namespace
}  // namespace bef::cpu_kernels
