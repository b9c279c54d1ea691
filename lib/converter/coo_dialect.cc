// The `coo` dialect (tensor_ops.td). Its own file: the generated
// constraint helpers of each op file are file-scope functions.
#include "lib/converter/dialects.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "lib/converter/CooOpsDialect.cpp.inc"
#define GET_OP_CLASSES
#include "lib/converter/CooOps.cpp.inc"

namespace bef::converter::coo {

void COODialect::initialize() {
  allowUnknownOperations();
  addOperations<
#define GET_OP_LIST
#include "lib/converter/CooOps.cpp.inc"
      >();
  addInterfaces<HostInlinerInterface>();
}

}  // namespace bef::converter::coo
