// make-example-bef: writes a small host program as BEF with BefWriter and
// prints its section table. It is the README's example until the converter
// can compile the same program from MLIR.
//
//   make-example-bef OUT.bef
//
// The program is
//   func.func @add_one(%x: i32) -> i32 {
//     %one = tfrt.constant.i32 1
//     %sum = tfrt.add.i32 %x, %one
//     tfrt.return %sum : i32
//   }
//   func.func @main() -> i32 {
//     %x = tfrt.constant.i32 41
//     %y = tfrt.call @add_one(%x) : (i32) -> i32
//     %ch = tfrt.new.chain
//     %ch1 = tfrt.print.i32 %y, %ch
//     tfrt.return %y : i32
//   }
#include <cstdio>
#include <fstream>
#include <vector>

#include "bef/format/bef_writer.h"
#include "bef/format/format_error.h"
#include "bef/format/section_reader.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.bef\n", argv[0]);
    return 2;
  }
  bef::BefWriter writer;
  bef::BefWriter::Function& add_one = writer.AddFunction(
      bef::FunctionKind::kBefFunction, "add_one", {"i32"}, {"i32"});
  add_one.set_location(bef::BefLocation::FileLineColumn("example.mlir", 1, 1));
  uint32_t one =
      add_one
          .AddKernel("tfrt.constant.i32",
                     bef::BefLocation::FileLineColumn("example.mlir", 2, 10))
          .AddAttribute(bef::BefAttribute::I32(1), "value")
          .AddResult("i32");
  uint32_t sum =
      add_one
          .AddKernel("tfrt.add.i32",
                     bef::BefLocation::FileLineColumn("example.mlir", 3, 10))
          .AddArgument(add_one.argument(0))
          .AddArgument(one)
          .AddResult("i32");
  add_one.Return({sum});

  bef::BefWriter::Function& main = writer.AddFunction(
      bef::FunctionKind::kBefFunction, "main", {}, {"i32"});
  main.set_location(bef::BefLocation::FileLineColumn("example.mlir", 6, 1));
  auto at = [](uint32_t line) {
    return bef::BefLocation::FileLineColumn("example.mlir", line, 3);
  };
  uint32_t x = main.AddKernel("tfrt.constant.i32", at(7))
                   .AddAttribute(bef::BefAttribute::I32(41), "value")
                   .AddResult("i32");
  uint32_t y = main.AddKernel("tfrt.call", at(8))
                   .AddArgument(x)
                   .AddFunction(add_one.index())
                   .AddResult("i32");
  uint32_t chain = main.AddKernel("tfrt.new.chain", at(9)).AddResult("!tfrt.chain");
  main.AddKernel("tfrt.print.i32", at(10)).AddArgument(y).AddArgument(chain).AddResult("!tfrt.chain");
  main.Return({y});
  absl::StatusOr<std::vector<uint8_t>> bytes = writer.Finish();
  if (!bytes.ok()) {
    std::fprintf(stderr, "%s\n", std::string(bytes.status().message()).c_str());
    return 1;
  }
  std::ofstream(argv[1], std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes->data()), bytes->size());

  std::printf("wrote %s: %zu bytes\n", argv[1], bytes->size());
  bef::SectionReader reader(*bytes);
  absl::Status status = reader.ReadHeader();
  while (status.ok() && !reader.done()) {
    absl::StatusOr<bef::Section> section = reader.Next();
    if (!section.ok()) {
      status = section.status();
      break;
    }
    std::printf("  section %2d %-16s offset %4zu  length %4zu  align %u\n",
                section->id,
                std::string(bef::SectionName(section->id)).c_str(),
                section->body_offset, section->body.size(),
                section->alignment);
  }
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", bef::DescribeFormatError(status).c_str());
    return 1;
  }
  return 0;
}
