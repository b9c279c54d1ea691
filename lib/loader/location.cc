// Location decoding (Locations + LocationStrings sections). Records are read
// only when a location is decoded: for a diagnostic or a tool.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bef/format/byte_reader.h"
#include "bef/loader/bef_file.h"
#include "bef/support/string_view.h"

namespace bef {
namespace {

// Nested locations deeper than this are treated as malformed.
constexpr int kMaxLocationDepth = 64;

// TFRT's text for a location that is not a file location: unknown ->
// "(unknown)"; file -> "file;line;col"; name -> "<child>(<name>)" or
// "<name>" when the child is unknown; call site -> "<callee><-<caller>";
// fused -> children joined by ",".
std::string OpaqueText(const BefFile::LocationNode& node) {
  switch (node.kind) {
    case LocationKind::kUnknown:
      return "(unknown)";
    case LocationKind::kFileLineColumn:
      return absl::StrCat(ToAbsl(node.text), ";", node.line, ";", node.column);
    case LocationKind::kName:
      if (node.children[0].kind == LocationKind::kUnknown) {
        return std::string(node.text);
      }
      return absl::StrCat(OpaqueText(node.children[0]), "(", ToAbsl(node.text), ")");
    case LocationKind::kCallSite:
      return absl::StrCat(OpaqueText(node.children[0]), "<-",
                          OpaqueText(node.children[1]));
    case LocationKind::kFused: {
      std::vector<std::string> parts;
      for (const auto& child : node.children) parts.push_back(OpaqueText(child));
      return absl::StrJoin(parts, ",");
    }
  }
  return "(unknown)";
}

}  // namespace

std::optional<BefFile::LocationNode> BefFile::DecodeLocationTree(
    uint32_t offset) const {
  auto locations = sections_.body(SectionId::kLocations);
  if (offset >= locations.size()) return std::nullopt;
  ByteReader reader(locations, 0, "Locations section");
  if (!reader.Seek(offset).ok()) return std::nullopt;
  return ReadLocationRecord(reader, sections_.body(SectionId::kLocationStrings),
                            kMaxLocationDepth);
}

DecodedLocation BefFile::DecodeLocation(uint64_t offset) const {
  DecodedLocation location;
  std::optional<LocationNode> node =
      offset <= UINT32_MAX ? DecodeLocationTree(static_cast<uint32_t>(offset))
                           : std::nullopt;
  if (!node) {
    // TFRT's quirk for virtual and out-of-range offsets.
    location.line = UINT32_MAX;
    location.column = UINT32_MAX;
    return location;
  }
  switch (node->kind) {
    case LocationKind::kName:
      location.debug_info = std::string(node->text);
      break;
    case LocationKind::kFused: {
      std::string names;
      for (const LocationNode& child : node->children) {
        if (child.kind == LocationKind::kName) names += std::string(child.text);
      }
      location.debug_info = names;
      break;
    }
    case LocationKind::kCallSite:
      if (node->children[0].kind == LocationKind::kName) {
        location.debug_info = std::string(node->children[0].text);
      }
      break;
    default:
      break;
  }
  if (node->kind == LocationKind::kFileLineColumn) {
    location.filename = std::string(node->text);
    location.line = node->line;
    location.column = node->column;
    return location;
  }
  location.opaque = true;
  location.description = OpaqueText(*node);
  return location;
}

}  // namespace bef
