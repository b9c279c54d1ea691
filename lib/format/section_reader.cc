#include "bef/format/section_reader.h"

#include "absl/strings/str_cat.h"
#include "bef/format/format_error.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"

namespace bef {
namespace {
constexpr char kHeaderCorrupted[] = "BEF file section header corrupted";
}  // namespace

absl::Status SectionReader::ReadHeader() {
  auto bytes = reader_.bytes();
  if (bytes.size() < 2 || bytes[0] != kBefMagic1 || bytes[1] != kBefMagic2) {
    return FormatError("invalid BEF file header detected",
                       bytes.size() < 2
                           ? absl::StrCat("the file has only ", bytes.size(),
                                          " bytes")
                           : "the file does not start with 0B EF");
  }
  if (bytes.size() < kBefHeaderSize || bytes[2] != kBefVersion0) {
    return FormatError(
        "Unknown BEF format version detected",
        bytes.size() < kBefHeaderSize
            ? std::string("the file ends before the version byte")
            : absl::StrCat("version ", int{bytes[2]},
                           " at byte offset 2; only 0 exists"));
  }
  return reader_.Seek(kBefHeaderSize);
}

absl::StatusOr<Section> SectionReader::Next() {
  reader_.set_error_summary(kHeaderCorrupted);
  Section section;
  section.header_offset = reader_.file_offset();
  BEF_ASSIGN_OR_RETURN(section.id, reader_.ReadByte());
  BEF_ASSIGN_OR_RETURN(uint64_t length_and_flag, reader_.ReadVbr());
  uint64_t length = length_and_flag >> 1;
  if (length_and_flag & 1) {
    size_t alignment_offset = reader_.position();
    BEF_ASSIGN_OR_RETURN(uint8_t alignment, reader_.ReadByte());
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
      return reader_.ErrorAt(
          alignment_offset,
          absl::StrCat("section ", int{section.id}, " (", ToAbsl(SectionName(section.id)),
                       ") has alignment ", int{alignment},
                       ", which is not a power of two"));
    }
    section.alignment = alignment;
    BEF_RETURN_IF_ERROR(reader_.SkipToAlignment(alignment));
  }
  section.body_offset = reader_.file_offset();
  if (length > reader_.remaining()) {
    return reader_.ErrorAt(
        section.header_offset,
        absl::StrCat("section ", int{section.id}, " (", ToAbsl(SectionName(section.id)),
                     ") is ", length, " bytes long, but only ",
                     reader_.remaining(), " bytes remain"));
  }
  BEF_ASSIGN_OR_RETURN(section.body, reader_.ReadBytes(length));
  return section;
}

absl::StatusOr<SectionTable> ReadSections(std::span<const uint8_t> image) {
  SectionReader reader(image);
  BEF_RETURN_IF_ERROR(reader.ReadHeader());
  SectionTable table;
  while (!reader.done()) {
    BEF_ASSIGN_OR_RETURN(Section section, reader.Next());
    if (section.is_known()) table.sections[section.id] = section;
  }
  return table;
}

}  // namespace bef
