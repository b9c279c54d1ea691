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

#endif  // BEF_CONVERTER_DIALECTS_H_
