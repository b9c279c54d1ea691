// The host tensor dialects (tensor_ops.td). In their own file because the
// generated type parser/printer helpers of each .td are file-scope functions.
#include "lib/converter/dialects.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"

#include "lib/converter/TensorOpsDialect.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "lib/converter/TensorOpsTypes.cpp.inc"
#define GET_OP_CLASSES
#include "lib/converter/TensorOps.cpp.inc"

namespace bef::converter {
namespace tfrt_tensor {

void TFRTTensorDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "lib/converter/TensorOpsTypes.cpp.inc"
      >();
  addInterfaces<HostInlinerInterface>();
}

}  // namespace tfrt_tensor

namespace tfrt_dht {

void TFRTDHTDialect::initialize() {
  allowUnknownOperations();
  addOperations<
#define GET_OP_LIST
#include "lib/converter/TensorOps.cpp.inc"
      >();
  addInterfaces<HostInlinerInterface>();
}

}  // namespace tfrt_dht

}  // namespace bef::converter
