#include "bef/format/byte_writer.h"

#include <algorithm>

#include "bef/format/byte_reader.h"

namespace bef {

void ByteWriter::EmitVbr(uint64_t value) {
  if (value < 0x80) {
    bytes_.push_back(static_cast<uint8_t>(value));
    return;
  }
  uint8_t buffer[kMaxVbrSize];
  EmitBytes(std::span<const uint8_t>(buffer, EncodeVbr(value, buffer)));
}

void ByteWriter::EmitFixed16(uint16_t value) {
  EmitByte(static_cast<uint8_t>(value));
  EmitByte(static_cast<uint8_t>(value >> 8));
}

void ByteWriter::EmitFixed32(uint32_t value) { StoreFixed32(Extend(4), value); }

void ByteWriter::EmitFixed64(uint64_t value) {
  for (int shift = 0; shift < 64; shift += 8) {
    EmitByte(static_cast<uint8_t>(value >> shift));
  }
}

void ByteWriter::EmitAlignment(uint32_t alignment, uint32_t offset) {
  required_alignment_ = std::max(required_alignment_, alignment);
  size_t misalignment = (size() + offset) % alignment;
  if (misalignment != 0) {
    EmitRepeatedByte(kPaddingByte, alignment - misalignment);
  }
}

void ByteWriter::OverwriteFixed16(size_t position, uint16_t value) {
  bytes_[position] = static_cast<uint8_t>(value);
  bytes_[position + 1] = static_cast<uint8_t>(value >> 8);
}

void ByteWriter::OverwriteFixed32(size_t position, uint32_t value) {
  StoreFixed32(bytes_.data() + position, value);
}

void ByteWriter::EmitSection(SectionId id, const ByteWriter& body,
                             uint32_t alignment) {
  EmitSection(static_cast<uint8_t>(id), body.bytes(),
              alignment ? alignment : body.required_alignment());
}

void ByteWriter::EmitSection(uint8_t id, std::span<const uint8_t> body,
                             uint32_t alignment) {
  uint8_t header[kMaxSectionHeaderSize];
  size_t header_size =
      EncodeSectionHeader(id, body.size(), alignment, size(), header);
  EmitBytes(std::span<const uint8_t>(header, header_size));
  required_alignment_ = std::max(required_alignment_, alignment);
  EmitBytes(body);
}

size_t ByteWriter::EncodeSectionHeader(uint8_t id, uint64_t length,
                                       uint32_t alignment, size_t offset,
                                       uint8_t* out) {
  static_assert(kMaxSectionHeaderSize >= 1 + kMaxVbrSize + 1 + 255);
  size_t size = 0;
  out[size++] = id;
  // TFRT's rule: flag the section only when the body, placed right after the
  // unflagged length, would be misaligned.
  size_t unflagged_body_start = offset + size + VbrSize(length << 1);
  if (alignment > 1 && unflagged_body_start % alignment != 0) {
    size += EncodeVbr(length << 1 | 1, out + size);
    out[size++] = static_cast<uint8_t>(alignment);
    while ((offset + size) % alignment != 0) out[size++] = kPaddingByte;
  } else {
    size += EncodeVbr(length << 1, out + size);
  }
  return size;
}

}  // namespace bef
