// ConvertMlirToBef: a verified host-program module to BEF bytes, identical to
// TFRT's `tfrt_translate -mlir-to-bef` (../shared/spec/bef-encoding-constants.md,
// bef-executor-cli.md §6.1).
//
// Two passes over the module, both in MLIR's post-order walk (an op's nested
// regions before the op):
//  1. collect: function order (regions become anonymous functions when their
//     op is visited, a func.func after its body), kernel names, types and
//     top-level attributes in order of first appearance -- the orders of the
//     Kernels, Types and Attributes sections;
//  2. emit: each function's kernels through BefWriter, with stream ids from
//     StreamAnalysis and locations converted from MLIR locations.
// Conversion errors are MLIR diagnostics on the offending op (exact TFRT
// texts); the function then returns failure.
#ifndef BEF_CONVERTER_MLIR_TO_BEF_H_
#define BEF_CONVERTER_MLIR_TO_BEF_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace bef::converter {

struct MlirToBefOptions {
  // AttributeTypes, AttributeNames, RegisterTypes (and the attribute names
  // and attribute value types they need in Strings/Types).
  bool emit_optional_sections = true;
  // Called once per converted body with TFRT's log text
  // "StreamAnalysis: max_cost for function NAME is N" (NAME "unknown" for
  // regions), in conversion order.
  std::function<void(const std::string&)> stream_analysis_log;
};

mlir::FailureOr<std::vector<uint8_t>> ConvertMlirToBef(
    mlir::ModuleOp module, const MlirToBefOptions& options = {});

// The same bytes, written to `os` section by section (no copy of the whole
// file is made: mlir-to-bef writes this way).
mlir::LogicalResult ConvertMlirToBef(mlir::ModuleOp module,
                                     const MlirToBefOptions& options,
                                     llvm::raw_ostream& os);

}  // namespace bef::converter

#endif  // BEF_CONVERTER_MLIR_TO_BEF_H_
