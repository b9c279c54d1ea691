#include "bef/format/byte_reader.h"

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "bef/format/format_error.h"

namespace bef {

size_t EncodeVbr(uint64_t value, uint8_t* out) {
  size_t size = VbrSize(value);
  // The last byte holds the low 7 bits; earlier bytes carry the continuation
  // bit (most-significant group first).
  for (size_t i = size; i-- > 0;) {
    out[i] = static_cast<uint8_t>(value & 0x7F) | (i + 1 < size ? 0x80 : 0);
    value >>= 7;
  }
  return size;
}

absl::Status ByteReader::ErrorAt(size_t position, std::string_view what) const {
  return FormatError(summary_, absl::StrCat(context_, " at byte offset ",
                                            file_offset_ + position, ": ",
                                            absl::string_view(what.data(),
                                                              what.size())));
}

absl::Status ByteReader::Resummarize(const absl::Status& status) const {
  return FormatError(summary_, FormatErrorDetail(status));
}

absl::Status ByteReader::Error(std::string_view what) const {
  return ErrorAt(position_, what);
}

absl::StatusOr<uint8_t> ByteReader::ReadByte() {
  if (empty()) return Error("unexpected end of data reading a byte");
  return bytes_[position_++];
}

absl::StatusOr<uint64_t> ByteReader::ReadVbr() {
  size_t start = position_;
  uint64_t value = 0;
  while (true) {
    if (empty()) {
      return ErrorAt(start, "unexpected end of data inside an integer");
    }
    if (value >> 57) return ErrorAt(start, "integer does not fit in 64 bits");
    uint8_t byte = bytes_[position_++];
    value = (value << 7) | (byte & 0x7F);
    if ((byte & 0x80) == 0) return value;
  }
}

absl::StatusOr<uint32_t> ByteReader::ReadVbr32() {
  size_t start = position_;
  absl::StatusOr<uint64_t> value = ReadVbr();
  if (!value.ok()) return value.status();
  if (*value > UINT32_MAX) {
    return ErrorAt(start, absl::StrCat("integer ", *value,
                                       " does not fit in 32 bits"));
  }
  return static_cast<uint32_t>(*value);
}

absl::StatusOr<uint32_t> ByteReader::ReadFixed32() {
  if (remaining() < 4) return Error("unexpected end of data reading a word");
  uint32_t value = LoadFixed32(bytes_.data() + position_);
  position_ += 4;
  return value;
}

absl::StatusOr<std::span<const uint8_t>> ByteReader::ReadBytes(size_t count) {
  if (remaining() < count) {
    return Error(absl::StrCat("needs ", count, " bytes, only ", remaining(),
                              " remain"));
  }
  auto result = bytes_.subspan(position_, count);
  position_ += count;
  return result;
}

absl::StatusOr<std::string_view> ByteReader::ReadNulTerminatedString() {
  if (empty()) return Error("unterminated string");
  const uint8_t* begin = bytes_.data() + position_;
  const void* nul = std::memchr(begin, 0, remaining());
  if (nul == nullptr) return Error("unterminated string");
  size_t length = static_cast<const uint8_t*>(nul) - begin;
  position_ += length + 1;
  return std::string_view(reinterpret_cast<const char*>(begin), length);
}

absl::Status ByteReader::Skip(size_t count) {
  if (remaining() < count) {
    return Error(absl::StrCat("cannot skip ", count, " bytes, only ",
                              remaining(), " remain"));
  }
  position_ += count;
  return absl::OkStatus();
}

absl::Status ByteReader::SkipToAlignment(size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return Error(absl::StrCat("alignment ", alignment,
                              " is not a power of two"));
  }
  auto address = reinterpret_cast<uintptr_t>(bytes_.data() + position_);
  size_t padding = (alignment - address % alignment) % alignment;
  if (remaining() < padding) {
    return Error(absl::StrCat("alignment padding of ", padding,
                              " bytes runs past the end"));
  }
  position_ += padding;
  return absl::OkStatus();
}

absl::Status ByteReader::Seek(size_t position) {
  if (position > bytes_.size()) {
    return Error(absl::StrCat("position ", position, " is past the end (",
                              bytes_.size(), " bytes)"));
  }
  position_ = position;
  return absl::OkStatus();
}

absl::StatusOr<std::string_view> ReadPoolString(std::span<const uint8_t> pool,
                                                size_t offset) {
  if (offset >= pool.size()) {
    return FormatError("invalid string offset",
                       absl::StrCat("string offset ", offset,
                                    " is outside the pool of ", pool.size(),
                                    " bytes"));
  }
  const uint8_t* begin = pool.data() + offset;
  const void* nul = std::memchr(begin, 0, pool.size() - offset);
  if (nul == nullptr) {
    return FormatError("invalid string offset",
                       absl::StrCat("string at offset ", offset,
                                    " is not NUL-terminated"));
  }
  return std::string_view(reinterpret_cast<const char*>(begin),
                          static_cast<const uint8_t*>(nul) - begin);
}

}  // namespace bef
