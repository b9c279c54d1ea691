// StreamAnalysis: TFRT's assignment of stream ids to the kernels of one
// function body or region block (../shared/spec/executor-semantics.md §5.3).
//
// Stream ids only decide where and when the executor runs kernels (kernels of
// the root stream run inline, other streams are enqueued as groups), never
// results; but under the single-threaded queue they fix the order of
// unchained side effects, so mlir-to-bef must reproduce TFRT's ids exactly.
//
// The analysis builds a tree: each op's parent is the op defining its
// costliest operand (the virtual root for ops without operands and for block
// arguments). Walking the block backwards, a leaf starts a new stream and an
// inner op joins the stream of its return-containing or costliest child,
// merging cheap sibling streams (cost below the threshold) together.
#ifndef BEF_CONVERTER_STREAM_ANALYSIS_H_
#define BEF_CONVERTER_STREAM_ANALYSIS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "llvm/ADT/DenseMap.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"

namespace bef::converter {

struct StreamAnalysisOptions {
  // `tfrt.cost_threshold`; <= 0 means unset (root-relative mode).
  int64_t cost_threshold = 0;
  // `tfrt.merge_inter_dependent_streams`.
  bool merge_inter_dependent_streams = false;
  // Keep what Describe needs (bef-opt -tfrt-print-stream); conversion only
  // asks for stream ids.
  bool describe = false;
};

class StreamAnalysis {
 public:
  StreamAnalysis(mlir::Block& block, const StreamAnalysisOptions& options);

  // Stream id of an op of the block (including its terminator).
  uint32_t GetStream(mlir::Operation* op) const;
  // Position of `op` in the block (0 is the first op), or -1 when `op` is
  // not one of the block's.
  int PositionOf(mlir::Operation* op) const {
    auto it = positions_.find(op);
    return it == positions_.end() ? -1 : it->second - 1;
  }
  // Stream id of the block's op at `position`.
  uint32_t StreamAt(size_t position) const {
    return streams_by_position_[position];
  }

  // What bef-opt -tfrt-print-stream reports of an op's stream.
  struct StreamInfo {
    uint32_t id = 0;
    int64_t cost = 0;       // the costs of the stream's ops (merged ones too)
    int32_t parent_id = -1; // the stream of the op that starts it; root: -1
    // Streams the op starts (whose first op is a scheduled child of it), in
    // the order the analysis describes them (block order of their first op).
    std::vector<uint32_t> child_streams;
  };
  // `op` of the block, or null for the virtual root (the function itself).
  // REQUIRES: the analysis was made with options.describe.
  StreamInfo Describe(mlir::Operation* op) const;
  // Stream of the virtual root: the pseudo kernel's stream id.
  uint32_t root_stream() const { return root_stream_; }
  // The largest cost from the root (TFRT logs it per function).
  int64_t max_cost() const { return max_cost_; }

  // Options for the body of `block`'s parent: `func.func` attributes, then
  // the module's; regions of other ops consult only the module.
  static StreamAnalysisOptions OptionsFor(mlir::Block& block);

 private:
  std::vector<uint32_t> streams_by_position_;
  llvm::DenseMap<mlir::Operation*, int> positions_;  // op -> position + 1
  llvm::DenseMap<uint32_t, StreamInfo> info_;                // by stream id
  llvm::DenseMap<uint32_t, mlir::Operation*> parent_ops_;    // by stream id
  // (stream id, op or null for the root) -> the streams the op starts.
  llvm::DenseMap<std::pair<uint32_t, mlir::Operation*>, std::vector<uint32_t>>
      child_streams_;
  uint32_t root_stream_ = 0;
  int64_t max_cost_ = 1;
};

}  // namespace bef::converter

#endif  // BEF_CONVERTER_STREAM_ANALYSIS_H_
