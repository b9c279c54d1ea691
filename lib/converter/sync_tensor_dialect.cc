// The `tfrt_dht_sync` dialect (tensor_ops.td): op definitions TFRT has no
// kernels for (host-tensors.md §6). Its own file: the generated constraint
// helpers of each op file are file-scope functions.
#include "lib/converter/dialects.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#define GET_OP_CLASSES
#include "lib/converter/SyncTensorOps.cpp.inc"

namespace bef::converter::tfrt_dht_sync {

void TFRTDHTSyncDialect::initialize() {
  allowUnknownOperations();
  addOperations<
#define GET_OP_LIST
#include "lib/converter/SyncTensorOps.cpp.inc"
      >();
  addInterfaces<HostInlinerInterface>();
}

}  // namespace bef::converter::tfrt_dht_sync
