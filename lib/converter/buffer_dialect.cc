// The `ht` dialect (tensor_ops.td): the !ht.host_buffer type. In its own
// file because the generated type parser/printer helpers are file-scope.
#include "lib/converter/dialects.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "lib/converter/BufferOpsDialect.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "lib/converter/BufferOpsTypes.cpp.inc"

namespace bef::converter::ht {

void HTDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "lib/converter/BufferOpsTypes.cpp.inc"
      >();
  addInterfaces<HostInlinerInterface>();
}

}  // namespace bef::converter::ht
