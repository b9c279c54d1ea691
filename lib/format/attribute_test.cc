// Attribute layouts (spec §6): each kind written by EmitAttribute is checked
// field by field against the spec, read back with DecodeAttribute, and whole
// Attributes sections are compared with the reference translator's output.
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bef/format/attribute_reader.h"
#include "bef/format/attribute_writer.h"
#include "bef/format/byte_reader.h"
#include "bef/format/format_error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

uint32_t Word(const std::vector<uint8_t>& pool, size_t offset) {
  return LoadFixed32(pool.data() + offset);
}

uint64_t Word64(const std::vector<uint8_t>& pool, size_t offset) {
  uint64_t value;
  std::memcpy(&value, pool.data() + offset, 8);
  return value;
}

DecodedAttribute Decode(const std::vector<uint8_t>& pool, uint32_t offset,
                        uint8_t type) {
  absl::StatusOr<DecodedAttribute> decoded = DecodeAttribute(pool, offset, type);
  EXPECT_TRUE(decoded.ok()) << DescribeFormatError(decoded.status());
  return decoded.value_or(DecodedAttribute{});
}

TEST(AttributeLayoutTest, OneByteScalarsAreUnaligned) {
  ByteWriter pool;
  pool.EmitByte(0xEE);
  EXPECT_EQ(EmitAttribute(pool, BefAttribute::Bool(true)), 1u);
  EXPECT_EQ(EmitAttribute(pool, BefAttribute::I8(-128)), 2u);
  EXPECT_EQ(EmitAttribute(pool, BefAttribute::UI8(255)), 3u);
  EXPECT_EQ(EmitAttribute(pool, BefAttribute::Type(DType::kF64)), 4u);
  EXPECT_THAT(pool.bytes(), ElementsAre(0xEE, 0x01, 0x80, 0xFF, 0x0B));
  EXPECT_EQ(Decode(pool.bytes(), 1, 5).values[0], 1u);
  EXPECT_EQ(Decode(pool.bytes(), 2, 6).values[0], 0x80u);
  DecodedAttribute type = Decode(pool.bytes(), 4, 25);
  EXPECT_EQ(type.dtype, DType::kF64);
  EXPECT_EQ(type.ToString(), "f64");
}

TEST(AttributeLayoutTest, WiderScalarsAreNaturallyAligned) {
  ByteWriter pool;
  pool.EmitByte(0xEE);
  uint32_t i16 = EmitAttribute(pool, BefAttribute::I16(12345));
  uint32_t i32 = EmitAttribute(pool, BefAttribute::I32(-7));
  uint32_t i64 = EmitAttribute(pool, BefAttribute::I64(1099511627776));
  uint32_t f16 = EmitAttribute(pool, BefAttribute::F16Bits(0xBE00));
  uint32_t f64 = EmitAttribute(pool, BefAttribute::F64(-2.5e-8));
  EXPECT_EQ(i16, 2u);
  EXPECT_EQ(i32, 4u);
  EXPECT_EQ(i64, 8u);
  EXPECT_EQ(f16, 16u);
  EXPECT_EQ(f64, 24u);
  const auto& bytes = pool.bytes();
  EXPECT_EQ(bytes[1], kPaddingByte);
  EXPECT_EQ(Word(bytes, i32), 0xFFFFFFF9u);
  EXPECT_EQ(Word64(bytes, i64), 1099511627776u);
  EXPECT_EQ(bytes[f16], 0x00);
  EXPECT_EQ(bytes[f16 + 1], 0xBE);
  EXPECT_EQ(std::bit_cast<double>(Word64(bytes, f64)), -2.5e-8);
  EXPECT_EQ(Decode(bytes, i16, 7).ToString(), "12345 : i16");
  EXPECT_EQ(Decode(bytes, i32, 8).ToString(), "-7 : i32");
  EXPECT_EQ(Decode(bytes, i64, 9).ToString(), "1099511627776 : i64");
  EXPECT_EQ(Decode(bytes, f64, 11).ToString(), "-2.5e-08 : f64");
  // A misaligned offset is rejected.
  EXPECT_FALSE(DecodeAttribute(bytes, i32 + 1, 8).ok());
}

TEST(AttributeLayoutTest, StringIsLengthPrefixedAndUnterminated) {
  ByteWriter pool;
  pool.EmitByte(0xEE);
  uint32_t golden = EmitAttribute(pool, BefAttribute::String("golden"));
  uint32_t empty = EmitAttribute(pool, BefAttribute::String(""));
  EXPECT_EQ(golden, 4u);
  EXPECT_EQ(Word(pool.bytes(), golden), 6u);
  EXPECT_EQ(empty, 16u);  // "golden" ends at 14; the next length is 4-aligned
  EXPECT_EQ(Decode(pool.bytes(), golden, 16).text, "golden");
  EXPECT_EQ(Decode(pool.bytes(), empty, 16).text, "");
}

TEST(AttributeLayoutTest, ArraysPlaceTheCountSoElementsAreAligned) {
  ByteWriter pool;
  pool.EmitByte(0xEE);
  uint32_t i32 = EmitAttribute(pool, BefAttribute::I32Array({7, -1}));
  uint32_t i64 = EmitAttribute(pool, BefAttribute::I64Array({1, -1}));
  uint32_t bools = EmitAttribute(
      pool, BefAttribute::Array(DType::kI1, {1, 0, 1}));
  uint32_t types = EmitAttribute(
      pool, BefAttribute::TypeArray({DType::kI32, DType::kComplex128}));
  uint32_t empty = EmitAttribute(pool, BefAttribute::EmptyArray());
  const auto& bytes = pool.bytes();
  EXPECT_EQ(i32, 4u);
  EXPECT_EQ(Word(bytes, i32), 2u);
  EXPECT_EQ(Word(bytes, i32 + 8), 0xFFFFFFFFu);
  EXPECT_EQ(i64 % 8, 4u);  // count at 4 mod 8, payload 8-aligned
  EXPECT_EQ(Word64(bytes, i64 + 12), ~uint64_t{0});
  EXPECT_EQ(bools % 4, 0u);
  EXPECT_THAT(std::vector<uint8_t>(bytes.begin() + bools + 4,
                                   bytes.begin() + bools + 7),
              ElementsAre(1, 0, 1));
  EXPECT_EQ(bytes[types + 5], 13);
  EXPECT_EQ(Word(bytes, empty), 0u);
  EXPECT_EQ(BefAttribute::EmptyArray().type(), 136);
  EXPECT_EQ(BefAttribute::I64Array({1}).type(), 137);
  EXPECT_EQ(BefAttribute::TypeArray({DType::kI1}).type(), 153);
  EXPECT_EQ(Decode(bytes, i32, 136).ToString(), "[7, -1] : array<i32>");
  EXPECT_EQ(Decode(bytes, i64, 137).ToString(), "[1, -1] : array<i64>");
  EXPECT_EQ(Decode(bytes, bools, 133).ToString(),
            "[true, false, true] : array<i1>");
  EXPECT_EQ(Decode(bytes, types, 153).ToString(),
            "[i32, complex128] : array<type>");
  EXPECT_TRUE(Decode(bytes, empty, 136).values.empty());
}

TEST(AttributeLayoutTest, DenseHeaderShapeAndData) {
  ByteWriter pool;
  pool.EmitByte(0xEE);
  std::vector<uint8_t> data;
  for (int16_t v : {1, 2, 3, 4, 5, 6}) {
    data.push_back(static_cast<uint8_t>(v));
    data.push_back(static_cast<uint8_t>(v >> 8));
  }
  uint32_t base =
      EmitAttribute(pool, BefAttribute::Dense(DType::kI16, {2, 3}, data));
  const auto& bytes = pool.bytes();
  EXPECT_EQ(base % 8, 4u);
  EXPECT_EQ(bytes[base], 8);                      // alignment
  EXPECT_EQ(bytes[base + 1], 7);                  // DType I16
  EXPECT_EQ(bytes[base + 2] | bytes[base + 3] << 8, 36);  // prefix = 20 + 16
  EXPECT_EQ(Word(bytes, base + 4), 36u + 12u);    // byte size
  EXPECT_EQ(Word(bytes, base + 8), 36u);          // element offset
  EXPECT_EQ(Word(bytes, base + 12), 6u);          // element count
  EXPECT_EQ(Word(bytes, base + 16), 2u);          // rank
  EXPECT_EQ(Word64(bytes, base + 20), 2u);
  EXPECT_EQ(Word64(bytes, base + 28), 3u);
  EXPECT_EQ((base + 36) % 8, 0u);
  EXPECT_EQ(bytes[base + 36 + 10], 6);
  DecodedAttribute dense = Decode(bytes, base, 28);
  EXPECT_EQ(dense.dtype, DType::kI16);
  EXPECT_THAT(dense.dims, ElementsAre(2, 3));
  EXPECT_THAT(dense.data, ElementsAreArray(data));

  uint32_t scalar = EmitAttribute(
      pool, BefAttribute::Dense(DType::kI32, {}, {7, 0, 0, 0}));
  EXPECT_EQ(Word(bytes, scalar + 12), 1u);  // rank 0: one element
  EXPECT_TRUE(Decode(pool.bytes(), scalar, 28).dims.empty());
}

TEST(AttributeLayoutTest, Shapes) {
  ByteWriter pool;
  uint32_t ranked = EmitAttribute(pool, BefAttribute::Shape({4, -1, 16}));
  uint32_t scalar = EmitAttribute(pool, BefAttribute::Shape({}));
  uint32_t unranked = EmitAttribute(pool, BefAttribute::UnrankedShape());
  const auto& bytes = pool.bytes();
  EXPECT_EQ(ranked % 8, 4u);
  EXPECT_EQ(bytes[ranked], 8);
  EXPECT_EQ(bytes[ranked + 1], 0);
  EXPECT_EQ(bytes[ranked + 2], 12);
  EXPECT_EQ(Word(bytes, ranked + 4), 12u + 24u);
  EXPECT_EQ(Word(bytes, ranked + 8), 3u);
  EXPECT_EQ(static_cast<int64_t>(Word64(bytes, ranked + 20)), -1);
  EXPECT_EQ(Word(bytes, scalar + 4), 12u);
  EXPECT_EQ(Word(bytes, unranked), 0u);
  EXPECT_EQ(Decode(bytes, ranked, 27).ToString(), "shape<4x?x16>");
  EXPECT_EQ(Decode(bytes, scalar, 27).ToString(), "shape<>");
  EXPECT_EQ(Decode(bytes, unranked, 27).ToString(), "shape<*>");
}

TEST(AttributeLayoutTest, AggregateOffsetsAreBaseRelativeWithTypeBytes) {
  ByteWriter pool;
  BefAttribute aggregate = BefAttribute::Aggregate(
      {BefAttribute::I8(1), BefAttribute::I64(2), BefAttribute::F32(3.0f),
       BefAttribute::String("four"), BefAttribute::Type(DType::kI16)});
  uint32_t base = EmitAttribute(pool, aggregate);
  const auto& bytes = pool.bytes();
  EXPECT_EQ(bytes[base], 8);  // max(4, max element alignment 8)
  EXPECT_EQ(bytes[base + 2], 12 + 4 * 5);
  EXPECT_EQ((base + 32) % 8, 0u);
  EXPECT_EQ(Word(bytes, base + 8), 5u);
  std::vector<uint8_t> types = {6, 9, 10, 16, 25};
  for (size_t i = 0; i < 5; ++i) {
    uint32_t relative = Word(bytes, base + 12 + 4 * i);
    EXPECT_EQ(bytes[base + relative - 1], types[i]) << "element " << i;
  }
  EXPECT_EQ(Word(bytes, base + 12), 33u);  // right after the reserved byte
  EXPECT_EQ(Word(bytes, base + 4), bytes.size() - base);
  DecodedAttribute decoded = Decode(bytes, base, 30);
  EXPECT_EQ(decoded.ToString(), "[1 : i8, 2 : i64, 3 : f32, \"four\", i16]");

  ByteWriter empty_pool;
  uint32_t empty = EmitAttribute(empty_pool, BefAttribute::Aggregate({}));
  EXPECT_EQ(Word(empty_pool.bytes(), empty), 0u);
  EXPECT_TRUE(Decode(empty_pool.bytes(), empty, 30).elements.empty());
}

TEST(AttributeLayoutTest, SymbolRef) {
  ByteWriter pool;
  uint32_t offset = EmitAttribute(
      pool, BefAttribute::SymbolRef(3, "m", {"f"}, "module {}"));
  EXPECT_THAT(pool.bytes(),
              ElementsAre(3, 1, 1, 1, 9, 'm', 'f', 'm', 'o', 'd', 'u', 'l', 'e',
                          ' ', '{', '}', 0));
  DecodedAttribute decoded = Decode(pool.bytes(), offset, 29);
  EXPECT_EQ(decoded.ToString(), "@m::@f");
  EXPECT_EQ(decoded.module_text, "module {}");
}

TEST(AttributeLayoutTest, KeysIdentifyValueAndType) {
  EXPECT_EQ(BefAttribute::I32(5).Key(), BefAttribute::I32(5).Key());
  EXPECT_NE(BefAttribute::I32(5).Key(), BefAttribute::I64(5).Key());
  EXPECT_NE(BefAttribute::I32Array({}).Key(), BefAttribute::Aggregate({}).Key());
  EXPECT_NE(BefAttribute::String("a").Key(), BefAttribute::String("b").Key());
  EXPECT_NE(BefAttribute::Shape({}).Key(), BefAttribute::UnrankedShape().Key());
}

TEST(AttributeReaderTest, RejectsMalformedLayouts) {
  ByteWriter pool;
  uint32_t dense = EmitAttribute(
      pool, BefAttribute::Dense(DType::kI32, {2}, std::vector<uint8_t>(8, 1)));
  std::vector<uint8_t> bytes = pool.bytes();
  EXPECT_TRUE(DecodeAttribute(bytes, dense, 28).ok());
  std::vector<uint8_t> bad_count = bytes;
  bad_count[dense + 12] = 3;  // 3 elements do not fit
  EXPECT_FALSE(DecodeAttribute(bad_count, dense, 28).ok());
  std::vector<uint8_t> huge = bytes;
  huge[dense + 7] = 0x7F;  // byte size runs past the pool
  EXPECT_FALSE(DecodeAttribute(huge, dense, 28).ok());
  EXPECT_FALSE(DecodeAttribute(bytes, 1000, 8).ok());
  EXPECT_FALSE(DecodeAttribute(bytes, 0, 200).ok());  // invalid type
}

TEST(AttributeReaderTest, ArraysOfUnsizedTypesAreRejected) {
  // Found by the loader fuzzer: an array of resources (type 0x91) whose
  // count is huge passed the bounds check (0-byte elements) and the decoder
  // tried to reserve the count.
  std::vector<uint8_t> pool = {0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0};
  absl::StatusOr<DecodedAttribute> decoded = DecodeAttribute(pool, 0, 0x91);
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(FormatErrorDetail(decoded.status()),
              ::testing::HasSubstr("no fixed size"));
}

TEST(AttributeReaderTest, DeepNestingIsBounded) {
  BefAttribute nested = BefAttribute::Aggregate({BefAttribute::I32(1)});
  for (int i = 0; i < 80; ++i) nested = BefAttribute::Aggregate({nested});
  ByteWriter pool;
  uint32_t offset = EmitAttribute(pool, nested);
  absl::StatusOr<DecodedAttribute> decoded =
      DecodeAttribute(pool.bytes(), offset, 30);
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(FormatErrorDetail(decoded.status()),
              ::testing::HasSubstr("nest deeper"));
}

}  // namespace
}  // namespace bef
