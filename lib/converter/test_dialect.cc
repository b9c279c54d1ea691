// The `tfrt_test` dialect (test_ops.td declares its ops), the declared
// `tfrt_test_sync` dialect, and the part of `corert` host programs use.
#include <string>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "lib/converter/dialect_support.h"
#include "lib/converter/dialects.h"

#include "lib/converter/TestOpsDialect.cpp.inc"
#define GET_OP_CLASSES
#include "lib/converter/TestOps.cpp.inc"

namespace bef::converter {

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

}  // namespace bef::converter

MLIR_DEFINE_EXPLICIT_TYPE_ID(bef::converter::TestSyncDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(bef::converter::corert::CoreRuntimeDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(bef::converter::corert::ShapeAttr)
MLIR_DEFINE_EXPLICIT_TYPE_ID(bef::converter::corert::ConstDenseTensorOp)
