// What the host dialects' parsers, printers and verifiers share (dialects.cc
// defines it): the custom syntax's pieces and the checks of call sites and
// region terminators, each written once so the dialects give the same
// messages (TFRT's words). Internal to //lib/converter:dialects.
#ifndef BEF_CONVERTER_DIALECT_SUPPORT_H_
#define BEF_CONVERTER_DIALECT_SUPPORT_H_

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

namespace bef::converter {

// The names every dialect file uses.
using mlir::failure;
using mlir::LogicalResult;
using mlir::OpAsmParser;
using mlir::OpAsmPrinter;
using mlir::OperationState;
using mlir::ParseResult;
using mlir::success;

// Parses an unknown `!dialect.keyword` as an opaque type of the dialect.
mlir::Type ParseOpaqueType(mlir::DialectAsmParser& parser, llvm::StringRef dialect_name);

// Block arguments named like `operands` (the custom syntax reuses operand
// names inside regions), typed `types`.
llvm::SmallVector<mlir::OpAsmParser::Argument, 4> RegionArguments(
    llvm::ArrayRef<mlir::OpAsmParser::UnresolvedOperand> operands,
    llvm::ArrayRef<mlir::Type> types);

// A block with `types` arguments ending in an empty tfrt.return.
void AddEmptyReturnBlock(mlir::Region& region, mlir::TypeRange types, mlir::Location location,
                         mlir::MLIRContext* context);

// `T1, T2` (no brackets).
void PrintTypeList(mlir::OpAsmPrinter& printer, mlir::TypeRange types);

// Verifies a region's terminator against the op's results: the rule shared
// by tfrt.if, tfrt.repeat.i32 and tfrt_test.do.async.
mlir::LogicalResult VerifyRegionReturn(mlir::Operation* op, mlir::Region& region);

// Whether `actual` are exactly the `expected` types: the check each
// verifier of a call site makes of its operands against the callee's inputs
// (or a region's arguments, or its results), in TFRT's words: the count's
// message when the counts differ, else the type's at the first mismatch.
mlir::LogicalResult MatchTypes(mlir::Operation* op, mlir::TypeRange actual,
                               mlir::TypeRange expected, const llvm::Twine& count_message,
                               const llvm::Twine& type_message);

// Looks up a function named by `attribute_name` for symbol verifiers.
mlir::FailureOr<mlir::func::FuncOp> LookupFunction(mlir::Operation* op,
                                                   mlir::SymbolTableCollection& symbol_table,
                                                   llvm::StringRef attribute_name);

}  // namespace bef::converter

#endif  // BEF_CONVERTER_DIALECT_SUPPORT_H_
