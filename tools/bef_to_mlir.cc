// bef-to-mlir: prints the MLIR module a BEF file encodes, as TFRT's
// `tfrt_translate -bef-to-mlir` (docs/cli.md). The module is verified before
// it is printed; the usual MLIR printing flags apply
// (--mlir-print-op-generic, --mlir-print-debuginfo, ...).
//
//   bef-to-mlir [INPUT|-] [-o OUTPUT] [--emit-bytecode] [--max_input_bytes=N]
//               [--max_nesting_depth=N]
//
// --emit-bytecode writes MLIR's bytecode instead of text (locations
// included), which mlir-to-bef and bef-opt read as they read text: a BEF
// file round-trips through it byte for byte.
#include <string>
#include <vector>

#include "lib/converter/bef_to_mlir.h"
#include "lib/converter/dialects.h"
#include "bef/format/bef_encoding.h"
#include "tools/converter_io/converter_io.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"

namespace {

llvm::cl::opt<std::string> input_filename(llvm::cl::Positional,
                                          llvm::cl::desc("<input BEF file>"),
                                          llvm::cl::init("-"));
llvm::cl::opt<std::string> output_filename(
    "o", llvm::cl::desc("Output filename"), llvm::cl::value_desc("filename"),
    llvm::cl::init("-"));
llvm::cl::opt<bool> emit_bytecode(
    "emit-bytecode",
    llvm::cl::desc("Write MLIR's bytecode instead of text (mlir-to-bef and bef-opt read "
                   "both)"),
    llvm::cl::init(false));

int Run() {
  namespace io = bef::converter_io;
  mlir::DialectRegistry registry;
  bef::converter::RegisterHostDialects(registry);
  mlir::MLIRContext context(registry);
  context.allowUnregisteredDialects();
  context.loadAllAvailableDialects();
  llvm::SourceMgr source_manager;
  mlir::SourceMgrDiagnosticHandler handler(source_manager, &context);

  std::string name =
      input_filename == "-" ? std::string("<stdin>") : input_filename.getValue();
  mlir::Location file_location = mlir::FileLineColLoc::get(&context, name, 0, 0);
  bool failed = false;
  mlir::ScopedDiagnosticHandler count_errors(
      &context, [&](mlir::Diagnostic& diagnostic) {
        if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error &&
            diagnostic.str() != "Unknown BEF format version detected")
          failed = true;
        return mlir::failure();  // let the printing handler see it too
      });
  bef::converter::BefToMlirOptions options;
  options.max_region_depth = io::MaxNestingDepth();

  // The magic is checked from the first bytes, before the rest is read: a
  // file that is not BEF gets the converter's own message at once.
  std::string error;
  io::ReadOptions read_options;
  read_options.max_bytes = io::MaxInputBytes();
  read_options.output_path = output_filename;
  read_options.prefix_size = 2;
  read_options.check_prefix = [&](llvm::ArrayRef<char> first) {
    if (first.size() == 2 && static_cast<uint8_t>(first[0]) == bef::kBefMagic1 &&
        static_cast<uint8_t>(first[1]) == bef::kBefMagic2)
      return true;
    if (first.size() < 2 && !first.empty()) return true;  // reported later
    if (first.empty()) return true;
    (void)bef::converter::ConvertBefToMlir(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(first.data()),
                                 first.size()),
        file_location, options);
    return false;
  };
  std::unique_ptr<llvm::MemoryBuffer> input =
      io::ReadInput(input_filename, read_options, &error);
  if (!input) {
    if (!error.empty()) llvm::errs() << error << "\n";
    return 1;
  }

  auto bytes = llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t*>(input->getBufferStart()),
      input->getBufferSize());
  mlir::OwningOpRef<mlir::ModuleOp> module = bef::converter::ConvertBefToMlir(
      std::span<const uint8_t>(bytes.data(), bytes.size()), file_location,
      options);
  if (!module || failed) return 1;
  if (mlir::failed(mlir::verify(*module))) return 1;

  std::unique_ptr<io::OutputFile> output = io::OpenOutput(output_filename);
  if (!output) return 1;
  if (emit_bytecode) {
    if (mlir::failed(mlir::writeBytecodeToFile(*module, output->os()))) return 1;
  } else {
    module->print(output->os());
  }
  return io::KeepOutput(*output) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return bef::converter_io::ConverterMain(argc, argv, "BEF to MLIR converter\n", Run);
}
