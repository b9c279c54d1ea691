// ByteWriter: the one encoder of BEF primitives, the writing twin of
// ByteReader. It appends bytes, VBR integers and FIXED32 words to a growing
// buffer, pads with 0xCC, and frames sections with TFRT's alignment-flag rule.
//
// Alignment is relative to the start of the buffer. A writer records the
// largest alignment it was asked for (required_alignment()); a section body
// written with EmitSection keeps that alignment only if the enclosing writer
// starts at an offset that is a multiple of it -- which holds for the file
// writer (offset 0) and for sections laid out by BefWriter.
#ifndef BEF_FORMAT_BYTE_WRITER_H_
#define BEF_FORMAT_BYTE_WRITER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bef/format/bef_encoding.h"

namespace bef {

class ByteWriter {
 public:
  size_t size() const { return bytes_.size(); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  std::vector<uint8_t> TakeBytes() { return std::move(bytes_); }
  // The largest alignment passed to EmitAlignment (at least 1).
  uint32_t required_alignment() const { return required_alignment_; }

  void EmitByte(uint8_t byte) { bytes_.push_back(byte); }
  void EmitRepeatedByte(uint8_t byte, size_t count) {
    bytes_.insert(bytes_.end(), count, byte);
  }
  void EmitBytes(std::span<const uint8_t> bytes) {
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  }
  void EmitString(std::string_view text) {
    bytes_.insert(bytes_.end(), text.begin(), text.end());
  }
  void EmitNulTerminatedString(std::string_view text) {
    EmitString(text);
    EmitByte(0);
  }
  void EmitVbr(uint64_t value);
  // Appends `count` bytes for the caller to fill in; the pointer is valid
  // until the next Emit.
  uint8_t* Extend(size_t count) {
    size_t start = bytes_.size();
    bytes_.resize(start + count);
    return bytes_.data() + start;
  }
  // Room for `capacity` bytes in all (growing at least geometrically, so
  // that reserving before each piece stays linear).
  void Reserve(size_t capacity) {
    if (capacity > bytes_.capacity()) {
      bytes_.reserve(std::max(capacity, 2 * bytes_.capacity()));
    }
  }
  // Little-endian, with no alignment of its own.
  void EmitFixed16(uint16_t value);
  // A FIXED32 word at `out` (room the caller made with Extend).
  static void StoreFixed32(uint8_t* out, uint32_t value) {
    for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
  }
  void EmitFixed32(uint32_t value);
  void EmitFixed64(uint64_t value);

  // Pads with 0xCC until size() is a multiple of `alignment`.
  void EmitAlignment(uint32_t alignment) { EmitAlignment(alignment, 0); }
  // Pads with 0xCC until size() + offset is a multiple of `alignment`
  // (e.g. alignment 8, offset 4: the next 4-byte word ends 8-aligned).
  // REQUIRES: alignment is a power of two.
  void EmitAlignment(uint32_t alignment, uint32_t offset);

  void OverwriteByte(size_t position, uint8_t byte) { bytes_[position] = byte; }
  void OverwriteFixed16(size_t position, uint16_t value);
  void OverwriteFixed32(size_t position, uint32_t value);

  // Appends a section: id byte, VBR (length << 1 | flag), and when the body
  // requires alignment A > 1 and would start misaligned, the flag, the byte A
  // and 0xCC padding up to A. `alignment` 0 means body.required_alignment().
  void EmitSection(SectionId id, const ByteWriter& body,
                   uint32_t alignment = 0);
  void EmitSection(uint8_t id, std::span<const uint8_t> body,
                   uint32_t alignment);

  // The bytes that frame a section body of `length` bytes whose id byte is
  // at file offset `offset`, written to `out`; returns how many. What
  // EmitSection writes before the body, for writers that stream sections.
  static constexpr size_t kMaxSectionHeaderSize = 1 + 10 + 1 + 255;
  static size_t EncodeSectionHeader(uint8_t id, uint64_t length,
                                    uint32_t alignment, size_t offset,
                                    uint8_t* out);

 private:
  std::vector<uint8_t> bytes_;
  uint32_t required_alignment_ = 1;
};

}  // namespace bef

#endif  // BEF_FORMAT_BYTE_WRITER_H_
