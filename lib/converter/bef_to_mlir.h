// ConvertBefToMlir: rebuilds a host-program module from a BEF file, as TFRT's
// `tfrt_translate -bef-to-mlir` (../shared/spec/bef-executor-cli.md §6.2).
//
// Named functions become top-level func.func ops (kind 2 with `tfrt.sync`,
// kind 1 as `tfrt.native` declarations); anonymous functions become the
// regions of the ops that reference them; ops are rebuilt in kernel-table
// order and every body ends in a synthesised tfrt.return. Attribute names,
// attribute types and value types come from the optional sections.
//
// Unlike the reference, function references get their real attribute names
// for the registered ops that take symbols (tfrt.call `callee`, tfrt.cond
// `a_true_fn`/`b_false_fn`, tfrt.case `branches`, tfrt.while `body_fn`,
// tfrt.once `function`, ...), so those ops verify and round-trip; other ops
// get `callee` (TFRT's name), then `callee_1`, `callee_2`, ... so that the
// function order survives a round trip.
//
// Every problem is an MLIR diagnostic at `file_location` with TFRT's text;
// malformed bytes never crash the reader.
#ifndef BEF_CONVERTER_BEF_TO_MLIR_H_
#define BEF_CONVERTER_BEF_TO_MLIR_H_

#include <cstdint>
#include <span>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace bef::converter {

struct BefToMlirOptions {
  // Deeper nesting of regions (anonymous functions used by kernels of
  // other functions) is an error: MLIR prints and destroys regions
  // recursively.
  unsigned max_region_depth = 4096;
};

// Returns null after reporting an error. A file with an unknown format
// version is reported as an error but still converted (TFRT's behaviour).
mlir::OwningOpRef<mlir::ModuleOp> ConvertBefToMlir(
    std::span<const uint8_t> image, mlir::Location file_location,
    const BefToMlirOptions& options = {});

}  // namespace bef::converter

#endif  // BEF_CONVERTER_BEF_TO_MLIR_H_
