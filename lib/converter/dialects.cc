#include "lib/converter/dialects.h"

#include <string>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/InliningUtils.h"

// ODS's builder for BF16 names the type unqualified.
namespace bef::converter::tfrt {
using ::mlir::BFloat16Type;
}  // namespace bef::converter::tfrt

#include "lib/converter/BasicOpsDialect.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "lib/converter/BasicOpsTypes.cpp.inc"
#define GET_OP_CLASSES
#include "lib/converter/BasicOps.cpp.inc"

#include "lib/converter/TestOpsDialect.cpp.inc"
#define GET_OP_CLASSES
#include "lib/converter/TestOps.cpp.inc"

namespace bef::converter {
namespace {

using mlir::failure;
using mlir::LogicalResult;
using mlir::OpAsmParser;
using mlir::OpAsmPrinter;
using mlir::OperationState;
using mlir::ParseResult;
using mlir::success;

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

}  // namespace

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

//===----------------------------------------------------------------------===//
// tfrt_test dialect
//===----------------------------------------------------------------------===//

namespace tfrt_test {

void TFRTTestDialect::initialize() {
  allowUnknownOperations();
  allowUnknownTypes();
  addOperations<
#define GET_OP_LIST
#include "lib/converter/TestOps.cpp.inc"
      >();
  addInterfaces<HostInlinerInterface>();
}

// --- tfrt_test.test_cost ---

LogicalResult TestCostOp::verify() {
  if (get_tfrtCostAttr().getInt() <= 0)
    return emitOpError("cost value must be larger than 0");
  return success();
}

// --- tfrt_test.do.async ---

ParseResult DoAsyncOp::parse(OpAsmParser& parser, OperationState& result) {
  llvm::SmallVector<OpAsmParser::UnresolvedOperand, 4> operands;
  mlir::FunctionType types;
  llvm::SMLoc location = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseColonType(types) ||
      parser.resolveOperands(operands, types.getInputs(), location,
                             result.operands))
    return failure();
  result.addTypes(types.getResults());
  mlir::Region* body = result.addRegion();
  return parser.parseRegion(*body, RegionArguments(operands, types.getInputs()),
                            /*enableNameShadowing=*/true);
}

void DoAsyncOp::print(OpAsmPrinter& printer) {
  printer << ' ';
  printer.printOperands(getOperands());
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  printer << " : (";
  PrintTypeList(printer, getOperandTypes());
  printer << ") -> (";
  PrintTypeList(printer, getResultTypes());
  printer << ") ";
  printer.shadowRegionArgs(getRegion(), getOperands());
  printer << ' ';
  printer.printRegion(getRegion(), /*printEntryBlockArgs=*/false);
}

LogicalResult DoAsyncOp::verify() {
  return VerifyRegionReturn(*this, getRegion());
}

// --- tfrt_test.benchmark / sync_benchmark ---

namespace {

// `(%a : i32, %b : f32)`.
ParseResult ParseTypedOperands(
    OpAsmParser& parser,
    llvm::SmallVectorImpl<OpAsmParser::UnresolvedOperand>& operands,
    llvm::SmallVectorImpl<mlir::Type>& types) {
  return parser.parseCommaSeparatedList(
      OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
        OpAsmParser::UnresolvedOperand operand;
        mlir::Type type;
        if (parser.parseOperand(operand) || parser.parseColonType(type))
          return failure();
        operands.push_back(operand);
        types.push_back(type);
        return success();
      });
}

// `duration_secs = 1, max_count = 100, ...` as i32 attributes.
ParseResult ParseIntegerKeywords(OpAsmParser& parser,
                                 mlir::NamedAttrList& attributes) {
  mlir::Type i32 = parser.getBuilder().getI32Type();
  do {
    llvm::StringRef keyword;
    mlir::IntegerAttr value;
    if (parser.parseKeyword(&keyword) || parser.parseEqual() ||
        parser.parseAttribute(value, i32, keyword, attributes))
      return failure();
  } while (succeeded(parser.parseOptionalComma()));
  return success();
}

void PrintTypedOperands(OpAsmPrinter& printer, mlir::OperandRange operands) {
  printer << '(';
  llvm::interleaveComma(operands, printer, [&](mlir::Value value) {
    printer << value << " : " << value.getType();
  });
  printer << ')';
}

void PrintIntegerKeywords(OpAsmPrinter& printer, mlir::Operation* op,
                          llvm::ArrayRef<llvm::StringRef> names) {
  bool first = true;
  for (llvm::StringRef name : names) {
    auto value = op->getAttrOfType<mlir::IntegerAttr>(name);
    if (!value) continue;
    printer << (first ? " " : ", ") << name << " = " << value.getInt();
    first = false;
  }
}

}  // namespace

ParseResult BenchmarkOp::parse(OpAsmParser& parser, OperationState& result) {
  mlir::StringAttr name;
  llvm::SmallVector<OpAsmParser::UnresolvedOperand, 4> operands;
  llvm::SmallVector<mlir::Type, 4> types;
  llvm::SMLoc location = parser.getCurrentLocation();
  if (parser.parseAttribute(name, "name", result.attributes) ||
      ParseTypedOperands(parser, operands, types) ||
      ParseIntegerKeywords(parser, result.attributes) ||
      parser.resolveOperands(operands, types, location, result.operands))
    return failure();
  result.addTypes(tfrt::ChainType::get(parser.getContext()));
  mlir::Region* body = result.addRegion();
  return parser.parseRegion(*body, RegionArguments(operands, types),
                            /*enableNameShadowing=*/true);
}

void BenchmarkOp::print(OpAsmPrinter& printer) {
  printer << ' ';
  printer.printAttribute(getNameAttr());
  PrintTypedOperands(printer, getArgs());
  PrintIntegerKeywords(printer, *this,
                       {"duration_secs", "max_count", "num_warmup_runs"});
  printer.shadowRegionArgs(getRegion(), getArgs());
  printer << ' ';
  printer.printRegion(getRegion(), /*printEntryBlockArgs=*/false);
}

LogicalResult BenchmarkOp::verify() {
  mlir::Region& region = getRegion();
  auto return_op = region.empty() ? tfrt::ReturnOp()
                                  : llvm::dyn_cast<tfrt::ReturnOp>(
                                        region.front().back());
  if (!return_op) return emitOpError("missing return statement");
  if (return_op.getNumOperands() != 1) {
    return emitOpError(
        "incorrect number of return values. One return value is expected");
  }
  return success();
}

ParseResult SyncBenchmarkOp::parse(OpAsmParser& parser,
                                   OperationState& result) {
  mlir::FlatSymbolRefAttr target;
  llvm::SmallVector<OpAsmParser::UnresolvedOperand, 4> operands;
  llvm::SmallVector<mlir::Type, 4> types;
  llvm::SMLoc location = parser.getCurrentLocation();
  if (parser.parseAttribute(target, "target_fn", result.attributes) ||
      ParseTypedOperands(parser, operands, types) ||
      ParseIntegerKeywords(parser, result.attributes) ||
      parser.resolveOperands(operands, types, location, result.operands))
    return failure();
  return success();
}

void SyncBenchmarkOp::print(OpAsmPrinter& printer) {
  printer << ' ';
  printer.printAttributeWithoutType(getTargetFnAttr());
  PrintTypedOperands(printer, getArgs());
  PrintIntegerKeywords(printer, *this,
                       {"duration_secs", "max_count", "num_warmup_runs"});
}

LogicalResult SyncBenchmarkOp::verify() {
  mlir::SymbolTableCollection symbol_table;
  auto function = LookupFunction(*this, symbol_table, "target_fn");
  if (mlir::failed(function)) return failure();
  mlir::FunctionType type = function->getFunctionType();
  if (failed(MatchTypes(*this, getArgs().getTypes(), type.getInputs(),
                        "incorrect number of operands for callee", "operand type mismatch")))
    return failure();
  if (type.getNumResults() != 0)
    return emitOpError("Target benchmark function must return zero value.");
  return success();
}

}  // namespace tfrt_test

//===----------------------------------------------------------------------===//
// tfrt_test_sync and corert
//===----------------------------------------------------------------------===//

TestSyncDialect::TestSyncDialect(mlir::MLIRContext* context)
    : mlir::Dialect(getDialectNamespace(), context,
                    mlir::TypeID::get<TestSyncDialect>()) {
  allowUnknownOperations();
  allowUnknownTypes();
  addInterfaces<HostInlinerInterface>();
}

namespace corert {

struct ShapeAttrStorage : public mlir::AttributeStorage {
  // (ranked, dimensions); unranked shapes have no dimensions.
  using KeyTy = std::pair<bool, llvm::ArrayRef<int64_t>>;
  ShapeAttrStorage(bool ranked, llvm::ArrayRef<int64_t> dimensions)
      : ranked(ranked), dimensions(dimensions) {}
  bool operator==(const KeyTy& key) const {
    return key.first == ranked && key.second == dimensions;
  }
  static llvm::hash_code hashKey(const KeyTy& key) {
    return llvm::hash_combine(key.first, key.second);
  }
  static ShapeAttrStorage* construct(mlir::AttributeStorageAllocator& allocator,
                                     const KeyTy& key) {
    return new (allocator.allocate<ShapeAttrStorage>())
        ShapeAttrStorage(key.first, allocator.copyInto(key.second));
  }
  bool ranked;
  llvm::ArrayRef<int64_t> dimensions;
};

ShapeAttr ShapeAttr::get(mlir::MLIRContext* context,
                         llvm::ArrayRef<int64_t> dimensions) {
  return Base::get(context, true, dimensions);
}

ShapeAttr ShapeAttr::getUnranked(mlir::MLIRContext* context) {
  return Base::get(context, false, llvm::ArrayRef<int64_t>());
}

bool ShapeAttr::hasRank() const { return getImpl()->ranked; }
llvm::ArrayRef<int64_t> ShapeAttr::getShape() const {
  return getImpl()->dimensions;
}

CoreRuntimeDialect::CoreRuntimeDialect(mlir::MLIRContext* context)
    : mlir::Dialect(getDialectNamespace(), context,
                    mlir::TypeID::get<CoreRuntimeDialect>()) {
  allowUnknownOperations();
  allowUnknownTypes();
  addAttributes<ShapeAttr>();
  addOperations<ConstDenseTensorOp>();
  addInterfaces<HostInlinerInterface>();
}

mlir::Type GetTensorHandleType(mlir::MLIRContext* context) {
  return mlir::OpaqueType::get(mlir::StringAttr::get(context, "corert"),
                               "tensorhandle");
}

ParseResult ConstDenseTensorOp::parse(OpAsmParser& parser,
                                      OperationState& result) {
  mlir::DenseElementsAttr value;
  if (parser.parseAttribute(value, "value", result.attributes) ||
      parser.parseOptionalAttrDict(result.attributes))
    return mlir::failure();
  result.addTypes(GetTensorHandleType(parser.getContext()));
  return success();
}

void ConstDenseTensorOp::print(OpAsmPrinter& printer) {
  printer << ' ';
  printer.printAttribute(getValue());
  printer.printOptionalAttrDict((*this)->getAttrs(), {"value"});
}

LogicalResult ConstDenseTensorOp::verify() {
  if (!getValue()) {
    return emitOpError(
        "requires attribute 'value' to be a dense elements attribute");
  }
  if (getResult().getType() != GetTensorHandleType(getContext())) {
    return emitOpError("result #0 must be !corert.tensorhandle, but got ")
           << getResult().getType();
  }
  return success();
}

mlir::Attribute CoreRuntimeDialect::parseAttribute(
    mlir::DialectAsmParser& parser, mlir::Type) const {
  mlir::MLIRContext* context = getContext();
  if (parser.parseKeyword("shape") || parser.parseLess()) return {};
  if (succeeded(parser.parseOptionalStar())) {
    if (parser.parseGreater()) return {};
    return ShapeAttr::getUnranked(context);
  }
  llvm::SmallVector<int64_t, 4> dimensions;
  if (failed(parser.parseOptionalGreater())) {
    if (parser.parseDimensionList(dimensions, /*allowDynamic=*/true,
                                  /*withTrailingX=*/false) ||
        parser.parseGreater())
      return {};
  }
  for (int64_t& dimension : dimensions) {
    if (mlir::ShapedType::isDynamic(dimension)) dimension = -1;
  }
  return ShapeAttr::get(context, dimensions);
}

void CoreRuntimeDialect::printAttribute(
    mlir::Attribute attribute, mlir::DialectAsmPrinter& printer) const {
  auto shape = llvm::cast<ShapeAttr>(attribute);
  printer << "shape<";
  if (!shape.hasRank()) {
    printer << '*';
  } else {
    llvm::interleave(
        shape.getShape(), printer,
        [&](int64_t dimension) {
          if (dimension < 0) {
            printer << '?';
          } else {
            printer << dimension;
          }
        },
        "x");
  }
  printer << '>';
}

mlir::Type CoreRuntimeDialect::parseType(mlir::DialectAsmParser& parser) const {
  return ParseOpaqueType(parser, "corert");
}

void CoreRuntimeDialect::printType(mlir::Type,
                                   mlir::DialectAsmPrinter& printer) const {
  printer << "<unknown type>";
}

}  // namespace corert

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

MLIR_DEFINE_EXPLICIT_TYPE_ID(bef::converter::TestSyncDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(bef::converter::corert::CoreRuntimeDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(bef::converter::corert::ShapeAttr)
MLIR_DEFINE_EXPLICIT_TYPE_ID(bef::converter::corert::ConstDenseTensorOp)
