// Formatting and buffer sharing of the host tensor values.
#include "bef/tensor/dense_host_tensor.h"

#include <cmath>
#include <cstring>
#include <limits>
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

class MallocForTest : public HostAllocator {
 public:
  void* AllocateBytes(size_t size, size_t alignment) override {
    ++live;
    return ::operator new(size, std::align_val_t(alignment));
  }
  void DeallocateBytes(void* pointer, size_t) override {
    --live;
    ::operator delete(pointer, std::align_val_t(16));
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
    int32_t* data = static_cast<int32_t*>(tensor.data());
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
  std::shared_ptr<HostBuffer> slice;
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
