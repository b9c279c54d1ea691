// ByteReader / ByteWriter: the VBR codec (spec §1: most-significant group
// first), FIXED32, strings, alignment, and errors on truncated input.
#include <cstdint>
#include <limits>
#include <vector>

#include "bef/format/byte_reader.h"
#include "bef/format/byte_writer.h"
#include "bef/format/format_error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

std::vector<uint8_t> Vbr(uint64_t value) {
  ByteWriter writer;
  writer.EmitVbr(value);
  return writer.TakeBytes();
}

uint64_t DecodeAll(const std::vector<uint8_t>& bytes) {
  ByteReader reader(bytes, 0, "test");
  absl::StatusOr<uint64_t> value = reader.ReadVbr();
  EXPECT_TRUE(value.ok()) << value.status();
  EXPECT_TRUE(reader.empty());
  return value.value_or(~uint64_t{0} - 1);
}

struct VbrCase {
  uint64_t value;
  std::vector<uint8_t> bytes;
};

class VbrTest : public ::testing::TestWithParam<VbrCase> {};

TEST_P(VbrTest, EncodesMostSignificantGroupFirst) {
  EXPECT_THAT(Vbr(GetParam().value), ElementsAreArray(GetParam().bytes));
  EXPECT_EQ(VbrSize(GetParam().value), GetParam().bytes.size());
}

TEST_P(VbrTest, DecodesBack) {
  EXPECT_EQ(DecodeAll(GetParam().bytes), GetParam().value);
}

TEST_P(VbrTest, TruncatedInputIsAnError) {
  std::vector<uint8_t> bytes = GetParam().bytes;
  for (size_t keep = 0; keep < bytes.size(); ++keep) {
    std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + keep);
    ByteReader reader(truncated, 100, "Test section");
    absl::StatusOr<uint64_t> value = reader.ReadVbr();
    ASSERT_FALSE(value.ok()) << "kept " << keep << " bytes";
    EXPECT_THAT(DescribeFormatError(value.status()),
                HasSubstr("Test section at byte offset 100"));
  }
}

INSTANTIATE_TEST_SUITE_P(
    SpecValues, VbrTest,
    ::testing::Values(
        VbrCase{0, {0x00}}, VbrCase{127, {0x7F}}, VbrCase{128, {0x81, 0x00}},
        VbrCase{136, {0x81, 0x08}}, VbrCase{300, {0x82, 0x2C}},
        VbrCase{16383, {0xFF, 0x7F}}, VbrCase{16384, {0x81, 0x80, 0x00}},
        VbrCase{(uint64_t{1} << 32) - 1, {0x8F, 0xFF, 0xFF, 0xFF, 0x7F}},
        VbrCase{uint64_t{1} << 32, {0x90, 0x80, 0x80, 0x80, 0x00}},
        VbrCase{uint64_t{1} << 63,
                {0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}},
        VbrCase{std::numeric_limits<uint64_t>::max(),
                {0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}}));

TEST(VbrTest, MoreThan64BitsIsAnError) {
  std::vector<uint8_t> bytes = {0x82, 0x80, 0x80, 0x80, 0x80, 0x80,
                                0x80, 0x80, 0x80, 0x80, 0x00};
  ByteReader reader(bytes, 0, "test");
  absl::StatusOr<uint64_t> value = reader.ReadVbr();
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(FormatErrorDetail(value.status()), HasSubstr("64 bits"));
}

TEST(VbrTest, Vbr32RejectsValuesAbove32Bits) {
  std::vector<uint8_t> bytes = Vbr(uint64_t{1} << 32);
  ByteReader reader(bytes, 0, "test");
  EXPECT_FALSE(reader.ReadVbr32().ok());
  std::vector<uint8_t> max32 = Vbr(UINT32_MAX);
  ByteReader reader32(max32, 0, "test");
  EXPECT_EQ(reader32.ReadVbr32().value(), UINT32_MAX);
}

TEST(VbrTest, ToleratesNonCanonicalLeadingZeroGroups) {
  // TFRT's reader accepts redundant 0x80 prefixes; so do we.
  EXPECT_EQ(DecodeAll({0x80, 0x80, 0x05}), 5u);
}

TEST(ByteReaderTest, Fixed32IsLittleEndian) {
  std::vector<uint8_t> bytes = {0x78, 0x56, 0x34, 0x12, 0xAB};
  ByteReader reader(bytes, 0, "test");
  EXPECT_EQ(reader.ReadFixed32().value(), 0x12345678u);
  EXPECT_FALSE(reader.ReadFixed32().ok());  // only one byte left
  EXPECT_EQ(reader.position(), 4u);
}

TEST(ByteReaderTest, NulTerminatedStrings) {
  std::vector<uint8_t> bytes = {'a', 'b', 0, 0, 'c'};
  ByteReader reader(bytes, 0, "test");
  EXPECT_EQ(reader.ReadNulTerminatedString().value(), "ab");
  EXPECT_EQ(reader.ReadNulTerminatedString().value(), "");
  EXPECT_FALSE(reader.ReadNulTerminatedString().ok());  // "c" unterminated
}

TEST(ByteReaderTest, PoolStrings) {
  std::vector<uint8_t> pool = {'x', 0, 'y', 'z', 0, 'w'};
  EXPECT_EQ(ReadPoolString(pool, 0).value(), "x");
  EXPECT_EQ(ReadPoolString(pool, 3).value(), "z");
  EXPECT_FALSE(ReadPoolString(pool, 5).ok());
  EXPECT_FALSE(ReadPoolString(pool, 6).ok());
  EXPECT_FALSE(ReadPoolString(pool, 0xFFFFFFFF).ok());
}

TEST(ByteReaderTest, SkipAndReadBytesAreBounded) {
  std::vector<uint8_t> bytes(10, 0);
  ByteReader reader(bytes, 0, "test");
  EXPECT_TRUE(reader.Skip(4).ok());
  EXPECT_FALSE(reader.Skip(7).ok());
  EXPECT_FALSE(reader.ReadBytes(7).ok());
  EXPECT_EQ(reader.ReadBytes(6).value().size(), 6u);
  EXPECT_TRUE(reader.empty());
  EXPECT_FALSE(reader.ReadByte().ok());
}

TEST(ByteReaderTest, ErrorSummaryIsTheCallersChoice) {
  std::vector<uint8_t> bytes;
  ByteReader reader(bytes, 7, "Kernels section");
  reader.set_error_summary("invalid Kernels section in BEF file");
  absl::Status status = reader.ReadByte().status();
  EXPECT_EQ(status.message(), "invalid Kernels section in BEF file");
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(FormatErrorDetail(status),
              HasSubstr("Kernels section at byte offset 7"));
}

TEST(ByteWriterTest, AlignmentPadsWithCC) {
  ByteWriter writer;
  writer.EmitByte(1);
  writer.EmitAlignment(4);
  EXPECT_THAT(writer.bytes(), ElementsAreArray({0x01, 0xCC, 0xCC, 0xCC}));
  writer.EmitAlignment(8, 4);  // size 4 + 4 is already 8-aligned
  EXPECT_EQ(writer.size(), 4u);
  writer.EmitAlignment(8);
  EXPECT_EQ(writer.size(), 8u);
  EXPECT_EQ(writer.required_alignment(), 8u);
}

TEST(ByteWriterTest, FixedWidthValuesAreLittleEndian) {
  ByteWriter writer;
  writer.EmitFixed16(0x1234);
  writer.EmitFixed32(0xA1B2C3D4);
  writer.EmitFixed64(0x0102030405060708);
  EXPECT_THAT(writer.bytes(),
              ElementsAreArray({0x34, 0x12, 0xD4, 0xC3, 0xB2, 0xA1, 0x08, 0x07,
                                0x06, 0x05, 0x04, 0x03, 0x02, 0x01}));
}

TEST(ByteWriterTest, SectionHeaderIsWhatEmitSectionWrites) {
  // Every offset an alignment can see, lengths of one and two VBR bytes.
  for (uint32_t alignment : {1u, 4u, 8u, 16u}) {
    for (size_t offset = 0; offset < 2 * alignment; ++offset) {
      for (size_t length : {0, 1, 63, 64, 200}) {
        ByteWriter file;
        file.EmitRepeatedByte(0xAA, offset);
        std::vector<uint8_t> body(length, 0x11);
        file.EmitSection(5, body, alignment);
        uint8_t header[ByteWriter::kMaxSectionHeaderSize];
        size_t size =
            ByteWriter::EncodeSectionHeader(5, length, alignment, offset, header);
        std::vector<uint8_t> streamed(offset, 0xAA);
        streamed.insert(streamed.end(), header, header + size);
        streamed.insert(streamed.end(), body.begin(), body.end());
        EXPECT_EQ(streamed, file.bytes())
            << "alignment " << alignment << " offset " << offset << " length "
            << length;
        if (alignment > 1 && length > 0) {
          EXPECT_EQ((streamed.size() - length) % alignment, 0u);
        }
      }
    }
  }
}

TEST(ByteWriterTest, VbrOfEverySizeRoundTrips) {
  for (uint64_t value : {0ull, 1ull, 127ull, 128ull, 300ull, 16383ull, 16384ull,
                         0xFFFFFFFFull, ~0ull}) {
    ByteWriter writer;
    writer.EmitVbr(value);
    EXPECT_EQ(writer.size(), VbrSize(value)) << value;
    ByteReader reader(writer.bytes(), 0, "");
    EXPECT_EQ(reader.ReadVbr().value(), value);
  }
}

TEST(ByteWriterTest, SectionIsFlaggedOnlyWhenMisaligned) {
  ByteWriter body;
  body.EmitAlignment(4);
  body.EmitFixed32(7);
  // At offset 0: id, VBR(8) -> body would start at 2: misaligned, flagged.
  ByteWriter file;
  file.EmitSection(SectionId::kFunctions, body);
  EXPECT_THAT(file.bytes(), ElementsAreArray({0x05, 0x09, 0x04, 0xCC, 0x07,
                                              0x00, 0x00, 0x00}));
  // At offset 2: id, VBR(8) -> body starts at 4: aligned, not flagged.
  ByteWriter shifted;
  shifted.EmitByte(0xEE);
  shifted.EmitByte(0xEE);
  shifted.EmitSection(SectionId::kFunctions, body);
  EXPECT_THAT(shifted.bytes(), ElementsAreArray({0xEE, 0xEE, 0x05, 0x08, 0x07,
                                                 0x00, 0x00, 0x00}));
}

}  // namespace
}  // namespace bef
