// The records of a BEF file, read: the one place outside BefWriter that knows
// their field order (bef-format.md). Every reader of BEF bytes -- the
// verifying loader, bef-to-mlir (lenient, with TFRT's messages), bef-dump --
// goes through these views; what to accept and how to word a refusal stays
// with each of them.
//
// The views do not verify meaning (a register number below the register
// count, a kernel code below the kernel count): only that every field is
// inside the bytes. Each reader reports which part of its record it could
// not read, so a caller can word the error as it must.
#ifndef BEF_FORMAT_BEF_RECORDS_H_
#define BEF_FORMAT_BEF_RECORDS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "bef/format/bef_encoding.h"
#include "bef/format/byte_reader.h"

namespace bef {

// A kernel record in the kernel list of a function (4-aligned FIXED32
// words, little-endian), read in place: code, location, #arguments,
// #attributes, #functions, #results, the used-by count of each result, the
// argument registers, attribute offsets, function indices, result
// registers, then the used-by entries (kernel indices) of each result in
// result order.
// REQUIRES (for the accessors past the header): the record fits, which
// KernelRecordWords says.
struct KernelRecord {
  const uint32_t* record = nullptr;

  uint32_t code() const { return record[0]; }
  uint32_t location() const { return record[1]; }
  uint32_t num_arguments() const { return record[2]; }
  uint32_t num_attributes() const { return record[3]; }
  uint32_t num_functions() const { return record[4]; }
  uint32_t num_results() const { return record[5]; }
  std::span<const uint32_t> used_by_counts() const {
    return {record + kKernelRecordHeaderWords, num_results()};
  }
  std::span<const uint32_t> arguments() const {
    return {record + kKernelRecordHeaderWords + num_results(), num_arguments()};
  }
  std::span<const uint32_t> attributes() const {
    return {arguments().data() + num_arguments(), num_attributes()};
  }
  std::span<const uint32_t> functions() const {
    return {attributes().data() + num_attributes(), num_functions()};
  }
  std::span<const uint32_t> results() const {
    return {functions().data() + num_functions(), num_results()};
  }
  // All used-by entries, grouped per result in result order.
  const uint32_t* used_by() const { return results().data() + num_results(); }
};

// How a kernel record at word `at` of a kernel list of `list_words` words
// fits: its header, its fixed part (up to the result registers) and its
// used-by lists, each checked before the next is read.
enum class KernelRecordFit { kFits, kHeaderPastEnd, kFieldsPastEnd, kUsedByPastEnd };
KernelRecordFit FitKernelRecord(const uint32_t* list, size_t list_words, size_t at);

// The head of a function record (what precedes its kernel list): its
// location, the use count of each register, per kernel the offset of its
// record in the kernel list, its operand count and stream, and the result
// registers. The kernel list starts at the next 4-aligned position.
struct FunctionRecordHead {
  struct Kernel {
    uint32_t offset = 0;  // bytes into the kernel list
    uint32_t num_operands = 0;
    uint32_t stream = 0;
  };
  uint32_t location = 0;
  std::vector<uint32_t> register_uses;
  std::vector<Kernel> kernels;
  std::vector<uint32_t> result_registers;
};

// The part of a function record a read stopped at.
enum class FunctionRecordPart {
  kLocation,
  kRegisterCount,  // also: more registers than bytes left
  kRegisterUses,
  kKernelCount,    // also: no kernel, or more kernels than bytes left
  kKernelTable,
  kResultRegisters,
  kKernelList,     // the padding to the 4-aligned kernel list
};

// Reads the head of a function record with `num_results` results at the
// reader's position, then skips to the kernel list (a 4-aligned position of
// the reader's range). On failure, *failed says which part (the status is
// the reader's FormatError).
absl::StatusOr<FunctionRecordHead> ReadFunctionRecordHead(ByteReader& reader,
                                                          size_t num_results,
                                                          FunctionRecordPart* failed);

// An entry of the FunctionIndex section: kind byte, function record offset,
// name offset (Strings), argument and result type indices (Types). `kind`
// is the raw byte (checked by the caller); the *_at members are reader
// positions, for errors.
struct FunctionIndexRecord {
  uint8_t kind = 0;
  uint32_t record_offset = 0;
  uint32_t name_offset = 0;
  std::vector<uint32_t> argument_types;
  std::vector<uint32_t> result_types;
  size_t kind_at = 0, record_offset_at = 0, name_at = 0, types_at = 0;
};
// Reads one entry at the reader's position; a type count larger than the
// bytes left is an error.
absl::StatusOr<FunctionIndexRecord> ReadFunctionIndexRecord(ByteReader& reader);

// A location record of the Locations section: a kind byte, then by kind
// nothing (unknown), a LocationStrings offset, line and column (file line
// column), a LocationStrings offset and a child (name), two children (call
// site: callee, caller), or a count and that many children (fused).
struct LocationRecord {
  LocationKind kind = LocationKind::kUnknown;
  std::string_view text;  // file or name, in the LocationStrings body
  uint32_t line = 0;
  uint32_t column = 0;
  std::vector<LocationRecord> children;
};
// The record at the reader's position, its strings in `location_strings`;
// nullopt when it does not read (or nests deeper than `max_depth`).
std::optional<LocationRecord> ReadLocationRecord(ByteReader& reader,
                                                 std::span<const uint8_t> location_strings,
                                                 int max_depth);

// A table of VBR integers: a count (checked against the bytes left), then
// the entries -- the Kernels and Types sections (Strings offsets), a
// function's RegisterTypes entry (Types indices). `at` is each entry's
// reader position, for errors.
struct VbrEntry {
  uint32_t value = 0;
  size_t at = 0;
};
absl::StatusOr<std::vector<VbrEntry>> ReadVbrTable(ByteReader& reader, std::string_view what);

// The AttributeTypes section: a count, then (Attributes offset, attribute
// type) pairs.
struct AttributeTypeEntry {
  uint32_t offset = 0;
  uint32_t type = 0;
};
absl::StatusOr<std::vector<AttributeTypeEntry>> ReadAttributeTypeTable(ByteReader& reader);

// The RegisterTypes and AttributeNames sections start with the number of
// functions they describe (every function of the index; native functions
// have no entry).
inline absl::StatusOr<uint32_t> ReadPerFunctionTableCount(ByteReader& reader) {
  return reader.ReadVbr32();
}

// The AttributeNames section, streamed in its order: the function count,
// then per non-native function its kernel count and, per kernel after the
// pseudo kernel, one Strings offset per attribute of the kernel's record.
// (Which kernels and how many attributes only the function records say.)
class AttributeNamesReader {
 public:
  explicit AttributeNamesReader(ByteReader reader) : reader_(reader) {}
  // The function count; then each function in index order.
  absl::StatusOr<uint32_t> ReadFunctionCount() { return ReadPerFunctionTableCount(reader_); }
  // A function's kernel count; then its names.
  absl::StatusOr<uint32_t> ReadKernelCount() { return reader_.ReadVbr32(); }
  // The next attribute's name (a Strings offset).
  absl::StatusOr<uint32_t> ReadName() { return reader_.ReadVbr32(); }
  const ByteReader& reader() const { return reader_; }

 private:
  ByteReader reader_;
};

// The count and entries of a table of VBR integers that the Kernels and
// Types sections (offsets into Strings) and the FunctionIndex section start
// with: the count, checked against the bytes left.
absl::StatusOr<uint32_t> ReadTableCount(ByteReader& reader, std::string_view what);

}  // namespace bef

#endif  // BEF_FORMAT_BEF_RECORDS_H_
