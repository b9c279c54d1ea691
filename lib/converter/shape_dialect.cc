// The `ts` dialect (tensor_ops.td): shape types and ops. In its own file
// because the generated type parser/printer helpers are file-scope.
#include "lib/converter/dialects.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "lib/converter/ShapeOpsDialect.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "lib/converter/ShapeOpsTypes.cpp.inc"
#define GET_OP_CLASSES
#include "lib/converter/ShapeOps.cpp.inc"

namespace bef::converter::ts {

void TSDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "lib/converter/ShapeOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "lib/converter/ShapeOps.cpp.inc"
      >();
  addInterfaces<HostInlinerInterface>();
  // !ts.fixed_rank_shape.N is an opaque type of this dialect.
  allowUnknownTypes();
}

// `shape`, `partial_shape`, and (unlike TFRT, whose parser rejects it, so
// its bef-to-mlir fails on fixed-rank shapes) `fixed_rank_shape.N`.
mlir::Type TSDialect::parseType(mlir::DialectAsmParser& parser) const {
  llvm::StringRef spec = parser.getFullSymbolSpec();
  llvm::SMLoc location = parser.getCurrentLocation();
  llvm::StringRef mnemonic;
  mlir::Type type;
  mlir::OptionalParseResult known = generatedTypeParser(parser, &mnemonic, type);
  if (known.has_value()) return succeeded(*known) ? type : mlir::Type();
  if (mnemonic.starts_with("fixed_rank_shape.") && mnemonic == spec) {
    return OpaqueTypeOf(*this, mnemonic);
  }
  parser.emitError(location) << "unknown shape type: " << spec;
  return {};
}

void TSDialect::printType(mlir::Type type,
                          mlir::DialectAsmPrinter& printer) const {
  if (llvm::succeeded(generatedTypePrinter(type, printer))) return;
  printer << "<unknown type>";
}

}  // namespace bef::converter::ts
