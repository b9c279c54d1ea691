#include "kernels/cpu/prepared_filters.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "gtest/gtest.h"

namespace bef::cpu_kernels {
namespace {

// A oneDNN table whose "prepared filter" is a copy, counting what is alive.
std::atomic<int> live_filters{0};
int Prepare(const BefConv2DShape* shape, const float* filter, void** prepared, char*, size_t) {
  const size_t count = shape->filter_height * shape->filter_width * shape->in_channels *
                       shape->out_channels;
  auto* copy = new float[count];
  std::memcpy(copy, filter, count * sizeof(float));
  *prepared = copy;
  ++live_filters;
  return 0;
}
void Release(void* prepared) {
  delete[] static_cast<float*>(prepared);
  --live_filters;
}
const BefOneDnnApi kFakeOneDnn{.sgemm = nullptr, .conv2d = nullptr,
                               .prepare_filter = Prepare, .release_filter = Release};

constexpr BefConv2DShape kShape{.batch = 1, .height = 8, .width = 8, .in_channels = 16,
                                .filter_height = 3, .filter_width = 3, .out_channels = 16,
                                .out_height = 6, .out_width = 6, .stride_height = 1,
                                .stride_width = 1};
constexpr size_t kFilterBytes = 3 * 3 * 16 * 16 * sizeof(float);

// A filter as a loaded BEF image's dense attribute: a constant view whose
// owner stands for the image.
struct Image {
  std::shared_ptr<std::vector<float>> bytes =
      std::make_shared<std::vector<float>>(kFilterBytes / sizeof(float), 1.0f);
  DenseHostTensor filter{DType::kF32, TensorShape({3, 3, 16, 16}),
                         HostBuffer::View(bytes->data(), kFilterBytes, bytes, /*constant=*/true)};
};

TEST(PreparedFilters, AFilterIsPreparedOnceWhileItsImageLives) {
  const int before = live_filters;
  auto image = std::make_unique<Image>();
  const void* first = PreparedFilter(image->filter, kShape, kFakeOneDnn);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(PreparedFilter(image->filter, kShape, kFakeOneDnn), first);
  EXPECT_EQ(live_filters, before + 1);
}

// The parts of a convolution split by output channels: each range of the
// filter's channels is an entry of its own, prepared from its first
// channel, and the whole filter's entry is a third.
TEST(PreparedFilters, ChannelRangesOfAFilterAreEntriesOfTheirOwn) {
  auto image = std::make_unique<Image>();
  for (size_t i = 0; i < image->bytes->size(); ++i) (*image->bytes)[i] = static_cast<float>(i);
  BefConv2DShape half = kShape;
  half.out_channels = 8;
  half.filter_out_channels = 16;
  const void* whole = PreparedFilter(image->filter, kShape, kFakeOneDnn);
  const int before = live_filters;  // (the miss above swept earlier tests' entries)
  const auto* low = static_cast<const float*>(PreparedFilter(image->filter, half, kFakeOneDnn, 0));
  const auto* high = static_cast<const float*>(PreparedFilter(image->filter, half, kFakeOneDnn, 8));
  ASSERT_NE(low, nullptr);
  ASSERT_NE(high, nullptr);
  EXPECT_NE(low, high);
  EXPECT_NE(whole, nullptr);
  EXPECT_NE(whole, low);
  EXPECT_EQ(low[0], 0.0f);   // prepared from channel 0
  EXPECT_EQ(high[0], 8.0f);  // from channel 8
  EXPECT_EQ(PreparedFilter(image->filter, half, kFakeOneDnn, 8), high);
  EXPECT_EQ(live_filters, before + 2);
}

TEST(PreparedFilters, AFilterThatTensorsMayWriteIsNotKept) {
  std::vector<float> bytes(kFilterBytes / sizeof(float));
  DenseHostTensor filter(DType::kF32, TensorShape({3, 3, 16, 16}),
                         HostBuffer::View(bytes.data(), kFilterBytes, nullptr));
  EXPECT_EQ(PreparedFilter(filter, kShape, kFakeOneDnn), nullptr);
}

// A server that loads and unloads a model over and over: the filters of
// the images that are gone are swept out at the next miss, not left until
// the 1 GiB bound.
TEST(PreparedFilters, FiltersOfUnloadedImagesDoNotAccumulate) {
  // Each image's bytes at an address of their own (as a new mapping would
  // be), its owner a token that goes with the "unload".
  std::vector<std::vector<float>> storage(50, std::vector<float>(kFilterBytes / sizeof(float)));
  for (size_t reload = 0; reload < storage.size(); ++reload) {
    auto owner = std::make_shared<int>(0);
    DenseHostTensor filter(DType::kF32, TensorShape({3, 3, 16, 16}),
                           HostBuffer::View(storage[reload].data(), kFilterBytes, owner,
                                            /*constant=*/true));
    ASSERT_NE(PreparedFilter(filter, kShape, kFakeOneDnn), nullptr);
    // This image's filter, and at most the ones of images still alive in
    // the tests before.
    EXPECT_LE(PreparedFilterBytes(), static_cast<int64_t>(2 * kFilterBytes)) << reload;
  }
  EXPECT_LE(live_filters, 2);
}

}  // namespace
}  // namespace bef::cpu_kernels
