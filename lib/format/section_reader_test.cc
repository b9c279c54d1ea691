// SectionReader: header checks, aligned/unaligned/unknown/truncated sections,
// repeated ids, and TFRT's error summaries on the golden malformed files.
#include "bef/format/section_reader.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bef/format/byte_writer.h"
#include "bef/format/format_error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/golden.h"

namespace bef {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// An 8-aligned copy of `bytes` (the reader aligns by memory address).
class AlignedImage {
 public:
  explicit AlignedImage(const std::vector<uint8_t>& bytes)
      : storage_(new uint64_t[bytes.size() / 8 + 1]), size_(bytes.size()) {
    if (!bytes.empty()) std::memcpy(storage_.get(), bytes.data(), bytes.size());
  }
  std::span<const uint8_t> span() const {
    return {reinterpret_cast<const uint8_t*>(storage_.get()), size_};
  }

 private:
  std::unique_ptr<uint64_t[]> storage_;
  size_t size_;
};

std::vector<uint8_t> Header() { return {0x0B, 0xEF, 0x00}; }

// The sections of `image` (which must outlive them).
std::vector<Section> WalkAll(const AlignedImage& image, absl::Status* status) {
  SectionReader reader(image.span());
  std::vector<Section> sections;
  *status = reader.ReadHeader();
  while (status->ok() && !reader.done()) {
    absl::StatusOr<Section> section = reader.Next();
    if (!section.ok()) {
      *status = section.status();
      break;
    }
    sections.push_back(*section);
  }
  return sections;
}

TEST(SectionReaderTest, UnalignedAndAlignedSections) {
  ByteWriter file;
  file.EmitBytes(Header());
  ByteWriter strings;
  strings.EmitNulTerminatedString("ab");
  file.EmitSection(SectionId::kStrings, strings);  // 3 + 2 -> body at 5
  ByteWriter words;
  words.EmitAlignment(8);
  words.EmitFixed64(42);
  file.EmitSection(SectionId::kAttributes, words);  // flagged, aligned to 8
  absl::Status status;
  AlignedImage image(file.bytes());
  std::vector<Section> sections = WalkAll(image, &status);
  ASSERT_TRUE(status.ok()) << DescribeFormatError(status);
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[0].id, 0);
  EXPECT_EQ(sections[0].header_offset, 3u);
  EXPECT_EQ(sections[0].body_offset, 5u);
  EXPECT_EQ(sections[0].alignment, 1u);
  EXPECT_EQ(std::string(sections[0].body.begin(), sections[0].body.end()),
            std::string("ab\0", 3));
  EXPECT_EQ(sections[1].id, 1);
  EXPECT_EQ(sections[1].alignment, 8u);
  EXPECT_EQ(sections[1].body_offset % 8, 0u);
  EXPECT_EQ(sections[1].body.size(), 8u);
  EXPECT_EQ(sections[1].body[0], 42);
  // Padding bytes between the alignment byte and the body are 0xCC.
  EXPECT_EQ(file.bytes()[sections[1].body_offset - 1], kPaddingByte);
}

TEST(SectionReaderTest, UnknownSectionsAreWalkedAndSkippedByReadSections) {
  std::vector<uint8_t> bytes = Header();
  for (uint8_t byte : {0x0C, 0x04, 0x55, 0x55,   // unknown id 12, 2 bytes
                       0x02, 0x02, 0x00,         // Kernels: count 0
                       0xFF, 0x00}) {            // unknown id 255, empty
    bytes.push_back(byte);
  }
  absl::Status status;
  AlignedImage walked(bytes);
  std::vector<Section> sections = WalkAll(walked, &status);
  ASSERT_TRUE(status.ok()) << DescribeFormatError(status);
  ASSERT_EQ(sections.size(), 3u);
  EXPECT_FALSE(sections[0].is_known());
  EXPECT_EQ(sections[0].body.size(), 2u);
  EXPECT_TRUE(sections[1].is_known());
  EXPECT_FALSE(sections[2].is_known());

  AlignedImage image(bytes);
  absl::StatusOr<SectionTable> table = ReadSections(image.span());
  ASSERT_TRUE(table.ok());
  EXPECT_TRUE(table->has(SectionId::kKernels));
  EXPECT_FALSE(table->has(SectionId::kStrings));
  EXPECT_THAT(table->body(SectionId::kKernels), ElementsAre(0x00));
}

TEST(SectionReaderTest, RepeatedIdReplacesTheEarlierSection) {
  std::vector<uint8_t> bytes = Header();
  for (uint8_t byte : {0x04, 0x02, 0x07, 0x04, 0x02, 0x00}) {
    bytes.push_back(byte);
  }
  AlignedImage image(bytes);
  absl::StatusOr<SectionTable> table = ReadSections(image.span());
  ASSERT_TRUE(table.ok());
  EXPECT_THAT(table->body(SectionId::kFunctionIndex), ElementsAre(0x00));
}

TEST(SectionReaderTest, TruncatedSectionsAreCorruptHeaders) {
  struct Case {
    std::vector<uint8_t> tail;
    const char* detail;
  };
  for (const Case& c : std::vector<Case>{
           {{0x00}, "unexpected end"},               // id without length
           {{0x00, 0x81}, "inside an integer"},      // truncated VBR
           {{0x00, 0x08, 'a'}, "4 bytes long"},      // body too short
           {{0x01, 0x03}, "unexpected end"},         // flag without alignment
           {{0x01, 0x03, 0x03}, "not a power of two"},
           {{0x01, 0x11, 0x40}, "padding"},          // padding runs past end
       }) {
    std::vector<uint8_t> bytes = Header();
    bytes.insert(bytes.end(), c.tail.begin(), c.tail.end());
    absl::Status status;
    WalkAll(AlignedImage(bytes), &status);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.message(), "BEF file section header corrupted");
    EXPECT_THAT(FormatErrorDetail(status), HasSubstr(c.detail));
    EXPECT_THAT(FormatErrorDetail(status), HasSubstr("at byte offset"));
  }
}

TEST(SectionReaderTest, HeaderErrorsUseTfrtsSummaries) {
  absl::Status status;
  WalkAll(AlignedImage({}), &status);
  EXPECT_EQ(status.message(), "invalid BEF file header detected");
  WalkAll(AlignedImage({0x0B, 0xEE, 0x00}), &status);
  EXPECT_EQ(status.message(), "invalid BEF file header detected");
  WalkAll(AlignedImage({0x0B, 0xEF, 0x01}), &status);
  EXPECT_EQ(status.message(), "Unknown BEF format version detected");
  WalkAll(AlignedImage({0x0B, 0xEF}), &status);
  EXPECT_EQ(status.message(), "Unknown BEF format version detected");
  WalkAll(AlignedImage(Header()), &status);
  EXPECT_TRUE(status.ok());  // no sections is not a framing error
}

// The reference's derived malformed files (golden/bef_malformed.*.bef).
TEST(SectionReaderTest, GoldenMalformedFiles) {
  struct Case {
    const char* file;
    const char* summary;  // "" = reads fine
  };
  for (const Case& c : std::vector<Case>{
           {"bef_malformed.bef", ""},
           {"bef_malformed.empty.bef", "invalid BEF file header detected"},
           {"bef_malformed.header_only.bef", ""},
           {"bef_malformed.bad_magic.bef", "invalid BEF file header detected"},
           {"bef_malformed.bad_version.bef",
            "Unknown BEF format version detected"},
           {"bef_malformed.truncated.bef", "BEF file section header corrupted"},
           {"bef_malformed.bad_length.bef", "BEF file section header corrupted"},
           {"bef_malformed.extra_section.bef", ""},
           {"bef_malformed.dup_index.bef", ""},
       }) {
    std::vector<uint8_t> bytes =
        testing::ReadFileBytes(testing::GoldenPath(c.file));
    AlignedImage image(bytes);
    absl::StatusOr<SectionTable> table = ReadSections(image.span());
    if (*c.summary == 0) {
      EXPECT_TRUE(table.ok()) << c.file << ": "
                              << DescribeFormatError(table.status());
    } else {
      ASSERT_FALSE(table.ok()) << c.file;
      EXPECT_EQ(table.status().message(), c.summary) << c.file;
    }
  }
}

TEST(SectionReaderTest, GoldenDuplicateIndexKeepsTheLastOne) {
  std::vector<uint8_t> bytes =
      testing::ReadFileBytes(testing::GoldenPath("bef_malformed.dup_index.bef"));
  AlignedImage image(bytes);
  absl::StatusOr<SectionTable> table = ReadSections(image.span());
  ASSERT_TRUE(table.ok());
  EXPECT_THAT(table->body(SectionId::kFunctionIndex), ElementsAre(0x00));
}

}  // namespace
}  // namespace bef
