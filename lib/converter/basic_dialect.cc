// The `tfrt` dialect: its types and the custom syntax and verifiers of its
// ops (basic_ops.td declares them).
#include <string>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "lib/converter/dialect_support.h"
#include "lib/converter/dialects.h"

// ODS's builder for BF16 names the type unqualified.
namespace bef::converter::tfrt {
using ::mlir::BFloat16Type;
}  // namespace bef::converter::tfrt

#include "lib/converter/BasicOpsDialect.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "lib/converter/BasicOpsTypes.cpp.inc"
#define GET_OP_CLASSES
#include "lib/converter/BasicOps.cpp.inc"

namespace bef::converter {

//===----------------------------------------------------------------------===//
// tfrt dialect
//===----------------------------------------------------------------------===//

namespace tfrt {

namespace {

// `(T1, T2)` or `()`.
ParseResult ParseParenTypeList(OpAsmParser& parser,
                               llvm::SmallVectorImpl<mlir::Type>& types) {
  if (parser.parseLParen()) return failure();
  if (succeeded(parser.parseOptionalRParen())) return success();
  if (parser.parseTypeList(types) || parser.parseRParen()) return failure();
  return success();
}

void PrintParenTypeList(OpAsmPrinter& printer, mlir::TypeRange types) {
  printer << '(';
  PrintTypeList(printer, types);
  printer << ')';
}

// The tail shared by tfrt.cond, tfrt.case, tfrt.while and tfrt.once:
// `( operands ) attr-dict [keyword] : ( types ) -> ( types )`, where the
// operands follow `leading` already-parsed operands of types
// `leading_types`. `before_types` parses what comes between the attribute
// dictionary and the colon (tfrt.while's parallel_iterations).
ParseResult ParseCallTail(
    OpAsmParser& parser, OperationState& result,
    llvm::ArrayRef<OpAsmParser::UnresolvedOperand> leading,
    llvm::ArrayRef<mlir::Type> leading_types,
    llvm::function_ref<ParseResult()> before_types = nullptr) {
  llvm::SmallVector<OpAsmParser::UnresolvedOperand, 4> operands;
  llvm::SmallVector<mlir::Type, 4> operand_types, result_types;
  llvm::SMLoc location = parser.getCurrentLocation();
  if (parser.parseOperandList(operands, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      (before_types && before_types()) || parser.parseColon() ||
      ParseParenTypeList(parser, operand_types) || parser.parseArrow() ||
      ParseParenTypeList(parser, result_types))
    return failure();
  if (parser.resolveOperands(leading, leading_types, location,
                             result.operands) ||
      parser.resolveOperands(operands, operand_types, location,
                             result.operands))
    return failure();
  result.addTypes(result_types);
  return success();
}

void PrintCallTail(OpAsmPrinter& printer, mlir::Operation* op,
                   mlir::OperandRange operands,
                   llvm::ArrayRef<llvm::StringRef> elided,
                   llvm::function_ref<void()> before_types = nullptr) {
  printer << '(';
  printer.printOperands(operands);
  printer << ')';
  printer.printOptionalAttrDict(op->getAttrs(), elided);
  if (before_types) before_types();
  printer << " : ";
  PrintParenTypeList(printer, operands.getTypes());
  printer << " -> ";
  PrintParenTypeList(printer, op->getResultTypes());
}

}  // namespace

// --- tfrt.cond / tfrt.case / tfrt.while / tfrt.once ---

ParseResult CondOp::parse(OpAsmParser& parser, OperationState& result) {
  OpAsmParser::UnresolvedOperand cond;
  mlir::FlatSymbolRefAttr true_fn, false_fn;
  if (parser.parseOperand(cond) ||
      parser.parseAttribute(true_fn, "a_true_fn", result.attributes) ||
      parser.parseAttribute(false_fn, "b_false_fn", result.attributes))
    return failure();
  return ParseCallTail(parser, result, {cond},
                       {parser.getBuilder().getI1Type()});
}

void CondOp::print(OpAsmPrinter& printer) {
  printer << ' ' << getCond() << ' ';
  printer.printAttributeWithoutType(getATrueFnAttr());
  printer << ' ';
  printer.printAttributeWithoutType(getBFalseFnAttr());
  printer << ' ';
  PrintCallTail(printer, *this, getArgs(), {"a_true_fn", "b_false_fn"});
}

ParseResult CaseOp::parse(OpAsmParser& parser, OperationState& result) {
  OpAsmParser::UnresolvedOperand index;
  mlir::ArrayAttr branches;
  if (parser.parseOperand(index) ||
      parser.parseAttribute(branches, "branches", result.attributes))
    return failure();
  return ParseCallTail(parser, result, {index},
                       {parser.getBuilder().getI32Type()});
}

void CaseOp::print(OpAsmPrinter& printer) {
  printer << ' ' << getBranchIndex() << ' ';
  printer.printAttributeWithoutType(getBranchesAttr());
  printer << ' ';
  PrintCallTail(printer, *this, getBranchOperands(), {"branches"});
}

ParseResult WhileOp::parse(OpAsmParser& parser, OperationState& result) {
  OpAsmParser::UnresolvedOperand cond;
  mlir::FlatSymbolRefAttr body;
  if (parser.parseOperand(cond) ||
      parser.parseAttribute(body, "body_fn", result.attributes))
    return failure();
  auto parallel_iterations = [&]() -> ParseResult {
    mlir::IntegerAttr count;
    if (parser.parseKeyword("parallel_iterations") || parser.parseLParen() ||
        parser.parseAttribute(count, parser.getBuilder().getI64Type(),
                              "parallel_iterations", result.attributes) ||
        parser.parseRParen())
      return failure();
    return success();
  };
  return ParseCallTail(parser, result, {cond},
                       {parser.getBuilder().getI1Type()}, parallel_iterations);
}

void WhileOp::print(OpAsmPrinter& printer) {
  printer << ' ' << getCond() << ' ';
  printer.printAttributeWithoutType(getBodyFnAttr());
  PrintCallTail(printer, *this, getArguments(),
                {"body_fn", "parallel_iterations"}, [&] {
                  printer << " parallel_iterations(" << getParallelIterations()
                          << ')';
                });
}

ParseResult OnceOp::parse(OpAsmParser& parser, OperationState& result) {
  mlir::FlatSymbolRefAttr function;
  if (parser.parseAttribute(function, "function", result.attributes))
    return failure();
  return ParseCallTail(parser, result, {}, {});
}

void OnceOp::print(OpAsmPrinter& printer) {
  printer << ' ';
  printer.printAttributeWithoutType(getFunctionAttr());
  PrintCallTail(printer, *this, getArguments(), {"function"});
}

void TFRTDialect::initialize() {
  allowUnknownOperations();
  allowUnknownTypes();
  addTypes<
#define GET_TYPEDEF_LIST
#include "lib/converter/BasicOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "lib/converter/BasicOps.cpp.inc"
      >();
  addInterfaces<HostInlinerInterface>();
}

mlir::Type TFRTDialect::parseType(mlir::DialectAsmParser& parser) const {
  // The generated parser handles chain/string/tensor_type/device; any
  // other keyword is an opaque type.
  llvm::StringRef spec = parser.getFullSymbolSpec();
  llvm::StringRef mnemonic;
  mlir::Type type;
  llvm::SMLoc location = parser.getCurrentLocation();
  if (!spec.contains('<')) {
    mlir::OptionalParseResult known =
        generatedTypeParser(parser, &mnemonic, type);
    if (known.has_value()) return succeeded(*known) ? type : mlir::Type();
    return OpaqueTypeOf(*this, mnemonic);
  }
  parser.emitError(location) << "unknown tfrt type " << spec;
  return {};
}

void TFRTDialect::printType(mlir::Type type,
                            mlir::DialectAsmPrinter& printer) const {
  if (llvm::succeeded(generatedTypePrinter(type, printer))) return;
  printer << "<unknown type>";
}

// --- tfrt.call ---

LogicalResult CallOp::verify() {
  mlir::SymbolTableCollection symbol_table;
  auto function = LookupFunction(*this, symbol_table, "callee");
  if (mlir::failed(function)) return failure();
  mlir::FunctionType type = function->getFunctionType();
  if (failed(MatchTypes(*this, getOperandTypes(), type.getInputs(),
                        "incorrect number of operands for callee", "operand type mismatch")))
    return failure();
  return MatchTypes(*this, getResultTypes(), type.getResults(),
                    "incorrect number of results for callee", "result type mismatch");
}

// --- tfrt.cond ---

LogicalResult CondOp::verify() {
  mlir::SymbolTableCollection symbol_table;
  // TFRT's message for a missing b_false_fn names 'a_false_fn' (sic).
  if (!(*this)->getAttrOfType<mlir::FlatSymbolRefAttr>("a_true_fn"))
    return emitOpError("requires a 'a_true_fn' symbol reference attribute");
  if (!(*this)->getAttrOfType<mlir::FlatSymbolRefAttr>("b_false_fn"))
    return emitOpError("requires a 'a_false_fn' symbol reference attribute");
  for (auto [attribute, which] :
       {std::pair<llvm::StringRef, llvm::StringRef>{"a_true_fn", "true"},
        {"b_false_fn", "false"}}) {
    auto function = LookupFunction(*this, symbol_table, attribute);
    if (mlir::failed(function)) return failure();
    mlir::FunctionType type = function->getFunctionType();
    if (failed(MatchTypes(*this, getArgs().getTypes(), type.getInputs(),
                          "incorrect number of operands for " + which + " function",
                          "operand type mismatch for " + which + " function")) ||
        failed(MatchTypes(*this, getResultTypes(), type.getResults(),
                          "incorrect number of results for " + which + " function",
                          "result type mismatch for " + which + " function")))
      return failure();
  }
  return success();
}

// --- tfrt.if ---

ParseResult IfOp::parse(OpAsmParser& parser, OperationState& result) {
  mlir::Region* then_region = result.addRegion();
  mlir::Region* else_region = result.addRegion();
  llvm::SmallVector<OpAsmParser::UnresolvedOperand, 4> operands;
  mlir::FunctionType types;
  llvm::SMLoc location = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  if (operands.empty())
    return parser.emitError(parser.getCurrentLocation(), "expected condition");
  if (parser.parseColonType(types)) return failure();
  result.addTypes(types.getResults());

  auto body_operands = llvm::ArrayRef(operands).drop_front();
  mlir::Type i1 = parser.getBuilder().getI1Type();
  if (parser.resolveOperand(operands[0], i1, result.operands) ||
      parser.resolveOperands(body_operands, types.getInputs(), location,
                             result.operands))
    return failure();

  auto arguments = RegionArguments(body_operands, types.getInputs());
  if (parser.parseRegion(*then_region, arguments,
                         /*enableNameShadowing=*/true))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("else"))) {
    if (parser.parseRegion(*else_region, arguments,
                           /*enableNameShadowing=*/true))
      return failure();
  } else {
    if (!types.getResults().empty()) {
      return parser.emitError(parser.getCurrentLocation(),
                              "expected 'else' in 'tfrt.if' with result "
                              "values");
    }
    AddEmptyReturnBlock(*else_region, types.getInputs(), result.location,
                        parser.getContext());
  }
  return success();
}

void IfOp::print(OpAsmPrinter& printer) {
  printer << ' ';
  printer.printOperands(getOperands());
  // TFRT prints a bare attribute dictionary here, which its parser does not
  // accept back; the `attributes` keyword keeps the output parseable.
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  printer << " : (";
  PrintTypeList(printer, getArgs().getTypes());
  printer << ") -> (";
  PrintTypeList(printer, getResultTypes());
  printer << ") ";
  printer.shadowRegionArgs(getThenRegion(), getArgs());
  printer << ' ';
  printer.printRegion(getThenRegion(), /*printEntryBlockArgs=*/false);
  printer << " else ";
  printer.shadowRegionArgs(getElseRegion(), getArgs());
  printer << ' ';
  printer.printRegion(getElseRegion(), /*printEntryBlockArgs=*/false);
}

LogicalResult IfOp::verify() {
  for (auto [region, name] :
       {std::pair<mlir::Region*, llvm::StringRef>{&getThenRegion(), "then"},
        {&getElseRegion(), "else"}}) {
    if (region->empty()) return emitOpError("expected tfrt.return in body");
    mlir::Block& block = region->front();
    if (failed(MatchTypes(*this, block.getArgumentTypes(), getArgs().getTypes(),
                          "incorrect number of arguments to '" + name + "' block",
                          "operand/argument type mismatch")))
      return failure();
    if (failed(VerifyRegionReturn(*this, *region))) return failure();
  }
  return success();
}

// --- tfrt.repeat.i32 ---

ParseResult RepeatI32Op::parse(OpAsmParser& parser, OperationState& result) {
  llvm::SmallVector<OpAsmParser::UnresolvedOperand, 4> operands;
  llvm::SmallVector<mlir::Type, 4> types;
  llvm::SMLoc location = parser.getCurrentLocation();
  if (parser.parseOperandList(operands)) return failure();
  if (operands.empty())
    return parser.emitError(parser.getCurrentLocation(), "expected trip count");
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  if (succeeded(parser.parseOptionalColon()) && parser.parseTypeList(types))
    return failure();
  auto loop_operands = llvm::ArrayRef(operands).drop_front();
  if (parser.resolveOperand(operands[0], parser.getBuilder().getI32Type(),
                            result.operands) ||
      parser.resolveOperands(loop_operands, types, location, result.operands))
    return failure();
  result.addTypes(types);
  mlir::Region* body = result.addRegion();
  return parser.parseRegion(*body, RegionArguments(loop_operands, types),
                            /*enableNameShadowing=*/true);
}

void RepeatI32Op::print(OpAsmPrinter& printer) {
  printer << ' ';
  printer.printOperands(getOperands());
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  if (!getArgs().empty()) {
    printer << " : ";
    PrintTypeList(printer, getArgs().getTypes());
  }
  printer.shadowRegionArgs(getRegion(), getArgs());
  printer << ' ';
  printer.printRegion(getRegion(), /*printEntryBlockArgs=*/false);
}

LogicalResult RepeatI32Op::verify() {
  if (failed(MatchTypes(*this, getArgs().getTypes(), getResultTypes(),
                        "incorrect number of operands", "operand/result type mismatch")))
    return failure();
  return VerifyRegionReturn(*this, getRegion());
}

// --- tfrt.parallel_for.i32 / tfrt.parallel_call.i32 ---

namespace {

// `%start to %end fixed %block_size`, shared by both parallel ops.
ParseResult ParseParallelRange(
    OpAsmParser& parser,
    llvm::SmallVectorImpl<OpAsmParser::UnresolvedOperand>& range) {
  range.resize(3);
  return failure(parser.parseOperand(range[0]) ||
                 parser.parseKeyword("to") || parser.parseOperand(range[1]) ||
                 parser.parseKeyword("fixed") ||
                 parser.parseOperand(range[2]));
}

void PrintParallelRange(OpAsmPrinter& printer, mlir::Value start,
                        mlir::Value end, mlir::Value block_size) {
  printer << ' ' << start << " to " << end << " fixed " << block_size;
}

// Resolves the i32 range and the `types`-typed `operands` (their list began
// at `location`) into `result`, which gets the ops' one result: a chain.
ParseResult ResolveParallelOperands(
    OpAsmParser& parser, llvm::ArrayRef<OpAsmParser::UnresolvedOperand> range,
    llvm::ArrayRef<OpAsmParser::UnresolvedOperand> operands,
    llvm::ArrayRef<mlir::Type> types, llvm::SMLoc location,
    OperationState& result) {
  if (parser.resolveOperands(range, parser.getBuilder().getI32Type(),
                             result.operands) ||
      parser.resolveOperands(operands, types, location, result.operands))
    return failure();
  result.addTypes(ChainType::get(parser.getContext()));
  return success();
}

}  // namespace

ParseResult ParallelForI32Op::parse(OpAsmParser& parser,
                                    OperationState& result) {
  llvm::SmallVector<OpAsmParser::UnresolvedOperand, 4> range;
  llvm::SmallVector<OpAsmParser::UnresolvedOperand, 4> operands;
  llvm::SmallVector<mlir::Type, 4> types;
  if (ParseParallelRange(parser, range)) return failure();
  llvm::SMLoc location = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseOperandList(operands) || parser.parseColonTypeList(types))
      return failure();
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  if (ResolveParallelOperands(parser, range, operands, types, location, result))
    return failure();

  // Region arguments: start, end, then the extra operands.
  llvm::SmallVector<OpAsmParser::UnresolvedOperand, 4> bound = {range[0],
                                                                range[1]};
  bound.append(operands.begin(), operands.end());
  mlir::Type i32 = parser.getBuilder().getI32Type();
  llvm::SmallVector<mlir::Type, 4> bound_types = {i32, i32};
  bound_types.append(types.begin(), types.end());
  mlir::Region* body = result.addRegion();
  return parser.parseRegion(*body, RegionArguments(bound, bound_types),
                            /*enableNameShadowing=*/true);
}

void ParallelForI32Op::print(OpAsmPrinter& printer) {
  PrintParallelRange(printer, getStart(), getEnd(), getBlockSize());
  if (!getArgs().empty()) {
    printer << ", ";
    printer.printOperands(getArgs());
    printer << " : ";
    PrintTypeList(printer, getArgs().getTypes());
  }
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  llvm::SmallVector<mlir::Value, 4> bound = {getStart(), getEnd()};
  bound.append(getArgs().begin(), getArgs().end());
  printer.shadowRegionArgs(getRegion(), bound);
  printer << ' ';
  printer.printRegion(getRegion(), /*printEntryBlockArgs=*/false);
}

LogicalResult ParallelForI32Op::verify() {
  mlir::Region& region = getRegion();
  if (region.empty()) return emitOpError("expected tfrt.return in body");
  auto return_op = llvm::dyn_cast<ReturnOp>(region.front().back());
  if (!return_op) return emitOpError("expected tfrt.return in body");
  if (return_op.getNumOperands() != 0 &&
      (return_op.getNumOperands() != 1 ||
       return_op.getOperand(0).getType() != getResult().getType())) {
    return return_op.emitOpError()
           << "operand types don't match '" << getOperationName()
           << "' result";
  }
  return success();
}

ParseResult ParallelCallI32Op::parse(OpAsmParser& parser,
                                     OperationState& result) {
  llvm::SmallVector<OpAsmParser::UnresolvedOperand, 4> range;
  llvm::SmallVector<OpAsmParser::UnresolvedOperand, 4> operands;
  llvm::SmallVector<mlir::Type, 4> types;
  mlir::FlatSymbolRefAttr callee;
  if (ParseParallelRange(parser, range) ||
      parser.parseAttribute(callee, "callee", result.attributes))
    return failure();
  llvm::SMLoc location = parser.getCurrentLocation();
  if (parser.parseOperandList(operands, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  if (succeeded(parser.parseOptionalColon()) && parser.parseTypeList(types))
    return failure();
  return ResolveParallelOperands(parser, range, operands, types, location,
                                 result);
}

void ParallelCallI32Op::print(OpAsmPrinter& printer) {
  PrintParallelRange(printer, getStart(), getEnd(), getBlockSize());
  printer << ' ';
  printer.printAttributeWithoutType(getCalleeAttr());
  printer << '(';
  printer.printOperands(getArgs());
  printer << ')';
  printer.printOptionalAttrDict((*this)->getAttrs(), {"callee"});
  if (!getArgs().empty()) {
    printer << " : ";
    PrintTypeList(printer, getArgs().getTypes());
  }
}

LogicalResult ParallelCallI32Op::verify() {
  mlir::SymbolTableCollection symbol_table;
  auto function = LookupFunction(*this, symbol_table, "callee");
  if (mlir::failed(function)) return failure();
  mlir::FunctionType type = function->getFunctionType();
  if (type.getNumInputs() != getArgs().size() + 2)
    return emitOpError("incorrect number of callee operands");
  mlir::Type i32 = mlir::IntegerType::get(getContext(), 32);
  if (type.getInput(0) != i32 || type.getInput(1) != i32)
    return emitOpError("callee must take stard and end indices first");
  if (failed(MatchTypes(*this, getArgs().getTypes(), type.getInputs().drop_front(2),
                        "incorrect number of callee operands", "operand type mismatch")))
    return failure();
  if (type.getNumResults() > 1)
    return emitOpError("invalid callee result type");
  if (type.getNumResults() == 1 && !llvm::isa<ChainType>(type.getResult(0)))
    return emitOpError("async callee must return a chain");
  return success();
}

// --- tfrt.merge.chains ---

namespace {

// TFRT's canonicalization of tfrt.merge.chains: keep only the inputs whose
// single use is this merge (a chain used elsewhere too is taken to be
// ordered by that other use); when none is, the merge becomes its first
// input; when all are, nothing changes. So `%o = tfrt.merge.chains %ch`
// disappears when %ch is also used elsewhere (e.g. returned) and stays when
// the merge is %ch's only use.
struct KeepSingleUseMergeInputs
    : public mlir::OpRewritePattern<MergeChainsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MergeChainsOp op,
                                mlir::PatternRewriter& rewriter) const final {
    llvm::SmallVector<mlir::Value, 4> kept;
    for (mlir::Value input : op.getInputs()) {
      if (input.hasOneUse()) kept.push_back(input);
    }
    if (kept.size() == op.getInputs().size()) return failure();
    if (kept.empty()) {
      // Only a chain can stand for the merge's chain result.
      if (op.getInputs().front().getType() != op.getResult().getType())
        return failure();
      rewriter.replaceOp(op, op.getInputs().front());
      return success();
    }
    rewriter.modifyOpInPlace(op, [&] { op->setOperands(kept); });
    return success();
  }
};

}  // namespace

void MergeChainsOp::getCanonicalizationPatterns(
    mlir::RewritePatternSet& patterns, mlir::MLIRContext* context) {
  patterns.add<KeepSingleUseMergeInputs>(context);
}

// --- tfrt.return ---

LogicalResult ReturnOp::verify() {
  auto function = llvm::dyn_cast<mlir::func::FuncOp>((*this)->getParentOp());
  if (!function) return success();
  llvm::ArrayRef<mlir::Type> results = function.getFunctionType().getResults();
  if (getNumOperands() != results.size()) {
    return emitOpError() << "has " << getNumOperands()
                         << " operands, but enclosing function returns "
                         << results.size();
  }
  for (unsigned i = 0; i < results.size(); ++i) {
    if (getOperand(i).getType() != results[i]) {
      // Diagnostics quote types themselves: ('i32').
      return mlir::emitError(getLoc())
             << "type of return operand " << i << " ("
             << getOperand(i).getType()
             << ") doesn't match function result type (" << results[i]
             << ")";
    }
  }
  return success();
}

}  // namespace tfrt

}  // namespace bef::converter
