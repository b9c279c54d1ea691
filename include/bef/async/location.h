// Location: where in a program something happened, as a cheap token.
//
// Kernels and errors carry a Location (an opaque 64-bit value plus the
// decoder that understands it -- for BEF programs, the loaded file and the
// offset of the kernel's location record). Decoding to text happens only when
// a diagnostic is reported.
#ifndef BEF_ASYNC_LOCATION_H_
#define BEF_ASYNC_LOCATION_H_

#include <cstdint>
#include <optional>
#include <string>

namespace bef {

// A location made readable: a file position, or an opaque description
// (name, call-site and fused locations, e.g. "in.py;12;34(n)").
struct DecodedLocation {
  bool is_file_location() const { return !opaque; }

  bool opaque = false;
  std::string filename;  // file locations
  uint32_t line = 0;
  uint32_t column = 0;
  std::string description;  // opaque locations
  // TFRT's kernel debug info: a name location's name, the concatenated names
  // of a fused location's direct name children, a call site's callee name.
  std::optional<std::string> debug_info;
};

class LocationDecoder {
 public:
  virtual ~LocationDecoder() = default;
  virtual DecodedLocation DecodeLocation(uint64_t data) const = 0;
};

struct Location {
  bool has_value() const { return decoder != nullptr; }
  // REQUIRES: has_value().
  DecodedLocation Decode() const { return decoder->DecodeLocation(data); }

  const LocationDecoder* decoder = nullptr;
  uint64_t data = 0;
};

// `file.mlir:3:8` for a file location, the description of an opaque one,
// "" when there is none (no location, or a file location without a name):
// what error messages for users (bef_serve, the Python package) show.
inline std::string LocationText(const Location& location) {
  if (!location.has_value()) return "";
  DecodedLocation decoded = location.Decode();
  if (!decoded.is_file_location()) return decoded.description;
  if (decoded.filename.empty()) return "";
  return decoded.filename + ":" + std::to_string(decoded.line) + ":" +
         std::to_string(decoded.column);
}

}  // namespace bef

#endif  // BEF_ASYNC_LOCATION_H_
