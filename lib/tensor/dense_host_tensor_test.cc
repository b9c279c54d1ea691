// Formatting and buffer sharing of the host tensor values.
#include "bef/tensor/dense_host_tensor.h"

#include <cstdlib>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "bef/tensor/sparse_and_string_tensors.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

TEST(TensorShapeTest, ElementsAndText) {
  EXPECT_EQ(TensorShape().NumElements(), 1);
  EXPECT_EQ(TensorShape().ToString(), "[]");
  EXPECT_EQ(TensorShape(std::vector<int64_t>{-1, 6}).NumElements(), -6);
  EXPECT_EQ(TensorShape(std::vector<int64_t>{4294967296, 3}).ToString(),
            "[4294967296, 3]");
  // No signed overflow: saturates, and such a tensor cannot be allocated.
  TensorShape huge(std::vector<int64_t>{1000000000000, 1000000000000});
  EXPECT_EQ(huge.NumElements(), std::numeric_limits<int64_t>::max());
}

TEST(DenseHostTensorTest, HugeShapesAreNotAllocated) {
  class NeverCalled : public HostAllocator {
   public:
    void* AllocateBytes(size_t, size_t) override { return nullptr; }
    void DeallocateBytes(void*, size_t) override {}
  } allocator;
  TensorShape huge(std::vector<int64_t>{4611686018427387904, 4});
  EXPECT_EQ(DenseHostTensor::AllocateBuffer(&allocator, DType::kI64, huge),
            nullptr);
}

TEST(FormatElementTest, FloatsAsTfrtPrintsThem) {
  float values[] = {0.1f, std::numeric_limits<float>::quiet_NaN(),
                    std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity(), -0.0f,
                    std::numeric_limits<float>::denorm_min()};
  const char* expected[] = {"1.000000e-01", "nan", "INF", "-INF",
                            "-0.000000e+00", "1.401298e-45"};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(FormatElement(DType::kF32, &values[i]), expected[i]);
  }
  uint16_t half = 15360;
  EXPECT_EQ(FormatElement(DType::kF16, &half), "fp16(15360)");
  EXPECT_EQ(FormatElement(DType::kBF16, &half), "bf16(15360)");
  uint8_t boolean = 2;
  EXPECT_EQ(FormatElement(DType::kI1, &boolean), "1");
  float complex[] = {0.75f, -2.5f};
  EXPECT_EQ(FormatElement(DType::kComplex64, complex),
            "(7.500000e-01,-2.500000e+00)");
}

// Counts live blocks. DeallocateBytes is not told the alignment, so the
// memory comes from aligned_alloc (freed by free whatever its alignment):
// owned buffers ask for 64-byte blocks.
class MallocForTest : public HostAllocator {
 public:
  void* AllocateBytes(size_t size, size_t alignment) override {
    ++live;
    return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  }
  void DeallocateBytes(void* pointer, size_t) override {
    --live;
    std::free(pointer);
  }
  int live = 0;
};

TEST(DenseHostTensorTest, PrintsAtMostSixteenElements) {
  MallocForTest allocator;
  TensorShape shape(std::vector<int64_t>{17});
  {
    DenseHostTensor tensor(
        DType::kI32, shape,
        DenseHostTensor::AllocateBuffer(&allocator, DType::kI32, shape));
    int32_t* data = static_cast<int32_t*>(tensor.writable_data());
    for (int i = 0; i < 17; ++i) data[i] = i;
    EXPECT_EQ(tensor.ToString(),
              "DenseHostTensor dtype = i32, shape = [17], values = [0, 1, 2, "
              "3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, ... ]");
    EXPECT_EQ(reinterpret_cast<uintptr_t>(tensor.data()) % 16, 0u);
    EXPECT_EQ(allocator.live, 1);
  }
  EXPECT_EQ(allocator.live, 0);  // the buffer went back to the allocator
}

TEST(HostBufferTest, SlicesShareMemoryAndKeepTheParentAlive) {
  MallocForTest allocator;
  RCReference<HostBuffer> slice;
  {
    auto parent = HostBuffer::Allocate(&allocator, 32, 16);
    std::memset(parent->data(), 7, 32);
    slice = HostBuffer::Slice(parent, 16, 8);
    static_cast<char*>(slice->data())[0] = 9;
    EXPECT_EQ(static_cast<char*>(parent->data())[16], 9);
  }
  EXPECT_EQ(allocator.live, 1);
  EXPECT_EQ(slice->size(), 8u);
  slice.reset();
  EXPECT_EQ(allocator.live, 0);
}

// A dense f32 attribute of shape [2] in 8-aligned storage, laid out as in
// a BEF image (bef-encoding-constants.md 6.5): base at 4 mod 8, so the
// elements at base + 28 are 8-aligned.
struct DenseAttributeBytes {
  DenseAttributeBytes() {
    uint8_t* base = reinterpret_cast<uint8_t*>(words) + 4;
    uint32_t element_offset = 20 + 8, count = 2, rank = 1;
    uint32_t byte_size = element_offset + 8;
    base[0] = 8;
    base[1] = static_cast<uint8_t>(DType::kF32);
    uint16_t prefix = element_offset;
    std::memcpy(base + 2, &prefix, 2);
    std::memcpy(base + 4, &byte_size, 4);
    std::memcpy(base + 8, &element_offset, 4);
    std::memcpy(base + 12, &count, 4);
    std::memcpy(base + 16, &rank, 4);
    int64_t dim = 2;
    std::memcpy(base + 20, &dim, 8);
    float values[2] = {1.5f, -2.0f};
    std::memcpy(base + element_offset, values, 8);
  }
  DenseAttributeView view() const {
    return DenseAttributeView(reinterpret_cast<const uint8_t*>(words) + 4);
  }
  uint64_t words[8] = {};
};

TEST(DenseHostTensorTest, DenseAttributeIsViewedInPlaceAndCopiedOnWrite) {
  auto bytes = std::make_shared<DenseAttributeBytes>();
  auto allocator = CreateMallocAllocator();
  DenseAttributeView view = bytes->view();
  std::weak_ptr<DenseAttributeBytes> alive = bytes;
  auto tensor_or = DenseHostTensor::FromDenseAttribute(view, bytes,
                                                       allocator.get());
  ASSERT_TRUE(tensor_or.ok());
  DenseHostTensor tensor = *std::move(tensor_or);
  // No copy: the tensor's elements are the attribute's.
  EXPECT_EQ(tensor.data(), view.data());
  EXPECT_TRUE(tensor.read_only());
  EXPECT_EQ(tensor.ToString(),
            "DenseHostTensor dtype = f32, shape = [2], values = "
            "[1.500000e+00, -2.000000e+00]");
  // The tensor keeps the image alive.
  bytes.reset();
  EXPECT_FALSE(alive.expired());
  // Copy-on-write: the first write gets a private, writable copy.
  ASSERT_TRUE(tensor.MakeWritable(allocator.get()).ok());
  EXPECT_FALSE(tensor.read_only());
  EXPECT_TRUE(alive.expired());
  static_cast<float*>(tensor.writable_data())[0] = 3.0f;
  EXPECT_EQ(tensor.ToString(),
            "DenseHostTensor dtype = f32, shape = [2], values = "
            "[3.000000e+00, -2.000000e+00]");
  // Writable tensors are left alone.
  const void* data = tensor.data();
  ASSERT_TRUE(tensor.MakeWritable(allocator.get()).ok());
  EXPECT_EQ(tensor.data(), data);
}

TEST(DenseHostTensorTest, DenseAttributeIsCopiedWithoutAnOwnerOrWhenMisaligned) {
  DenseAttributeBytes bytes;
  auto allocator = CreateMallocAllocator();
  auto copied = DenseHostTensor::FromDenseAttribute(bytes.view(), nullptr,
                                                    allocator.get());
  ASSERT_TRUE(copied.ok());
  EXPECT_NE(copied->data(), bytes.view().data());
  EXPECT_FALSE(copied->read_only());
  EXPECT_EQ(std::memcmp(copied->data(), bytes.view().data(), 8), 0);

  // The same attribute 4 bytes further: elements at 4 mod 8.
  alignas(8) uint8_t shifted[72] = {};
  std::memcpy(shifted + 8, reinterpret_cast<const uint8_t*>(bytes.words) + 4, 36);
  auto owner = std::make_shared<int>(0);
  auto misaligned = DenseHostTensor::FromDenseAttribute(
      DenseAttributeView(shifted + 8), owner, allocator.get());
  ASSERT_TRUE(misaligned.ok());
  EXPECT_FALSE(misaligned->read_only());
  EXPECT_EQ(misaligned->ToString(), copied->ToString());
}

TEST(StringHostTensorTest, EllipsisOnlyAboveThirtyTwo) {
  std::vector<std::string> seventeen(17, "b");
  StringHostTensor short_tensor(TensorShape(std::vector<int64_t>{17}),
                                seventeen);
  EXPECT_EQ(short_tensor.ToString().find("..."), std::string::npos);
  std::vector<std::string> many(33, "d");
  StringHostTensor long_tensor(TensorShape(std::vector<int64_t>{33}), many);
  EXPECT_NE(long_tensor.ToString().find(", ... ]"), std::string::npos);
}

}  // namespace
}  // namespace bef
