// The host dialects' registration, the inliner interface they share, and
// the helpers of dialect_support.h. Each dialect's ops live in a file of
// their own: basic_dialect.cc (`tfrt`), test_dialect.cc (`tfrt_test`,
// `tfrt_test_sync`, `corert`), tensor_dialects.cc and the others.
#include "lib/converter/dialects.h"

#include <algorithm>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "lib/converter/dialect_support.h"

namespace bef::converter {

// Parses an unknown `!dialect.keyword` as an opaque type of the dialect.
mlir::Type ParseOpaqueType(mlir::DialectAsmParser& parser,
                           llvm::StringRef dialect_name) {
  llvm::StringRef spec = parser.getFullSymbolSpec();
  llvm::StringRef keyword;
  llvm::SMLoc location = parser.getCurrentLocation();
  if (parser.parseOptionalKeyword(&keyword) || keyword != spec) {
    parser.emitError(location) << "unknown " << dialect_name << " type "
                               << spec;
    return {};
  }
  mlir::MLIRContext* context = parser.getContext();
  return mlir::OpaqueType::get(mlir::StringAttr::get(context, dialect_name),
                               keyword);
}

// Block arguments named like `operands` (the custom syntax reuses operand
// names inside regions), typed `types`.
llvm::SmallVector<OpAsmParser::Argument, 4> RegionArguments(
    llvm::ArrayRef<OpAsmParser::UnresolvedOperand> operands,
    llvm::ArrayRef<mlir::Type> types) {
  llvm::SmallVector<OpAsmParser::Argument, 4> arguments;
  for (auto [operand, type] : llvm::zip(operands, types)) {
    OpAsmParser::Argument argument;
    argument.ssaName = operand;
    argument.type = type;
    arguments.push_back(argument);
  }
  return arguments;
}

// A block with `types` arguments ending in an empty tfrt.return.
void AddEmptyReturnBlock(mlir::Region& region, mlir::TypeRange types,
                         mlir::Location location, mlir::MLIRContext* context) {
  auto* block = new mlir::Block();
  region.push_back(block);
  for (mlir::Type type : types) block->addArgument(type, location);
  mlir::OpBuilder builder(context);
  builder.setInsertionPointToEnd(block);
  tfrt::ReturnOp::create(builder, location);
}

void PrintTypeList(OpAsmPrinter& printer, mlir::TypeRange types) {
  llvm::interleaveComma(types, printer);
}

// Verifies a region's terminator against the op's results: the rule shared
// by tfrt.if, tfrt.repeat.i32 and tfrt_test.do.async.
LogicalResult VerifyRegionReturn(mlir::Operation* op, mlir::Region& region) {
  if (region.empty()) return op->emitOpError("expected tfrt.return in body");
  auto return_op = llvm::dyn_cast<tfrt::ReturnOp>(region.front().back());
  if (!return_op) return op->emitOpError("expected tfrt.return in body");
  if (!std::equal(return_op.getOperandTypes().begin(),
                  return_op.getOperandTypes().end(),
                  op->getResultTypes().begin(), op->getResultTypes().end())) {
    return return_op.emitOpError()
           << "operand types don't match '" << op->getName() << "' result";
  }
  return success();
}

// Whether `actual` are exactly the `expected` types: the check each
// verifier of a call site makes of its operands against the callee's inputs
// (or a region's arguments, or its results), in TFRT's words: the count's
// message when the counts differ, else the type's at the first mismatch.
LogicalResult MatchTypes(mlir::Operation* op, mlir::TypeRange actual,
                         mlir::TypeRange expected, const llvm::Twine& count_message,
                         const llvm::Twine& type_message) {
  if (actual.size() != expected.size()) return op->emitOpError(count_message);
  for (auto [a, e] : llvm::zip(actual, expected)) {
    if (a != e) return op->emitOpError(type_message);
  }
  return success();
}

// Looks up a function named by `attribute_name` for symbol verifiers.
mlir::FailureOr<mlir::func::FuncOp> LookupFunction(
    mlir::Operation* op, mlir::SymbolTableCollection& symbol_table,
    llvm::StringRef attribute_name) {
  auto symbol = op->getAttrOfType<mlir::FlatSymbolRefAttr>(attribute_name);
  if (!symbol) {
    op->emitOpError("requires a '")
        << attribute_name << "' symbol reference attribute";
    return failure();
  }
  auto function =
      symbol_table.lookupNearestSymbolFrom<mlir::func::FuncOp>(op, symbol);
  if (!function) {
    op->emitOpError() << "'" << symbol.getValue()
                      << "' does not reference a valid function";
    return failure();
  }
  return function;
}

void HostInlinerInterface::handleTerminator(
    mlir::Operation* op, mlir::ValueRange values_to_replace) const {
  auto return_op = llvm::dyn_cast<tfrt::ReturnOp>(op);
  if (!return_op) return;
  for (auto [from, to] : llvm::zip(values_to_replace, return_op.getOperands())) {
    from.replaceAllUsesWith(to);
  }
}

void RegisterHostDialects(mlir::DialectRegistry& registry) {
  registry.insert<mlir::func::FuncDialect, tfrt::TFRTDialect,
                  tfrt_test::TFRTTestDialect, TestSyncDialect,
                  corert::CoreRuntimeDialect, tfrt_tensor::TFRTTensorDialect,
                  tfrt_dht::TFRTDHTDialect, tfrt_dht_sync::TFRTDHTSyncDialect,
                  ht::HTDialect, ts::TSDialect, coo::COODialect>();
  // func.func bodies may be inlined (bef-opt -inline).
  mlir::func::registerInlinerExtension(registry);
}

mlir::Type OpaqueTypeOf(const mlir::Dialect& dialect, llvm::StringRef mnemonic) {
  return mlir::OpaqueType::get(
      mlir::StringAttr::get(dialect.getContext(), dialect.getNamespace()),
      mnemonic);
}

}  // namespace bef::converter
