// The host-program dialects as MLIR dialects: `tfrt` (basic kernels),
// `tfrt_test` (test kernels), `tfrt_test_sync` (declared, no ops), the part
// of `corert` host programs use (the `#corert.shape<...>` attribute and its
// opaque types such as `!corert.string`), and the host tensor dialects
// implemented so far (`tfrt_tensor`, `tfrt_dht`, `tfrt_dht_sync`, `ht`, `ts`, `coo`).
//
// The op definitions live in basic_ops.td / test_ops.td (ODS); this header
// declares the generated classes. Both `tfrt` and `tfrt_test` allow unknown
// ops and types, so kernels without an op definition are written in generic
// form and any `!tfrt.xxx` that is not chain/string/tensor_type/device is an
// opaque type.
#ifndef BEF_CONVERTER_DIALECTS_H_
#define BEF_CONVERTER_DIALECTS_H_

#include <cstdint>

#include "llvm/ADT/ArrayRef.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"

#include "lib/converter/BasicOpsDialect.h.inc"
#define GET_TYPEDEF_CLASSES
#include "lib/converter/BasicOpsTypes.h.inc"
#define GET_OP_CLASSES
#include "lib/converter/BasicOps.h.inc"

#include "lib/converter/TestOpsDialect.h.inc"
#define GET_OP_CLASSES
#include "lib/converter/TestOps.h.inc"

#include "lib/converter/BufferOpsDialect.h.inc"
#define GET_TYPEDEF_CLASSES
#include "lib/converter/BufferOpsTypes.h.inc"

#include "lib/converter/ShapeOpsDialect.h.inc"
#define GET_TYPEDEF_CLASSES
#include "lib/converter/ShapeOpsTypes.h.inc"

#include "lib/converter/TensorOpsDialect.h.inc"
#define GET_TYPEDEF_CLASSES
#include "lib/converter/TensorOpsTypes.h.inc"
#define GET_OP_CLASSES
#include "lib/converter/TensorOps.h.inc"
#define GET_OP_CLASSES
#include "lib/converter/SyncTensorOps.h.inc"

#include "lib/converter/CooOpsDialect.h.inc"
#define GET_OP_CLASSES
#include "lib/converter/CooOps.h.inc"

#define GET_OP_CLASSES
#include "lib/converter/ShapeOps.h.inc"

namespace bef::converter {

// `!namespace.mnemonic` as an opaque type of `dialect` (types the dialects
// accept without defining them).
mlir::Type OpaqueTypeOf(const mlir::Dialect& dialect, llvm::StringRef mnemonic);

// Every host dialect carries this interface, so MLIR's inliner (bef-opt
// -inline) may inline a `tfrt.call` whose callee uses ops of any of them,
// and may inline into their regions. `tfrt.return` ends an inlined body:
// its operands replace the call's results.
struct HostInlinerInterface : public mlir::DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(mlir::Operation*, mlir::Operation*, bool) const final {
    return true;
  }
  bool isLegalToInline(mlir::Region*, mlir::Region*, bool,
                       mlir::IRMapping&) const final {
    return true;
  }
  bool isLegalToInline(mlir::Operation*, mlir::Region*, bool,
                       mlir::IRMapping&) const final {
    return true;
  }
  void handleTerminator(mlir::Operation* op,
                        mlir::ValueRange values_to_replace) const final;
};

// `tfrt_test_sync`: TFRT declares it for sync test kernels; it has no ops.
class TestSyncDialect : public mlir::Dialect {
 public:
  explicit TestSyncDialect(mlir::MLIRContext* context);
  static constexpr llvm::StringLiteral getDialectNamespace() {
    return llvm::StringLiteral("tfrt_test_sync");
  }
};

namespace corert {

// `#corert.shape<2x?x3>` (ranked; `?` = unknown dimension, stored as -1),
// `#corert.shape<>` (rank 0) and `#corert.shape<*>` (unranked).
struct ShapeAttrStorage;
class ShapeAttr
    : public mlir::Attribute::AttrBase<ShapeAttr, mlir::Attribute,
                                       ShapeAttrStorage> {
 public:
  using Base::Base;
  static constexpr llvm::StringLiteral name = "corert.shape";

  static ShapeAttr get(mlir::MLIRContext* context,
                       llvm::ArrayRef<int64_t> dimensions);
  static ShapeAttr getUnranked(mlir::MLIRContext* context);

  bool hasRank() const;
  llvm::ArrayRef<int64_t> getShape() const;
};

// `%t = corert.const_dense_tensor dense<1> : tensor<i32>`: a tensor handle
// from a dense elements attribute. Parsed, printed and verified (the result
// is `!corert.tensorhandle`) so programs that use it convert and pass
// through bef-opt; the host runtime has no kernel for it.
class ConstDenseTensorOp
    : public mlir::Op<ConstDenseTensorOp, mlir::OpTrait::ZeroRegions,
                      mlir::OpTrait::OneResult,
                      mlir::OpTrait::OneTypedResult<mlir::Type>::Impl,
                      mlir::OpTrait::ZeroSuccessors,
                      mlir::OpTrait::ZeroOperands> {
 public:
  using Op::Op;
  static constexpr llvm::StringLiteral getOperationName() {
    return llvm::StringLiteral("corert.const_dense_tensor");
  }
  static llvm::ArrayRef<llvm::StringRef> getAttributeNames() {
    static llvm::StringRef names[] = {"value"};
    return names;
  }
  mlir::DenseElementsAttr getValue() {
    return (*this)->getAttrOfType<mlir::DenseElementsAttr>("value");
  }
  static mlir::ParseResult parse(mlir::OpAsmParser& parser,
                                 mlir::OperationState& result);
  void print(mlir::OpAsmPrinter& printer);
  mlir::LogicalResult verify();
};

// `!corert.tensorhandle` (an opaque type of the dialect).
mlir::Type GetTensorHandleType(mlir::MLIRContext* context);

// The core runtime dialect, reduced to what host programs need.
class CoreRuntimeDialect : public mlir::Dialect {
 public:
  explicit CoreRuntimeDialect(mlir::MLIRContext* context);
  static constexpr llvm::StringLiteral getDialectNamespace() {
    return llvm::StringLiteral("corert");
  }
  mlir::Attribute parseAttribute(mlir::DialectAsmParser& parser,
                                 mlir::Type type) const override;
  void printAttribute(mlir::Attribute attribute,
                      mlir::DialectAsmPrinter& printer) const override;
  mlir::Type parseType(mlir::DialectAsmParser& parser) const override;
  void printType(mlir::Type type,
                 mlir::DialectAsmPrinter& printer) const override;
};

}  // namespace corert

// Adds every host dialect plus `func` (function bodies) to `registry`.
void RegisterHostDialects(mlir::DialectRegistry& registry);

}  // namespace bef::converter

MLIR_DECLARE_EXPLICIT_TYPE_ID(bef::converter::TestSyncDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(bef::converter::corert::CoreRuntimeDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(bef::converter::corert::ShapeAttr)
MLIR_DECLARE_EXPLICIT_TYPE_ID(bef::converter::corert::ConstDenseTensorOp)

#endif  // BEF_CONVERTER_DIALECTS_H_
