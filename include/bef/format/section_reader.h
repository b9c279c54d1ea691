// SectionReader: walks the header and the sections of a BEF image.
//
//   SectionReader reader(image);
//   BEF_RETURN_IF_ERROR(reader.ReadHeader());
//   while (!reader.done()) {
//     BEF_ASSIGN_OR_RETURN(Section section, reader.Next());
//     ...
//   }
//
// Each section is: id byte, VBR (length << 1 | aligned), then, when aligned,
// an alignment byte and padding up to that alignment, then `length` body
// bytes. Bodies are returned as spans into the image (nothing is copied).
// ReadSections() does the whole walk the way the executor does it: unknown ids
// are skipped and a repeated id replaces the earlier section.
//
// Errors carry TFRT's summaries ("invalid BEF file header detected",
// "Unknown BEF format version detected", "BEF file section header corrupted")
// with the byte offset and cause in the detail (format_error.h).
#ifndef BEF_FORMAT_SECTION_READER_H_
#define BEF_FORMAT_SECTION_READER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "absl/status/statusor.h"
#include "bef/format/bef_encoding.h"
#include "bef/format/byte_reader.h"

namespace bef {

struct Section {
  uint8_t id = 0;
  // File offset of the id byte, and of the first body byte.
  size_t header_offset = 0;
  size_t body_offset = 0;
  // 1 when the section carries no alignment byte.
  uint32_t alignment = 1;
  std::span<const uint8_t> body;

  bool is_known() const { return id < kNumSectionIds; }
};

class SectionReader {
 public:
  explicit SectionReader(std::span<const uint8_t> image)
      : reader_(image, 0, "BEF file") {}

  // Checks the magic and the format version.
  absl::Status ReadHeader();
  bool done() const { return reader_.empty(); }
  // The next section, known or not. REQUIRES: ReadHeader() succeeded and
  // !done().
  absl::StatusOr<Section> Next();

 private:
  ByteReader reader_;
};

// The known sections of an image; a missing section is std::nullopt.
struct SectionTable {
  std::array<std::optional<Section>, kNumSectionIds> sections;

  const std::optional<Section>& operator[](SectionId id) const {
    return sections[static_cast<size_t>(id)];
  }
  // The body of a section, empty when the section is missing.
  std::span<const uint8_t> body(SectionId id) const {
    const auto& section = (*this)[id];
    return section ? section->body : std::span<const uint8_t>();
  }
  bool has(SectionId id) const { return (*this)[id].has_value(); }
};

// Header check plus a walk over all sections (unknown ids skipped, the last
// of a repeated id kept).
absl::StatusOr<SectionTable> ReadSections(std::span<const uint8_t> image);

}  // namespace bef

#endif  // BEF_FORMAT_SECTION_READER_H_
