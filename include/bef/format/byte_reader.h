// ByteReader: the one decoder of BEF primitives (VBR integers, FIXED32 words,
// NUL-terminated strings, alignment padding) over a bounded byte range.
//
// Every read is bounds-checked and fails with a FormatError that names the
// context (e.g. "Functions section"), the byte offset in the file and what was
// wrong; the summary of those errors is chosen by the caller with
// set_error_summary() so it can match TFRT's wording for that section.
//
// VBR ("variable bit rate") integers are unsigned, 7 bits per byte, with the
// most-significant group first; every byte but the last has bit 7 set.
//   0 -> 00, 127 -> 7F, 128 -> 81 00, 300 -> 82 2C, 16384 -> 81 80 00.
#ifndef BEF_FORMAT_BYTE_READER_H_
#define BEF_FORMAT_BYTE_READER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace bef {

// Number of bytes the VBR encoding of `value` takes (1 to 10).
constexpr size_t VbrSize(uint64_t value) {
  size_t size = 1;
  while (value >>= 7) ++size;
  return size;
}

// Largest encoded size of a VBR value (2^64 - 1 takes 10 bytes).
inline constexpr size_t kMaxVbrSize = 10;

// Writes the VBR encoding of `value` to `out` and returns the byte count.
// REQUIRES: `out` has room for VbrSize(value) bytes.
size_t EncodeVbr(uint64_t value, uint8_t* out);

// Little-endian 32-bit load from possibly unaligned memory.
inline uint32_t LoadFixed32(const uint8_t* bytes) {
  return uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 |
         uint32_t{bytes[2]} << 16 | uint32_t{bytes[3]} << 24;
}

class ByteReader {
 public:
  // `bytes` is the range to read; `file_offset` is the offset of bytes[0] in
  // the file (used only in error messages); `context` names what is read, as
  // in "Kernels section".
  ByteReader(std::span<const uint8_t> bytes, size_t file_offset,
             std::string_view context)
      : bytes_(bytes), file_offset_(file_offset), context_(context) {}

  // The summary of the FormatErrors this reader returns (default
  // "malformed BEF data").
  void set_error_summary(std::string_view summary) { summary_ = summary; }
  // `status`, a FormatError of a reader of the same bytes, with this
  // reader's summary instead (its detail kept).
  absl::Status Resummarize(const absl::Status& status) const;

  size_t position() const { return position_; }
  size_t file_offset() const { return file_offset_ + position_; }
  size_t remaining() const { return bytes_.size() - position_; }
  bool empty() const { return position_ == bytes_.size(); }
  std::span<const uint8_t> bytes() const { return bytes_; }
  // The unread bytes.
  std::span<const uint8_t> rest() const { return bytes_.subspan(position_); }

  absl::StatusOr<uint8_t> ReadByte();
  // A VBR integer of up to 64 bits; longer encodings are an error.
  absl::StatusOr<uint64_t> ReadVbr();
  // A VBR integer that must fit in 32 bits (every count, offset and index in
  // BEF does).
  absl::StatusOr<uint32_t> ReadVbr32();
  absl::StatusOr<uint32_t> ReadFixed32();
  absl::StatusOr<std::span<const uint8_t>> ReadBytes(size_t count);
  // Bytes up to (excluding) the next NUL; the NUL is consumed.
  absl::StatusOr<std::string_view> ReadNulTerminatedString();
  absl::Status Skip(size_t count);
  // Skips bytes until the *memory address* of the next byte is a multiple of
  // `alignment` (a power of two), as TFRT's reader does; this equals the file
  // offset rule when the image is loaded 8-aligned.
  absl::Status SkipToAlignment(size_t alignment);
  // Moves to an absolute position within the range.
  absl::Status Seek(size_t position);

  // A FormatError at the current position: "<context> at byte offset N:
  // <what>".
  absl::Status Error(std::string_view what) const;
  absl::Status ErrorAt(size_t position, std::string_view what) const;

 private:
  std::span<const uint8_t> bytes_;
  size_t position_ = 0;
  size_t file_offset_;
  std::string context_;
  std::string summary_ = "malformed BEF data";
};

// A NUL-terminated string at `offset` in a string pool (Strings or
// LocationStrings body); NotFound-style FormatError when the offset is out of
// range or the string is unterminated.
absl::StatusOr<std::string_view> ReadPoolString(std::span<const uint8_t> pool,
                                                size_t offset);

}  // namespace bef

#endif  // BEF_FORMAT_BYTE_READER_H_
