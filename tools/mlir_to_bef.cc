// mlir-to-bef: converts a host program (MLIR text) to a BEF file, byte for
// byte as TFRT's `tfrt_translate -mlir-to-bef` (docs/cli.md).
//
//   mlir-to-bef [INPUT|-] [-o OUTPUT] [--disable-optional-sections]
//               [--max_input_bytes=N] [--max_nesting_depth=N]
//               [--max_affine_operators=N]
//               [--split-input-file] [--verify-diagnostics]
//               [--print-stream-analysis]
#include <malloc.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/converter/dialects.h"
#include "lib/converter/mlir_to_bef.h"
#include "tools/converter_io/converter_io.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"

namespace {

llvm::cl::opt<std::string> input_filename(llvm::cl::Positional,
                                          llvm::cl::desc("<input file>"),
                                          llvm::cl::init("-"));
llvm::cl::opt<std::string> output_filename(
    "o", llvm::cl::desc("Output filename"), llvm::cl::value_desc("filename"),
    llvm::cl::init("-"));
llvm::cl::opt<bool> disable_optional_sections(
    "disable-optional-sections",
    llvm::cl::desc("Omit the AttributeTypes, AttributeNames and "
                   "RegisterTypes sections"),
    llvm::cl::init(false));
llvm::cl::opt<bool> split_input_file(
    "split-input-file",
    llvm::cl::desc("Split the input at '// -----' lines and convert each "
                   "chunk separately (outputs are joined by a newline)"),
    llvm::cl::init(false));
llvm::cl::opt<bool> verify_diagnostics(
    "verify-diagnostics",
    llvm::cl::desc("Check expected-* annotations instead of printing "
                   "diagnostics"),
    llvm::cl::init(false));
llvm::cl::opt<bool> print_stream_analysis(
    "print-stream-analysis",
    llvm::cl::desc("Print each body's stream-analysis max cost to stderr "
                   "(TFRT logs it as 'StreamAnalysis: max_cost for "
                   "function NAME is N')"),
    llvm::cl::init(false));

// What a run leaves to the end of the process instead of tearing down: a
// converted module and its context. Freeing a large module op by op (and
// the context's uniqued types and attributes) is work the process's exit
// does for nothing, as LLVM's own compilers skip it. Reachable from here, so
// leak checkers do not count it.
struct LeftToExit {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};
std::vector<LeftToExit>* const left_to_exit = new std::vector<LeftToExit>();

mlir::LogicalResult ConvertChunk(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                 llvm::raw_ostream& os,
                                 mlir::DialectRegistry& registry) {
  auto owned_context = std::make_unique<mlir::MLIRContext>(registry);
  mlir::MLIRContext& context = *owned_context;
  context.allowUnregisteredDialects();
  context.printOpOnDiagnostic(!verify_diagnostics);
  auto source_manager = std::make_shared<llvm::SourceMgr>();
  source_manager->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());

  bef::converter::MlirToBefOptions options;
  options.emit_optional_sections = !disable_optional_sections;
  if (print_stream_analysis) {
    options.stream_analysis_log = [](const std::string& line) {
      llvm::errs() << line << "\n";
    };
  }
  auto convert = [&]() -> mlir::LogicalResult {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceFile<mlir::ModuleOp>(*source_manager, &context);
    if (!module) return mlir::failure();
    if (mlir::failed(bef::converter::ConvertMlirToBef(*module, options, os)))
      return mlir::failure();
    // One input, one module: the process ends next (several chunks of
    // --split-input-file are freed as they go).
    if (!split_input_file) left_to_exit->push_back({std::move(owned_context), std::move(module)});
    return mlir::success();
  };

  if (!verify_diagnostics) {
    mlir::SourceMgrDiagnosticHandler handler(*source_manager, &context);
    return convert();
  }
  mlir::SourceMgrDiagnosticVerifierHandler handler(*source_manager, &context);
  (void)convert();
  return handler.verify();
}

int Run() {
  namespace io = bef::converter_io;
  std::unique_ptr<llvm::MemoryBuffer> input =
      io::OpenMlirInput(input_filename, output_filename);
  if (!input) return 1;
  std::unique_ptr<io::OutputFile> output = io::OpenOutput(output_filename);
  if (!output) return 1;

  mlir::DialectRegistry registry;
  bef::converter::RegisterHostDialects(registry);
  auto process = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     llvm::raw_ostream& os) {
    return ConvertChunk(std::move(chunk), os, registry);
  };
  mlir::LogicalResult result =
      split_input_file
          ? mlir::splitAndProcessBuffer(std::move(input), process, output->os())
          : process(std::move(input), output->os());
  if (mlir::failed(result)) return 1;
  return io::KeepOutput(*output) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // The conversion allocates in many small pieces (MLIR's ops, the
  // writer's tables) from the thread RunWithLargeStack starts, and frees
  // little before the end: one arena for all threads (a thread's own arena
  // grows 64 MiB heaps by mprotect, a page range at a time), grown 64 MiB
  // beyond each need and never trimmed back. Untouched pages are not
  // resident: the peak RSS does not change.
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MXFAST, 0);
  return bef::converter_io::ConverterMain(
      argc, argv, "MLIR host program to BEF converter\n", Run);
}
