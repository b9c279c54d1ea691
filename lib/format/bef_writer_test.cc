// BefWriter: whole files compared byte for byte with the reference
// translator's output (golden/*.bef, spec §14), and a richer program written
// and then walked field by field.
#include "bef/format/bef_writer.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bef/format/attribute_reader.h"
#include "bef/format/byte_reader.h"
#include "bef/format/format_error.h"
#include "bef/format/section_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/golden.h"

namespace bef {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

std::vector<uint8_t> FinishOrDie(BefWriter& writer) {
  absl::StatusOr<std::vector<uint8_t>> bytes = writer.Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.value_or(std::vector<uint8_t>{});
}

void ExpectGolden(const std::string& name, const std::vector<uint8_t>& ours) {
  std::vector<uint8_t> golden =
      testing::ReadFileBytes(testing::GoldenPath(name));
  if (golden == ours) return;
  size_t first = 0;
  while (first < golden.size() && first < ours.size() &&
         golden[first] == ours[first]) {
    ++first;
  }
  ADD_FAILURE() << name << ": first difference at byte 0x" << std::hex << first
                << "\nreference:\n" << testing::HexDump(golden)
                << "\nours:\n" << testing::HexDump(ours);
}

BefLocation At(const std::string& file, uint32_t line, uint32_t column) {
  return BefLocation::FileLineColumn(file, line, column);
}

std::vector<uint8_t> LittleEndian(std::initializer_list<uint64_t> values,
                                  size_t size) {
  std::vector<uint8_t> bytes;
  for (uint64_t value : values) {
    for (size_t i = 0; i < size; ++i) bytes.push_back(uint8_t(value >> 8 * i));
  }
  return bytes;
}

uint64_t F32(float value) { return std::bit_cast<uint32_t>(value); }
uint64_t F64(double value) { return std::bit_cast<uint64_t>(value); }

// `func.func @NAME() -> !tfrt.chain { %c = tfrt.new.chain {attributes}
// tfrt.return %c }` as the reference writes it.
void AddNewChainFunction(BefWriter& writer, const std::string& file,
                         const std::string& name, uint32_t line,
                         const std::vector<std::pair<std::string, BefAttribute>>&
                             attributes) {
  BefWriter::Function& function = writer.AddFunction(
      FunctionKind::kBefFunction, name, {}, {"!tfrt.chain"});
  function.set_location(At(file, line, 1));
  BefWriter::Kernel& kernel =
      function.AddKernel("tfrt.new.chain", At(file, line + 1, 8));
  for (const auto& [attribute_name, attribute] : attributes) {
    kernel.AddAttribute(attribute, attribute_name);
  }
  function.Return({kernel.AddResult("!tfrt.chain")});
}

TEST(BefWriterTest, SpecWorkedExample) {
  BefWriter writer;
  BefWriter::Function& f =
      writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {});
  f.set_location(At("t.mlir", 1, 1));
  f.Return({});
  std::vector<uint8_t> expected = {
      0x0B, 0xEF, 0x00,                                      // header
      0x00, 0x04, 0x66, 0x00,                                // Strings
      0x01, 0x00,                                            // Attributes
      0x02, 0x02, 0x00,                                      // Kernels
      0x03, 0x02, 0x00,                                      // Types
      0x04, 0x0C, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,        // FunctionIndex
      0x05, 0x51, 0x04, 0xCC, 0xCC,                          // Functions
      0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xCC, 0xCC,
      0xAB, 0xAB, 0xAB, 0xAB, 0xCD, 0xCD, 0xCD, 0xCD, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
      0, 0, 0, 0,                                            // used-by count
      0, 0, 0, 0,                                            // NumRegs
      0x06, 0x0E, 't', '.', 'm', 'l', 'i', 'r', 0x00,        // LocationStrings
      0x07, 0x08, 0x01, 0x00, 0x01, 0x01,                    // Locations
      0x08, 0x02, 0x00,                                      // AttributeTypes
      0x09, 0x04, 0x01, 0x01,                                // AttributeNames
      0x0A, 0x04, 0x01, 0x00};                               // RegisterTypes
  EXPECT_THAT(FinishOrDie(writer), ElementsAreArray(expected));
}

TEST(BefWriterTest, EmptyModule) {
  BefWriter writer;
  ExpectGolden("empty_module.bef", FinishOrDie(writer));
  BefWriter no_optional(BefWriterOptions{.emit_optional_sections = false});
  ExpectGolden("empty_module.nooptional.bef", FinishOrDie(no_optional));
}

TEST(BefWriterTest, GoldenConstantFunction) {
  BefWriter writer;
  BefWriter::Function& f =
      writer.AddFunction(FunctionKind::kBefFunction, "intact", {}, {"i32"});
  f.set_location(At("bef_malformed.mlir", 39, 1));
  f.Return({f.AddKernel("tfrt.constant.i32", At("bef_malformed.mlir", 40, 8))
                .AddAttribute(BefAttribute::I32(12), "value")
                .AddResult("i32")});
  ExpectGolden("bef_malformed.bef", FinishOrDie(writer));
}

// The Types section lists the types of integer and float attribute values
// only when the optional sections are written (spec §7), so those are
// registered first only then.
void BuildAttrScalar(BefWriter& writer, bool optional) {
  const std::string file = "attr_scalar.mlir";
  writer.TypeIndex("!tfrt.chain");
  for (const char* type : {"i1", "i8", "i16", "i32", "i64", "si8", "si32", "ui8",
                           "ui16", "ui32", "ui64", "f16", "bf16", "f32", "f64"}) {
    if (optional) writer.TypeIndex(type);
  }
  AddNewChainFunction(
      writer, file, "scalars", 7,
      {{"s01_true", BefAttribute::Bool(true)},
       {"s02_false", BefAttribute::Bool(false)},
       {"s03_i8", BefAttribute::I8(-128)},
       {"s04_i16", BefAttribute::I16(12345)},
       {"s05_i32", BefAttribute::I32(-7)},
       {"s06_i64", BefAttribute::I64(1099511627776)},
       {"s07_si8", BefAttribute::I8(-1)},
       {"s08_si32", BefAttribute::I32(42)},
       {"s09_ui8", BefAttribute::UI8(255)},
       {"s10_ui16", BefAttribute::UI16(65535)},
       {"s11_ui32", BefAttribute::UI32(3000000000u)},
       {"s12_ui64", BefAttribute::UI64(10000000000000000000u)},
       {"s13_f16", BefAttribute::F16Bits(0xBE00)},
       {"s14_bf16", BefAttribute::BF16Bits(0x4040)},
       {"s15_f32", BefAttribute::F32(0.1f)},
       {"s16_f64", BefAttribute::F64(-2.5e-8)},
       {"s17_str", BefAttribute::String("golden")},
       {"s18_empty", BefAttribute::String("")},
       {"s19_utf8", BefAttribute::String("caf\xC3\xA9")},
       {"s20_ti1", BefAttribute::Type(DType::kI1)},
       {"s21_ti64", BefAttribute::Type(DType::kI64)},
       {"s22_tui16", BefAttribute::Type(DType::kUI16)},
       {"s23_tbf16", BefAttribute::Type(DType::kBF16)},
       {"s24_tf16", BefAttribute::Type(DType::kF16)},
       {"s25_tf64", BefAttribute::Type(DType::kF64)},
       {"s26_tc64", BefAttribute::Type(DType::kComplex64)},
       {"s27_tc128", BefAttribute::Type(DType::kComplex128)},
       {"s28_tui8", BefAttribute::Type(DType::kUI8)}});
  BefWriter::Function& f = writer.AddFunction(
      FunctionKind::kBefFunction, "constants_share_pool", {},
      {"i32", "i64", "f32"});
  f.set_location(At(file, 21, 1));
  uint32_t a = f.AddKernel("tfrt.constant.i32", At(file, 22, 8))
                   .AddAttribute(BefAttribute::I32(-7), "value")
                   .AddResult("i32");
  uint32_t b = f.AddKernel("tfrt.constant.i64", At(file, 23, 8))
                   .AddAttribute(BefAttribute::I64(1099511627776), "value")
                   .set_stream(2)
                   .AddResult("i64");
  uint32_t c = f.AddKernel("tfrt.constant.f32", At(file, 24, 8))
                   .AddAttribute(BefAttribute::F32(0.1f), "value")
                   .set_stream(1)
                   .AddResult("f32");
  f.Return({a, b, c});
}

TEST(BefWriterTest, GoldenScalarAttributes) {
  BefWriter writer;
  BuildAttrScalar(writer, true);
  ExpectGolden("attr_scalar.bef", FinishOrDie(writer));
  BefWriter no_optional(BefWriterOptions{.emit_optional_sections = false});
  BuildAttrScalar(no_optional, false);
  ExpectGolden("attr_scalar.nooptional.bef", FinishOrDie(no_optional));
}

TEST(BefWriterTest, GoldenArrayAttributes) {
  BefWriter writer;
  for (const char* type : {"!tfrt.chain", "i1", "i8", "i16", "i32", "i64",
                           "ui8", "ui16", "ui32", "ui64", "f16", "bf16", "f32",
                           "f64"}) {
    writer.TypeIndex(type);
  }
  AddNewChainFunction(
      writer, "attr_array.mlir", "arrays", 5,
      {{"a01_i1", BefAttribute::Array(DType::kI1, {1, 0, 1})},
       {"a02_i8", BefAttribute::Array(DType::kI8, {1, uint64_t(-2), 3})},
       {"a03_i16", BefAttribute::Array(DType::kI16, {uint64_t(-300), 300})},
       {"a04_i32", BefAttribute::I32Array({7})},
       {"a05_i64", BefAttribute::I64Array({1, -1})},
       {"a06_ui8", BefAttribute::Array(DType::kUI8, {200})},
       {"a07_ui16", BefAttribute::Array(DType::kUI16, {1, 2, 3})},
       {"a08_ui32", BefAttribute::Array(DType::kUI32, {4})},
       {"a09_ui64", BefAttribute::Array(DType::kUI64, {5, 6})},
       {"a10_f16", BefAttribute::Array(DType::kF16, {0x3800, 0x4000})},
       {"a11_bf16", BefAttribute::Array(DType::kBF16, {0x3F80})},
       {"a12_f32", BefAttribute::F32Array({1.25f, -1.25f})},
       {"a13_f64", BefAttribute::Array(DType::kF64, {F64(3.5)})},
       {"a14_empty", BefAttribute::EmptyArray()},
       {"a15_types", BefAttribute::TypeArray({DType::kI32, DType::kF64,
                                              DType::kI1, DType::kComplex128})}});
  ExpectGolden("attr_array.bef", FinishOrDie(writer));
}

TEST(BefWriterTest, GoldenDenseAttributes) {
  BefWriter writer;
  const std::string file = "attr_dense.mlir";
  AddNewChainFunction(
      writer, file, "dense", 6,
      {{"d01", BefAttribute::Dense(DType::kI32, {}, LittleEndian({7}, 4))},
       {"d02", BefAttribute::Dense(DType::kI8, {3},
                                   LittleEndian({1, uint64_t(-2), 3}, 1))},
       {"d03", BefAttribute::Dense(DType::kI16, {2, 3},
                                   LittleEndian({1, 2, 3, 4, 5, 6}, 2))},
       {"d04", BefAttribute::Dense(DType::kI64, {2, 2, 2},
                                   std::vector<uint8_t>(64, 0xFF))},
       {"d05", BefAttribute::Dense(DType::kUI8, {2}, {255, 0})},
       {"d06", BefAttribute::Dense(DType::kUI16, {1}, {0xFF, 0xFF})},
       {"d07", BefAttribute::Dense(DType::kUI32, {2}, LittleEndian({1, 2}, 4))},
       {"d08", BefAttribute::Dense(DType::kUI64, {1}, LittleEndian({3}, 8))},
       {"d09", BefAttribute::Dense(DType::kI1, {2, 2}, {1, 0, 0, 1})},
       {"d10", BefAttribute::Dense(DType::kF16, {2},
                                   LittleEndian({0x3800, 0xB800}, 2))},
       {"d11", BefAttribute::Dense(DType::kBF16, {3},
                                   LittleEndian({0x4000, 0x4000, 0x4000}, 2))},
       {"d12", BefAttribute::Dense(DType::kF32, {2, 1},
                                   LittleEndian({F32(1.5f), F32(2.5f)}, 4))},
       {"d13", BefAttribute::Dense(DType::kF64, {}, LittleEndian({F64(1e-3)}, 8))},
       {"d14", BefAttribute::Dense(DType::kComplex64, {2},
                                   LittleEndian({F32(1), F32(-1), F32(0), F32(2)},
                                                4))},
       {"d15", BefAttribute::Dense(DType::kComplex128, {},
                                   LittleEndian({F64(3), F64(4)}, 8))},
       {"d16", BefAttribute::Dense(DType::kF32, {0, 4}, {})}});
  BefWriter::Function& f = writer.AddFunction(FunctionKind::kBefFunction,
                                              "dense_kernel", {}, {"!t.tensor"});
  f.set_location(At(file, 28, 1));
  f.Return({f.AddKernel("tfrt_test.const_dense_attr", At(file, 29, 8))
                .AddAttribute(BefAttribute::Dense(DType::kI32, {2, 2},
                                                  LittleEndian({1, 2, 3, 4}, 4)),
                              "value")
                .AddResult("!t.tensor")});
  ExpectGolden("attr_dense.bef", FinishOrDie(writer));
}

TEST(BefWriterTest, GoldenShapeAttributes) {
  BefWriter writer;
  writer.TypeIndex("!tfrt.chain");
  writer.TypeIndex("i32");
  AddNewChainFunction(
      writer, "attr_shape.mlir", "shapes", 3,
      {{"h1", BefAttribute::Shape({4, -1, 16})},
       {"h2", BefAttribute::Shape({})},
       {"h3", BefAttribute::UnrankedShape()},
       {"h4", BefAttribute::Aggregate(
                  {BefAttribute::Shape({2}), BefAttribute::I32(5)})}});
  ExpectGolden("attr_shape.bef", FinishOrDie(writer));
}

void BuildAttrAggregate(BefWriter& writer, bool optional) {
  writer.TypeIndex("!tfrt.chain");
  for (const char* type : {"i8", "i64", "f32", "i32", "i1", "i16"}) {
    if (optional) writer.TypeIndex(type);
  }
  using A = BefAttribute;
  AddNewChainFunction(
      writer, "attr_aggregate.mlir", "aggregates", 6,
      {{"g1_strings",
        A::Aggregate({A::String("alpha"), A::String(""), A::String("gamma")})},
       {"g2_mixed", A::Aggregate({A::I8(1), A::I64(2), A::F32(3.0f),
                                  A::String("four"), A::Type(DType::kI16)})},
       {"g3_nested",
        A::Aggregate({A::I32Array({1, 2}),
                      A::Aggregate({A::String("x"), A::Array(DType::kI1, {1})}),
                      A::EmptyArray()})},
       {"g4_deep", A::Aggregate({A::Aggregate({A::Aggregate({A::I64Array({9})})})})},
       {"g5_width", A::Aggregate({A::I16(1), A::I32(2)})}});
}

TEST(BefWriterTest, GoldenAggregateAttributes) {
  BefWriter writer;
  BuildAttrAggregate(writer, true);
  ExpectGolden("attr_aggregate.bef", FinishOrDie(writer));
  BefWriter no_optional(BefWriterOptions{.emit_optional_sections = false});
  BuildAttrAggregate(no_optional, false);
  ExpectGolden("attr_aggregate.nooptional.bef", FinishOrDie(no_optional));
}

TEST(BefWriterTest, AttributesAreDeduplicatedByValue) {
  BefWriter writer;
  uint32_t a = writer.AddAttribute(BefAttribute::I32(5));
  uint32_t b = writer.AddAttribute(BefAttribute::I64(5));
  EXPECT_NE(a, b);
  EXPECT_EQ(writer.AddAttribute(BefAttribute::I32(5)), a);
  EXPECT_EQ(writer.AddAttribute(BefAttribute::I64(5)), b);
}

TEST(BefWriterTest, InvalidProgramsAreRejected) {
  {
    BefWriter writer;
    BefWriter::Function& f =
        writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {"i32"});
    f.Return({});
    EXPECT_FALSE(writer.Finish().ok());
  }
  {
    BefWriter writer;
    BefWriter::Function& f =
        writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {});
    f.AddKernel("k").AddArgument(3);
    EXPECT_FALSE(writer.Finish().ok());
  }
  {
    BefWriter writer;
    BefWriter::Function& f =
        writer.AddFunction(FunctionKind::kBefFunction, "f", {}, {});
    f.AddKernel("k").AddFunction(9);
    EXPECT_FALSE(writer.Finish().ok());
  }
}

// ---------------------------------------------------------------------------
// A program with arguments, fan-out, a function reference, a native and a
// sync function and every location kind, written and then walked.

// Kernels built one after the other, and the same calls interleaved (a
// kernel's lists grown after a later kernel's): the same file.
TEST(BefWriterTest, ListsOfEarlierKernelsMayGrowLater) {
  auto build = [](bool interleaved) {
    BefWriter writer;
    uint32_t native = writer.AddNativeFunction("native", {"i32"}, {"i32"});
    BefWriter::Function& f = writer.AddFunction(
        FunctionKind::kBefFunction, "main", {"i32", "i32"}, {"i32", "i32"});
    BefWriter::Kernel& first = f.AddKernel("tfrt.add.i32");
    if (!interleaved) {
      first.AddArgument(0).AddArgument(1).AddAttribute(BefAttribute::I32(1), "a");
      first.AddAttribute(BefAttribute::I32(2), "b").AddFunction(native);
    } else {
      first.AddArgument(0).AddAttribute(BefAttribute::I32(1), "a");
    }
    BefWriter::Kernel& second = f.AddKernel("tfrt.call");
    second.AddArgument(1).AddArgument(0).AddFunction(native);
    if (interleaved) {
      first.AddArgument(1).AddAttribute(BefAttribute::I32(2), "b").AddFunction(native);
    }
    uint32_t x = first.AddResult("i32");
    uint32_t y = second.AddResult("i32");
    EXPECT_EQ(first.result(0), x);
    EXPECT_EQ(second.result(0), y);
    f.Return({x, y});
    absl::StatusOr<std::vector<uint8_t>> bytes = writer.Finish();
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    return bytes.value_or(std::vector<uint8_t>());
  };
  std::vector<uint8_t> in_order = build(false);
  ASSERT_FALSE(in_order.empty());
  EXPECT_EQ(build(true), in_order);
}

// Write hands the sections over in pieces; together they are Finish's
// bytes, and each piece's length is what it says.
TEST(BefWriterTest, WriteStreamsTheBytesFinishReturns) {
  auto build = [](BefWriter& writer) {
    BefWriter::Function& f = writer.AddFunction(FunctionKind::kBefFunction,
                                                "main", {"i32"}, {"i32"});
    f.set_location(At("m.mlir", 1, 1));
    uint32_t sum = f.AddKernel("tfrt.add.i32", At("m.mlir", 2, 3))
                       .AddArgument(0)
                       .AddArgument(0)
                       .AddResult("i32");
    f.Return({sum});
  };
  BefWriter one, other;
  build(one);
  build(other);
  absl::StatusOr<std::vector<uint8_t>> finished = one.Finish();
  ASSERT_TRUE(finished.ok()) << finished.status();
  std::vector<uint8_t> streamed;
  size_t pieces = 0;
  ASSERT_TRUE(other
                  .Write([&](std::span<const uint8_t> piece) {
                    ++pieces;
                    streamed.insert(streamed.end(), piece.begin(), piece.end());
                  })
                  .ok());
  EXPECT_EQ(streamed, *finished);
  EXPECT_GT(pieces, 2u);
}

// Locations given as BefLocation trees and built bottom up through the
// table: the same records.
TEST(BefWriterTest, LocationTableAndTreesAgree) {
  auto build = [](bool bottom_up) {
    BefWriter writer;
    BefWriter::Function& f = writer.AddFunction(FunctionKind::kBefFunction,
                                                "main", {}, {});
    BefLocation tree = BefLocation::Fused(
        {BefLocation::Name("n", At("a.py", 1, 2)),
         BefLocation::CallSite(At("b.py", 3, 4), At("a.py", 5, 6)),
         BefLocation::Unencodable(), BefLocation::Unknown()});
    if (!bottom_up) {
      f.AddKernel("tfrt.new.chain", tree);
      f.AddKernel("tfrt.new.chain", BefLocation::Unencodable());
    } else {
      uint32_t a = writer.LocationText("a.py");
      BefWriter::LocationId children[] = {
          writer.NameLocation(writer.LocationText("n"),
                              writer.FileLineColumnLocation(a, 1, 2)),
          writer.CallSiteLocation(
              writer.FileLineColumnLocation(writer.LocationText("b.py"), 3, 4),
              writer.FileLineColumnLocation(a, 5, 6)),
          writer.UnencodableLocation(), BefWriter::kUnknownLocation};
      f.AddKernel("tfrt.new.chain", writer.FusedLocation(children));
      f.AddKernel("tfrt.new.chain", writer.UnencodableLocation());
    }
    f.Return({});
    return writer.Finish().value();
  };
  EXPECT_EQ(build(true), build(false));
}

struct Walked {
  std::vector<uint8_t> image;
  SectionTable sections;
};

class WholeFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BefWriter writer;
    native_ = writer.AddNativeFunction("native_add", {"i32", "i32"}, {"i32"});
    BefWriter::Function& sync = writer.AddFunction(
        FunctionKind::kSyncBefFunction, "sync_id", {"i32"}, {"i32"});
    sync.Return({sync.AddKernel("tfrt.copy.i32").AddArgument(0).AddResult("i32")});

    BefWriter::Function& f = writer.AddFunction(
        FunctionKind::kBefFunction, "main", {"i32", "!tfrt.chain"},
        {"i32", "i32"});
    f.set_location(BefLocation::Name("main", At("m.mlir", 1, 1)));
    BefWriter::Kernel& one =
        f.AddKernel("tfrt.constant.i32",
                    BefLocation::CallSite(At("callee.py", 5, 6),
                                          At("caller.py", 7, 8)));
    one.AddAttribute(BefAttribute::I32(1), "value");
    uint32_t c1 = one.AddResult("i32");
    // add(arg0, c1), add(c1, c1): c1 is used three times.
    uint32_t sum = f.AddKernel("tfrt.add.i32", At("m.mlir", 3, 4))
                       .AddArgument(f.argument(0))
                       .AddArgument(c1)
                       .AddResult("i32");
    uint32_t twice = f.AddKernel("tfrt.add.i32",
                                 BefLocation::Fused({At("a.py", 1, 1),
                                                     BefLocation::Unencodable()}))
                         .AddArgument(c1)
                         .AddArgument(c1)
                         .set_stream(7)
                         .AddResult("i32");
    f.AddKernel("tfrt.call", BefLocation::Unencodable())
        .AddArgument(sum)
        .AddArgument(sum)
        .AddFunction(native_)
        .AddResult("i32");
    f.Return({sum, twice});
    absl::StatusOr<std::vector<uint8_t>> bytes = writer.Finish();
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    storage_.reset(new uint64_t[bytes->size() / 8 + 1]);
    std::memcpy(storage_.get(), bytes->data(), bytes->size());
    image_ = std::span<const uint8_t>(
        reinterpret_cast<const uint8_t*>(storage_.get()), bytes->size());
    absl::StatusOr<SectionTable> sections = ReadSections(image_);
    ASSERT_TRUE(sections.ok()) << DescribeFormatError(sections.status());
    sections_ = *sections;
  }

  std::string String(uint32_t offset) {
    return std::string(
        ReadPoolString(sections_.body(SectionId::kStrings), offset).value());
  }

  std::unique_ptr<uint64_t[]> storage_;
  std::span<const uint8_t> image_;
  SectionTable sections_;
  uint32_t native_ = 0;
  uint32_t main_offset_ = 0;
};

TEST_F(WholeFileTest, TablesAndFunctionIndex) {
  // Strings are sorted byte-wise.
  auto strings = sections_.body(SectionId::kStrings);
  std::vector<std::string> all;
  for (size_t i = 0; i < strings.size();) {
    all.push_back(String(i));
    i += all.back().size() + 1;
  }
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  EXPECT_THAT(all, ::testing::Contains("value"));  // attribute names

  ByteReader kernels(sections_.body(SectionId::kKernels), 0, "Kernels");
  ASSERT_EQ(kernels.ReadVbr32().value(), 4u);
  EXPECT_EQ(String(kernels.ReadVbr32().value()), "tfrt.copy.i32");
  EXPECT_EQ(String(kernels.ReadVbr32().value()), "tfrt.constant.i32");
  EXPECT_EQ(String(kernels.ReadVbr32().value()), "tfrt.add.i32");
  EXPECT_EQ(String(kernels.ReadVbr32().value()), "tfrt.call");

  ByteReader types(sections_.body(SectionId::kTypes), 0, "Types");
  ASSERT_EQ(types.ReadVbr32().value(), 2u);
  EXPECT_EQ(String(types.ReadVbr32().value()), "i32");
  EXPECT_EQ(String(types.ReadVbr32().value()), "!tfrt.chain");

  ByteReader index(sections_.body(SectionId::kFunctionIndex), 0, "Index");
  ASSERT_EQ(index.ReadVbr32().value(), 3u);
  EXPECT_EQ(index.ReadByte().value(), 1);  // native
  EXPECT_EQ(index.ReadVbr32().value(), 0u);
  EXPECT_EQ(String(index.ReadVbr32().value()), "native_add");
  EXPECT_EQ(index.ReadVbr32().value(), 2u);
  index.Skip(2).IgnoreError();
  EXPECT_EQ(index.ReadVbr32().value(), 1u);
  index.Skip(1).IgnoreError();
  EXPECT_EQ(index.ReadByte().value(), 2);  // sync
  EXPECT_EQ(index.ReadVbr32().value(), 0u);
  EXPECT_EQ(String(index.ReadVbr32().value()), "sync_id");
  index.Skip(4).IgnoreError();
  EXPECT_EQ(index.ReadByte().value(), 0);  // async
  main_offset_ = index.ReadVbr32().value();
  EXPECT_GT(main_offset_, 0u);
  EXPECT_EQ(String(index.ReadVbr32().value()), "main");
  EXPECT_EQ(index.ReadVbr32().value(), 2u);
  EXPECT_EQ(index.ReadVbr32().value(), 0u);
  EXPECT_EQ(index.ReadVbr32().value(), 1u);
  EXPECT_EQ(index.ReadVbr32().value(), 2u);
  EXPECT_TRUE(index.Skip(2).ok());
  EXPECT_TRUE(index.empty());
  // The Functions body is 4-aligned in the file.
  EXPECT_EQ(sections_[SectionId::kFunctions]->body_offset % 4, 0u);
}

TEST_F(WholeFileTest, FunctionRecordAndKernels) {
  // Find main's record: it is the second record (after sync_id).
  ByteReader index(sections_.body(SectionId::kFunctionIndex), 0, "Index");
  index.ReadVbr32().IgnoreError();
  for (int skip = 0; skip < 2; ++skip) {
    index.ReadByte().IgnoreError();
    index.ReadVbr32().IgnoreError();
    index.ReadVbr32().IgnoreError();
    uint32_t args = index.ReadVbr32().value();
    index.Skip(args).IgnoreError();
    uint32_t results = index.ReadVbr32().value();
    index.Skip(results).IgnoreError();
  }
  index.ReadByte().IgnoreError();
  uint32_t offset = index.ReadVbr32().value();

  auto functions = sections_.body(SectionId::kFunctions);
  ByteReader record(functions, 0, "Functions");
  ASSERT_TRUE(record.Seek(offset).ok());
  uint32_t location = record.ReadVbr32().value();
  ASSERT_EQ(record.ReadVbr32().value(), 6u);  // 2 args + 4 results
  std::vector<uint32_t> uses;
  for (int i = 0; i < 6; ++i) uses.push_back(record.ReadVbr32().value());
  // arg0: add; arg1 (chain): none; c1: 3; sum: call twice + return; twice:
  // return; call result: none.
  EXPECT_THAT(uses, ElementsAre(1, 0, 3, 3, 1, 0));
  ASSERT_EQ(record.ReadVbr32().value(), 5u);  // pseudo + 4 kernels
  std::vector<uint32_t> kernel_offsets, operands, streams;
  for (int k = 0; k < 5; ++k) {
    kernel_offsets.push_back(record.ReadVbr32().value());
    operands.push_back(record.ReadVbr32().value());
    streams.push_back(record.ReadVbr32().value());
  }
  EXPECT_THAT(operands, ElementsAre(0, 0, 2, 2, 2));
  EXPECT_THAT(streams, ElementsAre(0, 0, 0, 7, 0));
  EXPECT_EQ(record.ReadVbr32().value(), 3u);  // result registers
  EXPECT_EQ(record.ReadVbr32().value(), 4u);
  while (record.position() % 4 != 0) {
    EXPECT_EQ(record.ReadByte().value(), kPaddingByte);
  }
  size_t list = record.position();
  auto words = [&](uint32_t kernel) {
    std::vector<uint32_t> out;
    size_t begin = list + kernel_offsets[kernel];
    size_t end = kernel + 1 < kernel_offsets.size()
                     ? list + kernel_offsets[kernel + 1]
                     : functions.size();
    for (size_t i = begin; i + 4 <= end; i += 4) {
      out.push_back(LoadFixed32(functions.data() + i));
    }
    return out;
  };
  // Pseudo kernel: special register 6 used by kernel 1 (the constant);
  // arg0 used by kernel 2; arg1 unused.
  EXPECT_THAT(words(0), ElementsAre(kPseudoKernelCode, kPseudoKernelLocation,
                                    0, 0, 0, 3, 1, 1, 0, 6, 0, 1, 1, 2));
  std::vector<uint32_t> constant = words(1);
  ASSERT_EQ(constant.size(), 6u + 1 + 1 + 1 + 3);
  EXPECT_EQ(constant[0], 1u);  // kernel code
  EXPECT_THAT(std::vector<uint32_t>(constant.begin() + 2, constant.end()),
              ElementsAre(0, 1, 0, 1, 3, /*attribute offset*/ 0, 2,
                          // used by: twice (both slots, latest kernel first),
                          // then sum.
                          3, 3, 2));
  std::vector<uint32_t> call = words(4);
  EXPECT_EQ(call[1], kFirstVirtualLocationOffset);  // unencodable
  EXPECT_THAT(std::vector<uint32_t>(call.begin() + 2, call.end()),
              ElementsAre(2, 0, 1, 1, 0, 3, 3, native_, 5));
  std::vector<uint32_t> sum = words(2);
  // sum is used by the call twice (higher slot first: same kernel).
  EXPECT_THAT(std::vector<uint32_t>(sum.begin() + 6, sum.end()),
              ElementsAre(2, 0, 2, 3, 4, 4));

  // Locations: the function's record, then each kernel's.
  auto locations = sections_.body(SectionId::kLocations);
  EXPECT_EQ(locations[location], static_cast<uint8_t>(LocationKind::kName));
  EXPECT_EQ(locations[constant[1]],
            static_cast<uint8_t>(LocationKind::kCallSite));
  EXPECT_EQ(locations[words(3)[1]], static_cast<uint8_t>(LocationKind::kFused));
  // The fused location writes only its encodable child.
  EXPECT_EQ(locations[words(3)[1] + 1], 1);
  auto location_strings = sections_.body(SectionId::kLocationStrings);
  // In order of first use: the function's name location comes first.
  EXPECT_EQ(std::string(ReadPoolString(location_strings, 0).value()), "main");
  EXPECT_EQ(std::string(ReadPoolString(location_strings, 5).value()), "m.mlir");
}

TEST_F(WholeFileTest, OptionalSections) {
  ByteReader attribute_types(sections_.body(SectionId::kAttributeTypes), 0, "");
  EXPECT_EQ(attribute_types.ReadVbr32().value(), 1u);
  EXPECT_EQ(attribute_types.ReadVbr32().value(), 0u);
  EXPECT_EQ(attribute_types.ReadVbr32().value(), 8u);  // i32

  ByteReader names(sections_.body(SectionId::kAttributeNames), 0, "");
  EXPECT_EQ(names.ReadVbr32().value(), 3u);  // native counted
  EXPECT_EQ(names.ReadVbr32().value(), 2u);  // sync_id: pseudo + copy
  EXPECT_EQ(names.ReadVbr32().value(), 5u);  // main
  EXPECT_EQ(String(names.ReadVbr32().value()), "value");
  EXPECT_TRUE(names.empty());

  ByteReader registers(sections_.body(SectionId::kRegisterTypes), 0, "");
  EXPECT_EQ(registers.ReadVbr32().value(), 3u);
  EXPECT_EQ(registers.ReadVbr32().value(), 2u);  // sync_id: arg, result
  registers.Skip(2).IgnoreError();
  EXPECT_EQ(registers.ReadVbr32().value(), 6u);
  std::vector<uint32_t> types;
  for (int i = 0; i < 6; ++i) types.push_back(registers.ReadVbr32().value());
  EXPECT_THAT(types, ElementsAre(0, 1, 0, 0, 0, 0));
  EXPECT_TRUE(registers.empty());
}

}  // namespace
}  // namespace bef
