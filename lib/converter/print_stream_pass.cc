#include "lib/converter/print_stream_pass.h"

#include <memory>

#include "lib/converter/stream_analysis.h"
#include "llvm/ADT/STLExtras.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

namespace bef::converter {
namespace {

class PrintStreamPass
    : public mlir::PassWrapper<PrintStreamPass,
                               mlir::OperationPass<mlir::func::FuncOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrintStreamPass)

  llvm::StringRef getArgument() const final { return "tfrt-print-stream"; }
  llvm::StringRef getDescription() const final {
    return "Print the stream analysis of each function body as remarks";
  }

  void runOnOperation() final {
    mlir::func::FuncOp function = getOperation();
    if (function.getBody().empty()) return;  // a declaration
    mlir::Block& body = function.getBody().front();
    StreamAnalysisOptions options = StreamAnalysis::OptionsFor(body);
    options.describe = true;
    StreamAnalysis analysis(body, options);
    Emit(analysis, nullptr, function.getLoc());
    for (mlir::Operation& op : body) Emit(analysis, &op, op.getLoc());
  }

 private:
  static void Emit(const StreamAnalysis& analysis, mlir::Operation* op,
                   mlir::Location location) {
    StreamAnalysis::StreamInfo stream = analysis.Describe(op);
    mlir::InFlightDiagnostic remark = mlir::emitRemark(location, "stream id: ");
    remark << stream.id << ", stream cost: " << stream.cost
           << ", parent stream: " << stream.parent_id;
    if (stream.child_streams.empty()) return;
    remark << ", child streams: [";
    llvm::interleave(
        stream.child_streams, [&](uint32_t id) { remark << id; },
        [&] { remark << ", "; });
    remark << "]";
  }
};

}  // namespace

void RegisterPrintStreamPass() { mlir::PassRegistration<PrintStreamPass>(); }

}  // namespace bef::converter
