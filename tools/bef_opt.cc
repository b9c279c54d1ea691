// bef-opt: mlir-opt with the host dialects registered (tfrt, tfrt_test,
// tfrt_test_sync, corert). Round-trips host programs, checks verifier
// messages (-split-input-file --verify-diagnostics) and runs passes such as
// -inline and -canonicalize (which merges redundant tfrt.merge.chains inputs).
#include "lib/converter/dialects.h"
#include "lib/converter/print_stream_pass.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char** argv) {
  mlir::registerTransformsPasses();
  bef::converter::RegisterPrintStreamPass();
  mlir::DialectRegistry registry;
  bef::converter::RegisterHostDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "BEF host-program optimizer driver\n", registry));
}
