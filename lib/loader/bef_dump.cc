#include "bef/loader/bef_dump.h"

#include <cinttypes>
#include <cstdio>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bef/format/attribute_reader.h"
#include "bef/format/format_error.h"
#include "bef/support/string_view.h"

namespace bef {
namespace {

std::string Quote(std::string_view text) {
  return absl::StrCat("\"", absl::CHexEscape(ToAbsl(text)), "\"");
}

std::string KindName(FunctionKind kind) {
  switch (kind) {
    case FunctionKind::kBefFunction:
      return "async";
    case FunctionKind::kNativeFunction:
      return "native";
    case FunctionKind::kSyncBefFunction:
      return "sync";
  }
  return "?";
}

std::string TypeList(const BefFile& file, const std::vector<uint32_t>& types) {
  std::vector<std::string> names;
  for (uint32_t type : types) names.emplace_back(file.type_name(type));
  return absl::StrCat("(", absl::StrJoin(names, ", "), ")");
}

std::string FunctionLabel(const BefFile& file, uint32_t index) {
  const BefFunctionEntry& entry = file.function(index);
  return entry.name.empty() ? absl::StrCat("#", index)
                            : absl::StrCat("@", ToAbsl(entry.name));
}

void DumpSections(const BefFile& file, std::string& out) {
  auto image = file.image();
  absl::StrAppend(&out, "BEF file ", file.name(), ": ", image.size(),
                  " bytes, format version ",
                  image.size() > 2 ? image[2] : 0, "\n");
  absl::StrAppend(&out, "sections:\n");
  absl::StrAppendFormat(&out, "  %3s  %-16s %8s %8s %6s %7s\n", "id", "name",
                        "offset", "length", "align", "share");
  SectionReader reader(image);
  size_t count = 0, unknown = 0, body_bytes = 0;
  if (reader.ReadHeader().ok()) {
    while (!reader.done()) {
      absl::StatusOr<Section> section = reader.Next();
      if (!section.ok()) break;
      ++count;
      if (!section->is_known()) ++unknown;
      body_bytes += section->body.size();
      double share = image.empty() ? 0.0
                                   : 100.0 * section->body.size() / image.size();
      absl::StrAppendFormat(&out, "  %3d  %-16s %8zu %8zu %6u %6.1f%%\n",
                            section->id, ToAbsl(SectionName(section->id)),
                            section->body_offset, section->body.size(),
                            section->alignment, share);
    }
  }
  absl::StrAppend(&out, "total: ", count, " sections (", unknown,
                  " unknown), ", body_bytes, " body bytes, ",
                  image.size() - body_bytes, " bytes of header and framing\n");
}

std::string AttributeText(const BefFile& file, uint32_t offset) {
  std::optional<uint32_t> type = file.AttributeTypeAt(offset);
  if (!type) return absl::StrCat("@", offset);
  absl::StatusOr<DecodedAttribute> decoded =
      DecodeAttribute(file.attributes(), offset, *type);
  if (!decoded.ok()) {
    return absl::StrCat("@", offset, " <", DescribeFormatError(decoded.status()),
                        ">");
  }
  return decoded->ToString();
}

std::string LocationText(const BefFile& file, uint32_t offset) {
  std::optional<BefFile::LocationNode> node = file.DecodeLocationTree(offset);
  if (!node) return absl::StrCat("<no location @", offset, ">");
  return LocationNodeToString(*node);
}

void DumpFunction(const BefFile& file, uint32_t index, std::string& out) {
  const BefFunctionEntry& entry = file.function(index);
  absl::StrAppend(&out, "\nfunction ", FunctionLabel(file, index), " (",
                  KindName(entry.kind), ")", TypeList(file, entry.argument_types),
                  " -> ", TypeList(file, entry.result_types));
  if (entry.kind == FunctionKind::kNativeFunction) {
    absl::StrAppend(&out, ": native, no body\n");
    return;
  }
  absl::StatusOr<const FunctionInfo*> info_or = file.GetFunctionInfo(index);
  if (!info_or.ok()) {
    absl::StrAppend(&out, "\n  error: ", DescribeFormatError(info_or.status()),
                    "\n");
    return;
  }
  const FunctionInfo& info = **info_or;
  absl::StrAppend(&out, "  at ", LocationText(file, info.location), "\n");

  absl::StatusOr<std::vector<uint32_t>> register_types = file.RegisterTypes(index);
  absl::StatusOr<std::vector<std::vector<std::string_view>>> names =
      file.AttributeNames(index);
  if (!register_types.ok()) {
    absl::StrAppend(&out, "  warning: ", DescribeFormatError(register_types.status()),
                    "\n");
  }
  if (!names.ok()) {
    absl::StrAppend(&out, "  warning: ", DescribeFormatError(names.status()), "\n");
  }
  bool typed = register_types.ok() &&
               register_types->size() == info.num_registers;
  absl::StrAppend(&out, "  registers (", info.num_registers, "):\n");
  for (uint32_t r = 0; r < info.num_registers; ++r) {
    absl::StrAppend(&out, "    %", r);
    if (typed) absl::StrAppend(&out, " : ", ToAbsl(file.type_name((*register_types)[r])));
    absl::StrAppend(&out, "  uses ", info.register_uses[r],
                    r < info.num_arguments ? "  (argument)" : "", "\n");
  }
  absl::StrAppend(&out, "  kernels (", info.kernels.size(), "):\n");
  auto register_name = [&](uint32_t reg) {
    return reg == info.num_registers ? std::string("%special")
                                     : absl::StrCat("%", reg);
  };
  for (uint32_t k = 0; k < info.kernels.size(); ++k) {
    const KernelInfo& kernel = info.kernels[k];
    if (k == 0) {
      absl::StrAppend(&out, "    [0] pseudo");
    } else {
      std::vector<std::string> arguments;
      for (uint32_t reg : kernel.arguments()) arguments.push_back(register_name(reg));
      absl::StrAppend(&out, "    [", k, "] ", ToAbsl(file.kernel_name(kernel.code())),
                      "(", absl::StrJoin(arguments, ", "), ")");
      if (kernel.num_attributes() > 0) {
        std::vector<std::string> attributes;
        auto offsets = kernel.attributes();
        for (uint32_t a = 0; a < offsets.size(); ++a) {
          std::string text = AttributeText(file, offsets[a]);
          if (names.ok() && k < names->size() && a < (*names)[k].size()) {
            text = absl::StrCat(ToAbsl((*names)[k][a]), " = ", text);
          }
          attributes.push_back(text);
        }
        absl::StrAppend(&out, " {", absl::StrJoin(attributes, ", "), "}");
      }
      if (kernel.num_functions() > 0) {
        std::vector<std::string> functions;
        for (uint32_t f : kernel.functions()) functions.push_back(FunctionLabel(file, f));
        absl::StrAppend(&out, " functions [", absl::StrJoin(functions, ", "), "]");
      }
    }
    std::vector<std::string> results;
    const uint32_t* used_by = kernel.used_by();
    auto counts = kernel.used_by_counts();
    auto result_registers = kernel.results();
    for (uint32_t i = 0; i < result_registers.size(); ++i) {
      std::vector<std::string> users;
      for (uint32_t u = 0; u < counts[i]; ++u) users.push_back(absl::StrCat("[", *used_by++, "]"));
      results.push_back(absl::StrCat(register_name(result_registers[i]), " -> ",
                                     users.empty() ? "-" : absl::StrJoin(users, " ")));
    }
    absl::StrAppend(&out, " results {", absl::StrJoin(results, "; "), "}",
                    " stream ", kernel.stream);
    if (k > 0) absl::StrAppend(&out, " at ", LocationText(file, kernel.location()));
    absl::StrAppend(&out, "\n");
  }
  std::vector<std::string> results;
  for (uint32_t reg : info.result_registers) results.push_back(absl::StrCat("%", reg));
  absl::StrAppend(&out, "  returns (", absl::StrJoin(results, ", "), ")\n");
}

}  // namespace

std::string LocationNodeToString(const BefFile::LocationNode& node) {
  switch (node.kind) {
    case LocationKind::kUnknown:
      return "unknown";
    case LocationKind::kFileLineColumn:
      return absl::StrCat(Quote(node.text), ":", node.line, ":", node.column);
    case LocationKind::kName:
      return absl::StrCat(Quote(node.text), "(",
                          LocationNodeToString(node.children[0]), ")");
    case LocationKind::kCallSite:
      return absl::StrCat("callsite(", LocationNodeToString(node.children[0]),
                          " at ", LocationNodeToString(node.children[1]), ")");
    case LocationKind::kFused: {
      std::vector<std::string> parts;
      for (const auto& child : node.children) parts.push_back(LocationNodeToString(child));
      return absl::StrCat("fused[", absl::StrJoin(parts, ", "), "]");
    }
  }
  return "unknown";
}

std::string DumpBefFile(const BefFile& file, const BefDumpOptions& options) {
  std::string out;
  DumpSections(file, out);
  if (options.summary) return out;

  auto strings = file.sections().body(SectionId::kStrings);
  absl::StrAppend(&out, "\nstrings:\n");
  for (size_t offset = 0; offset < strings.size();) {
    absl::StatusOr<std::string_view> text = ReadPoolString(strings, offset);
    if (!text.ok()) {
      absl::StrAppend(&out, "  @", offset, " <unterminated>\n");
      break;
    }
    absl::StrAppend(&out, "  @", offset, " ", Quote(*text), "\n");
    offset += text->size() + 1;
  }
  absl::StrAppend(&out, "kernels (", file.num_kernels(), "):\n");
  for (uint32_t code = 0; code < file.num_kernels(); ++code) {
    absl::StrAppend(&out, "  #", code, " ", ToAbsl(file.kernel_name(code)), "\n");
  }
  absl::StrAppend(&out, "types (", file.num_types(), "):\n");
  for (uint32_t type = 0; type < file.num_types(); ++type) {
    absl::StrAppend(&out, "  #", type, " ", ToAbsl(file.type_name(type)), "\n");
  }
  absl::StrAppend(&out, "function index (", file.num_functions(), "):\n");
  for (uint32_t i = 0; i < file.num_functions(); ++i) {
    const BefFunctionEntry& entry = file.function(i);
    absl::StrAppend(&out, "  #", i, " ", KindName(entry.kind), " ",
                    entry.name.empty() ? "<anonymous>" : Quote(entry.name),
                    TypeList(file, entry.argument_types), " -> ",
                    TypeList(file, entry.result_types));
    if (entry.kind != FunctionKind::kNativeFunction) {
      absl::StrAppend(&out, " record @", entry.record_offset);
    }
    absl::StrAppend(&out, "\n");
  }
  for (uint32_t i = 0; i < file.num_functions(); ++i) DumpFunction(file, i, out);
  return out;
}

}  // namespace bef
