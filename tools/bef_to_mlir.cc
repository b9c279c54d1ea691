// bef-to-mlir: prints the MLIR module a BEF file encodes, as TFRT's
// `tfrt_translate -bef-to-mlir` (docs/cli.md). The module is verified before
// it is printed; the usual MLIR printing flags apply
// (--mlir-print-op-generic, --mlir-print-debuginfo, ...).
//
//   bef-to-mlir [INPUT|-] [-o OUTPUT]
#include <string>
#include <vector>

#include "lib/converter/bef_to_mlir.h"
#include "lib/converter/dialects.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "mlir/IR/AsmState.h"
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

}  // namespace

int main(int argc, char** argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  llvm::cl::ParseCommandLineOptions(argc, argv, "BEF to MLIR converter\n");

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(input_filename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  mlir::DialectRegistry registry;
  bef::converter::RegisterHostDialects(registry);
  mlir::MLIRContext context(registry);
  context.allowUnregisteredDialects();
  context.loadAllAvailableDialects();
  llvm::SourceMgr source_manager;
  mlir::SourceMgrDiagnosticHandler handler(source_manager, &context);

  std::string name = input->getBufferIdentifier().str();
  auto bytes = llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t*>(input->getBufferStart()),
      input->getBufferSize());
  mlir::Location file_location = mlir::FileLineColLoc::get(&context, name, 0, 0);
  bool failed = false;
  mlir::ScopedDiagnosticHandler count_errors(
      &context, [&](mlir::Diagnostic& diagnostic) {
        if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error &&
            diagnostic.str() != "Unknown BEF format version detected")
          failed = true;
        return mlir::failure();  // let the printing handler see it too
      });
  mlir::OwningOpRef<mlir::ModuleOp> module = bef::converter::ConvertBefToMlir(
      std::span<const uint8_t>(bytes.data(), bytes.size()), file_location);
  if (!module || failed) return 1;
  if (mlir::failed(mlir::verify(*module))) return 1;

  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(output_filename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  module->print(output->os());
  output->keep();
  return 0;
}
