// bef-opt: mlir-opt with the host dialects registered (tfrt, tfrt_test,
// tfrt_test_sync, corert, the tensor dialects). Round-trips host programs,
// checks verifier messages (-split-input-file --verify-diagnostics) and runs
// TFRT's compiler passes: -inline, -canonicalize (tfrt.merge.chains),
// -tfrt-print-stream (docs/converters.md).
//
// Input and output go through converter_io, as in mlir-to-bef: a bounded
// read (--max_input_bytes), a nesting limit (--max_nesting_depth), the
// output never the input, non-regular outputs never removed.
#include <string>
#include <utility>

#include "lib/converter/dialects.h"
#include "lib/converter/print_stream_pass.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "tools/converter_io/converter_io.h"

int main(int argc, char** argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerTransformsPasses();
  bef::converter::RegisterPrintStreamPass();
  mlir::DialectRegistry registry;
  bef::converter::RegisterHostDialects(registry);
  auto [input_filename, output_filename] = mlir::registerAndParseCLIOptions(
      argc, argv, "BEF host-program optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return 0;
  }
  if (config.shouldListPasses()) {
    mlir::printRegisteredPasses();
    return 0;
  }

  namespace io = bef::converter_io;
  return io::RunWithLargeStack([&]() -> int {
    std::unique_ptr<llvm::MemoryBuffer> input =
        io::OpenMlirInput(input_filename, output_filename);
    if (!input) return 1;
    std::unique_ptr<io::OutputFile> output = io::OpenOutput(output_filename);
    if (!output) return 1;
    if (mlir::failed(
            mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
      return 1;
    return io::KeepOutput(*output) ? 0 : 1;
  });
}
