#include "bef/format/bef_records.h"

#include "absl/strings/str_cat.h"
#include "bef/support/status_macros.h"

namespace bef {

KernelRecordFit FitKernelRecord(const uint32_t* list, size_t list_words, size_t at) {
  if (at + kKernelRecordHeaderWords > list_words) return KernelRecordFit::kHeaderPastEnd;
  const KernelRecord kernel{list + at};
  uint64_t total = kKernelRecordHeaderWords + uint64_t{2} * kernel.num_results() +
                   kernel.num_arguments() + kernel.num_attributes() + kernel.num_functions();
  if (at + total > list_words) return KernelRecordFit::kFieldsPastEnd;
  for (uint32_t count : kernel.used_by_counts()) total += count;
  if (at + total > list_words) return KernelRecordFit::kUsedByPastEnd;
  return KernelRecordFit::kFits;
}

absl::StatusOr<FunctionRecordHead> ReadFunctionRecordHead(ByteReader& reader,
                                                          size_t num_results,
                                                          FunctionRecordPart* failed) {
  FunctionRecordHead head;
  *failed = FunctionRecordPart::kLocation;
  BEF_ASSIGN_OR_RETURN(head.location, reader.ReadVbr32());
  *failed = FunctionRecordPart::kRegisterCount;
  BEF_ASSIGN_OR_RETURN(uint32_t num_registers, reader.ReadVbr32());
  if (num_registers > reader.remaining()) {
    return reader.Error(absl::StrCat(num_registers, " registers cannot fit in the record"));
  }
  *failed = FunctionRecordPart::kRegisterUses;
  head.register_uses.resize(num_registers);
  for (uint32_t& uses : head.register_uses) {
    BEF_ASSIGN_OR_RETURN(uses, reader.ReadVbr32());
  }
  *failed = FunctionRecordPart::kKernelCount;
  BEF_ASSIGN_OR_RETURN(uint32_t num_kernels, reader.ReadVbr32());
  if (num_kernels == 0 || num_kernels > reader.remaining() / 3) {
    return reader.Error(absl::StrCat(num_kernels,
                                     " kernels: needs the pseudo kernel and "
                                     "must fit in the record"));
  }
  *failed = FunctionRecordPart::kKernelTable;
  head.kernels.resize(num_kernels);
  for (FunctionRecordHead::Kernel& kernel : head.kernels) {
    BEF_ASSIGN_OR_RETURN(kernel.offset, reader.ReadVbr32());
    BEF_ASSIGN_OR_RETURN(kernel.num_operands, reader.ReadVbr32());
    BEF_ASSIGN_OR_RETURN(kernel.stream, reader.ReadVbr32());
  }
  *failed = FunctionRecordPart::kResultRegisters;
  if (num_results > reader.remaining()) {
    return reader.Error(absl::StrCat(num_results, " result registers cannot fit in the record"));
  }
  head.result_registers.resize(num_results);
  for (uint32_t& reg : head.result_registers) {
    BEF_ASSIGN_OR_RETURN(reg, reader.ReadVbr32());
  }
  *failed = FunctionRecordPart::kKernelList;
  while (reader.position() % kKernelEntryAlignment != 0) {
    BEF_RETURN_IF_ERROR(reader.Skip(1));
  }
  return head;
}

absl::StatusOr<FunctionIndexRecord> ReadFunctionIndexRecord(ByteReader& reader) {
  FunctionIndexRecord entry;
  entry.kind_at = reader.position();
  BEF_ASSIGN_OR_RETURN(entry.kind, reader.ReadByte());
  entry.record_offset_at = reader.position();
  BEF_ASSIGN_OR_RETURN(entry.record_offset, reader.ReadVbr32());
  entry.name_at = reader.position();
  BEF_ASSIGN_OR_RETURN(entry.name_offset, reader.ReadVbr32());
  entry.types_at = reader.position();
  for (std::vector<uint32_t>* types : {&entry.argument_types, &entry.result_types}) {
    BEF_ASSIGN_OR_RETURN(uint32_t count, ReadTableCount(reader, "types"));
    types->resize(count);
    for (uint32_t& type : *types) {
      BEF_ASSIGN_OR_RETURN(type, reader.ReadVbr32());
    }
  }
  return entry;
}

namespace {

bool ReadLocationInto(ByteReader& reader, std::span<const uint8_t> strings, int depth,
                      int max_depth, LocationRecord& node) {
  if (depth > max_depth) return false;
  absl::StatusOr<uint8_t> kind = reader.ReadByte();
  if (!kind.ok() || *kind >= kNumLocationKinds) return false;
  node.kind = static_cast<LocationKind>(*kind);
  auto read_string = [&]() -> bool {
    absl::StatusOr<uint32_t> offset = reader.ReadVbr32();
    if (!offset.ok()) return false;
    absl::StatusOr<std::string_view> text = ReadPoolString(strings, *offset);
    if (!text.ok()) return false;
    node.text = *text;
    return true;
  };
  auto read_child = [&]() -> bool {
    node.children.emplace_back();
    return ReadLocationInto(reader, strings, depth + 1, max_depth, node.children.back());
  };
  switch (node.kind) {
    case LocationKind::kUnknown:
      return true;
    case LocationKind::kFileLineColumn: {
      if (!read_string()) return false;
      absl::StatusOr<uint32_t> line = reader.ReadVbr32();
      absl::StatusOr<uint32_t> column = line.ok() ? reader.ReadVbr32() : line;
      if (!line.ok() || !column.ok()) return false;
      node.line = *line;
      node.column = *column;
      return true;
    }
    case LocationKind::kName:
      return read_string() && read_child();
    case LocationKind::kCallSite:
      return read_child() && read_child();
    case LocationKind::kFused: {
      absl::StatusOr<uint32_t> count = reader.ReadVbr32();
      if (!count.ok() || *count > reader.remaining()) return false;
      for (uint32_t i = 0; i < *count; ++i) {
        if (!read_child()) return false;
      }
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<LocationRecord> ReadLocationRecord(ByteReader& reader,
                                                 std::span<const uint8_t> location_strings,
                                                 int max_depth) {
  LocationRecord record;
  if (!ReadLocationInto(reader, location_strings, 0, max_depth, record)) return std::nullopt;
  return record;
}

absl::StatusOr<std::vector<VbrEntry>> ReadVbrTable(ByteReader& reader, std::string_view what) {
  BEF_ASSIGN_OR_RETURN(uint32_t count, ReadTableCount(reader, what));
  std::vector<VbrEntry> entries(count);
  for (VbrEntry& entry : entries) {
    entry.at = reader.position();
    BEF_ASSIGN_OR_RETURN(entry.value, reader.ReadVbr32());
  }
  return entries;
}

absl::StatusOr<std::vector<AttributeTypeEntry>> ReadAttributeTypeTable(ByteReader& reader) {
  BEF_ASSIGN_OR_RETURN(uint32_t count, ReadTableCount(reader, "attribute types"));
  std::vector<AttributeTypeEntry> entries(count);
  for (AttributeTypeEntry& entry : entries) {
    BEF_ASSIGN_OR_RETURN(entry.offset, reader.ReadVbr32());
    BEF_ASSIGN_OR_RETURN(entry.type, reader.ReadVbr32());
  }
  return entries;
}

absl::StatusOr<uint32_t> ReadTableCount(ByteReader& reader, std::string_view what) {
  BEF_ASSIGN_OR_RETURN(uint32_t count, reader.ReadVbr32());
  if (count > reader.remaining()) {
    return reader.Error(absl::StrCat(count, " ", absl::string_view(what.data(), what.size()),
                                     " cannot fit in ", reader.remaining(),
                                     " bytes"));
  }
  return count;
}

}  // namespace bef
