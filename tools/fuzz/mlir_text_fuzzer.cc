// Fuzz target: MLIR text through mlir-to-bef's path (the nesting pre-scan,
// then parse, verify and convert on the guarded large-stack thread), as
// `bef.mlir_to_bef` does it. Any input must end in BEF bytes or an error:
// never a crash, a hang or a sanitizer report. Diagnostics are swallowed.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "lib/converter/dialects.h"
#include "lib/converter/mlir_to_bef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "tools/converter_io/converter_io.h"

namespace io = bef::converter_io;

// What became of the inputs (printed by the driver when it asks).
size_t converted_inputs = 0, refused_inputs = 0, overflowed_inputs = 0;
extern "C" void MlirTextFuzzerReport() {
  std::printf("converted %zu, errors %zu, stack overflows %zu\n", converted_inputs,
              refused_inputs, overflowed_inputs);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string error;
  if (!io::CheckMlirNesting(text, io::MaxNestingDepth(), "input", &error)) {
    ++refused_inputs;
    return 0;
  }
  std::string overflow;
  const int result = io::RunWithLargeStack(
      [&]() -> int {
        mlir::DialectRegistry registry;
        bef::converter::RegisterHostDialects(registry);
        mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
        context.allowUnregisteredDialects();
        mlir::ScopedDiagnosticHandler quiet(&context,
                                            [](mlir::Diagnostic&) { return mlir::success(); });
        llvm::SourceMgr source_manager;
        source_manager.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "input"),
                                          llvm::SMLoc());
        mlir::OwningOpRef<mlir::ModuleOp> module =
            mlir::parseSourceFile<mlir::ModuleOp>(source_manager, &context);
        if (!module) return 1;
        mlir::FailureOr<std::vector<uint8_t>> bytes =
            bef::converter::ConvertMlirToBef(*module, bef::converter::MlirToBefOptions());
        return mlir::failed(bytes) ? 1 : 0;
      },
      &overflow);
  ++(!overflow.empty() ? overflowed_inputs : result == 0 ? converted_inputs : refused_inputs);
  return 0;
}
