// The record readers of bef_records.h: each record read field by field, and
// the part a truncated record stops at.
#include "bef/format/bef_records.h"

#include <cstdint>
#include <vector>

#include "bef/format/byte_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bef {
namespace {

using ::testing::ElementsAre;

std::vector<uint8_t> FunctionRecordBytes() {
  ByteWriter record;
  record.EmitVbr(7);    // location
  record.EmitVbr(2);    // registers
  record.EmitVbr(1);    // uses of register 0
  record.EmitVbr(200);  // uses of register 1 (a two-byte VBR)
  record.EmitVbr(1);    // kernels
  record.EmitVbr(0);    // kernel 0: offset, operands, stream
  record.EmitVbr(0);
  record.EmitVbr(3);
  record.EmitVbr(1);    // result register
  return record.TakeBytes();
}

TEST(FunctionRecordHeadTest, ReadsEveryPartThenAlignsToTheKernelList) {
  std::vector<uint8_t> bytes = FunctionRecordBytes();
  bytes.resize(12, 0xCC);  // padding, then the kernel list
  ByteReader reader(bytes, 0, "record");
  FunctionRecordPart failed;
  absl::StatusOr<FunctionRecordHead> head = ReadFunctionRecordHead(reader, 1, &failed);
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->location, 7u);
  EXPECT_THAT(head->register_uses, ElementsAre(1, 200));
  ASSERT_EQ(head->kernels.size(), 1u);
  EXPECT_EQ(head->kernels[0].stream, 3u);
  EXPECT_THAT(head->result_registers, ElementsAre(1));
  EXPECT_EQ(reader.position() % kKernelEntryAlignment, 0u);
  EXPECT_EQ(reader.position(), 12u);
}

TEST(FunctionRecordHeadTest, ATruncatedRecordSaysWhichPartItStoppedAt) {
  const std::vector<uint8_t> whole = FunctionRecordBytes();
  auto part_of_prefix = [&](size_t size) {
    std::vector<uint8_t> bytes(whole.begin(), whole.begin() + size);
    ByteReader reader(bytes, 0, "record");
    FunctionRecordPart failed;
    EXPECT_FALSE(ReadFunctionRecordHead(reader, 1, &failed).ok()) << size;
    return failed;
  };
  EXPECT_EQ(part_of_prefix(0), FunctionRecordPart::kLocation);
  EXPECT_EQ(part_of_prefix(1), FunctionRecordPart::kRegisterCount);
  EXPECT_EQ(part_of_prefix(3), FunctionRecordPart::kRegisterCount);  // 2 registers in 1 byte
  EXPECT_EQ(part_of_prefix(4), FunctionRecordPart::kRegisterUses);  // half a VBR
  EXPECT_EQ(part_of_prefix(5), FunctionRecordPart::kKernelCount);
  EXPECT_EQ(part_of_prefix(6), FunctionRecordPart::kKernelCount);  // 1 kernel in 0 bytes
  EXPECT_EQ(part_of_prefix(9), FunctionRecordPart::kResultRegisters);
  // Complete, but no room to align to the kernel list.
  EXPECT_EQ(part_of_prefix(10), FunctionRecordPart::kKernelList);

  // A kernel table entry whose VBR never ends.
  std::vector<uint8_t> endless = {0, 0, 1, 0x80, 0x80, 0x80, 0x80};
  ByteReader endless_reader(endless, 0, "record");
  FunctionRecordPart endless_part;
  EXPECT_FALSE(ReadFunctionRecordHead(endless_reader, 0, &endless_part).ok());
  EXPECT_EQ(endless_part, FunctionRecordPart::kKernelTable);

  ByteWriter no_kernels;
  no_kernels.EmitVbr(0);
  no_kernels.EmitVbr(0);
  no_kernels.EmitVbr(0);  // no kernel: not even the pseudo kernel
  no_kernels.EmitFixed32(0);
  std::vector<uint8_t> bytes = no_kernels.TakeBytes();
  ByteReader reader(bytes, 0, "record");
  FunctionRecordPart failed;
  EXPECT_FALSE(ReadFunctionRecordHead(reader, 0, &failed).ok());
  EXPECT_EQ(failed, FunctionRecordPart::kKernelCount);
}

TEST(KernelRecordTest, FieldsInPlaceAndHowARecordFits) {
  // code 9, location 4, 1 argument, 1 attribute, 0 functions, 1 result;
  // used-by count 2; argument 3; attribute offset 16; result 5; used by 1, 2.
  const std::vector<uint32_t> words = {9, 4, 1, 1, 0, 1, 2, 3, 16, 5, 1, 2};
  const KernelRecord kernel{words.data()};
  EXPECT_EQ(kernel.code(), 9u);
  EXPECT_EQ(kernel.location(), 4u);
  EXPECT_THAT(kernel.used_by_counts(), ElementsAre(2));
  EXPECT_THAT(kernel.arguments(), ElementsAre(3));
  EXPECT_THAT(kernel.attributes(), ElementsAre(16));
  EXPECT_TRUE(kernel.functions().empty());
  EXPECT_THAT(kernel.results(), ElementsAre(5));
  EXPECT_EQ(kernel.used_by()[0], 1u);
  EXPECT_EQ(kernel.used_by()[1], 2u);
  EXPECT_EQ(FitKernelRecord(words.data(), 12, 0), KernelRecordFit::kFits);
  EXPECT_EQ(FitKernelRecord(words.data(), 11, 0), KernelRecordFit::kUsedByPastEnd);
  EXPECT_EQ(FitKernelRecord(words.data(), 9, 0), KernelRecordFit::kFieldsPastEnd);
  EXPECT_EQ(FitKernelRecord(words.data(), 5, 0), KernelRecordFit::kHeaderPastEnd);
  EXPECT_EQ(FitKernelRecord(words.data(), 12, 7), KernelRecordFit::kHeaderPastEnd);
}

TEST(FunctionIndexRecordTest, ReadsAnEntryAndRefusesCountsPastTheEnd) {
  ByteWriter index;
  index.EmitByte(2);  // kind
  index.EmitVbr(40);  // record offset
  index.EmitVbr(3);   // name offset
  index.EmitVbr(2);   // arguments
  index.EmitVbr(1);
  index.EmitVbr(0);
  index.EmitVbr(1);   // results
  index.EmitVbr(4);
  std::vector<uint8_t> bytes = index.TakeBytes();
  ByteReader reader(bytes, 0, "index");
  absl::StatusOr<FunctionIndexRecord> entry = ReadFunctionIndexRecord(reader);
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_EQ(entry->kind, 2);
  EXPECT_EQ(entry->record_offset, 40u);
  EXPECT_EQ(entry->name_offset, 3u);
  EXPECT_THAT(entry->argument_types, ElementsAre(1, 0));
  EXPECT_THAT(entry->result_types, ElementsAre(4));
  EXPECT_EQ(entry->name_at, 2u);
  EXPECT_TRUE(reader.empty());

  std::vector<uint8_t> huge = {0, 0, 0, 100, 1};  // 100 argument types in 1 byte
  ByteReader huge_reader(huge, 0, "index");
  EXPECT_FALSE(ReadFunctionIndexRecord(huge_reader).ok());
}

TEST(TablesTest, VbrAndAttributeTypeTables) {
  ByteWriter table;
  table.EmitVbr(3);
  table.EmitVbr(0);
  table.EmitVbr(300);
  table.EmitVbr(7);
  std::vector<uint8_t> bytes = table.TakeBytes();
  ByteReader reader(bytes, 0, "Kernels");
  absl::StatusOr<std::vector<VbrEntry>> entries = ReadVbrTable(reader, "kernels");
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[1].value, 300u);
  EXPECT_EQ((*entries)[2].at, 4u);

  std::vector<uint8_t> short_table = {5, 1};
  ByteReader short_reader(short_table, 0, "Types");
  EXPECT_FALSE(ReadVbrTable(short_reader, "types").ok());

  ByteWriter types;
  types.EmitVbr(2);
  types.EmitVbr(8);
  types.EmitVbr(1);
  types.EmitVbr(16);
  types.EmitVbr(2);
  std::vector<uint8_t> type_bytes = types.TakeBytes();
  ByteReader type_reader(type_bytes, 0, "AttributeTypes");
  absl::StatusOr<std::vector<AttributeTypeEntry>> pairs = ReadAttributeTypeTable(type_reader);
  ASSERT_TRUE(pairs.ok());
  ASSERT_EQ(pairs->size(), 2u);
  EXPECT_EQ((*pairs)[1].offset, 16u);
  EXPECT_EQ((*pairs)[1].type, 2u);
}

TEST(LocationRecordTest, NestedRecordsAndTheDepthLimit) {
  const std::vector<uint8_t> strings = {'a', '.', 'm', 'l', 'i', 'r', 0, 'n', 0};
  // name "n" of file a.mlir:3:4, fused with an unknown location.
  std::vector<uint8_t> bytes = {4, 2, 2, 7, 1, 0, 3, 4, 0};
  ByteReader reader(bytes, 0, "Locations");
  std::optional<LocationRecord> fused = ReadLocationRecord(reader, strings, 64);
  ASSERT_TRUE(fused.has_value());
  EXPECT_EQ(fused->kind, LocationKind::kFused);
  ASSERT_EQ(fused->children.size(), 2u);
  const LocationRecord& name = fused->children[0];
  EXPECT_EQ(name.kind, LocationKind::kName);
  EXPECT_EQ(name.text, "n");
  ASSERT_EQ(name.children.size(), 1u);
  EXPECT_EQ(name.children[0].text, "a.mlir");
  EXPECT_EQ(name.children[0].line, 3u);
  EXPECT_EQ(name.children[0].column, 4u);
  EXPECT_EQ(fused->children[1].kind, LocationKind::kUnknown);

  ByteReader shallow(bytes, 0, "Locations");
  EXPECT_FALSE(ReadLocationRecord(shallow, strings, 1).has_value());  // 2 levels deep
  std::vector<uint8_t> bad_kind = {9};
  ByteReader bad(bad_kind, 0, "Locations");
  EXPECT_FALSE(ReadLocationRecord(bad, strings, 64).has_value());
}

}  // namespace
}  // namespace bef
