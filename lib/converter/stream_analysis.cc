#include "lib/converter/stream_analysis.h"

#include <vector>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "lib/converter/dialects.h"

namespace bef::converter {
namespace {

// Node 0 is the virtual root; node i + 1 is the block's op i.
struct Node {
  mlir::Operation* op = nullptr;
  int64_t cost = 1;
  int64_t cost_from_root = 1;
  llvm::SmallVector<int, 2> children;    // scheduled children, attach order
  llvm::SmallVector<int, 1> side_users;  // non-chain data users, not children
  int stream = -1;
};

struct Stream {
  int64_t cost = 0;
  bool has_return = false;
  int merged_into = -1;  // union-find parent; -1 for a surviving stream
  // The node whose scheduled child started this stream (0: the root): set
  // when a node considers its children's streams, reset when the node joins
  // the stream (its own parent sets it again later).
  int parent_node = 0;
  llvm::SmallVector<int, 4> nodes;
};

bool IsReturn(mlir::Operation* op) {
  return llvm::isa<tfrt::ReturnOp, mlir::func::ReturnOp>(op);
}

int64_t OpCost(mlir::Operation* op, int64_t threshold) {
  if (IsReturn(op) || llvm::isa<tfrt::MergeChainsOp>(op)) return 1;
  if (auto cost_op = llvm::dyn_cast<tfrt_test::TestCostOp>(op))
    return cost_op.get_tfrtCost();
  return threshold > 0 ? threshold : 1;
}

class Analyzer {
 public:
  Analyzer(mlir::Block& block, const StreamAnalysisOptions& options)
      : threshold_(options.cost_threshold),
        merge_(options.merge_inter_dependent_streams) {
    nodes_.reserve(block.getOperations().size() + 1);
    node_of_.reserve(block.getOperations().size());
    nodes_.emplace_back();
    for (mlir::Operation& op : block) {
      node_of_[&op] = static_cast<int>(nodes_.size());
      Node node;
      node.op = &op;
      nodes_.push_back(node);
    }
  }

  void Run() {
    ForwardPass();
    for (int i = static_cast<int>(nodes_.size()) - 1; i >= 0; --i) Assign(i);
  }

  int64_t max_cost() const { return max_cost_; }
  uint32_t StreamOf(int node) const {
    return static_cast<uint32_t>(Find(nodes_[node].stream));
  }
  int64_t CostOf(uint32_t stream) const { return streams_[stream].cost; }
  int ParentNodeOf(uint32_t stream) const { return streams_[stream].parent_node; }
  mlir::Operation* OpOf(int node) const { return nodes_[node].op; }
  size_t num_nodes() const { return nodes_.size(); }
  llvm::DenseMap<mlir::Operation*, int> TakeNodeOf() {
    return std::move(node_of_);
  }

 private:
  int DefiningNode(mlir::Value value) const {
    mlir::Operation* op = value.getDefiningOp();
    if (op == nullptr) return 0;
    auto it = node_of_.find(op);
    return it == node_of_.end() ? 0 : it->second;
  }

  void ForwardPass() {
    for (size_t i = 1; i < nodes_.size(); ++i) {
      Node& node = nodes_[i];
      node.cost = OpCost(node.op, threshold_);
      int parent = 0;
      if (node.op->getNumOperands() > 0) {
        int64_t best = -1;
        for (mlir::Value operand : node.op->getOperands()) {
          int defining = DefiningNode(operand);
          if (nodes_[defining].cost_from_root > best) {
            best = nodes_[defining].cost_from_root;
            parent = defining;
          }
        }
      }
      nodes_[parent].children.push_back(static_cast<int>(i));
      for (mlir::Value operand : node.op->getOperands()) {
        if (llvm::isa<tfrt::ChainType>(operand.getType())) continue;
        int defining = DefiningNode(operand);
        if (defining != parent) {
          nodes_[defining].side_users.push_back(static_cast<int>(i));
        }
      }
      // An op without operands does not add the root's cost; one whose
      // costliest operand is a block argument does (matches the reference's
      // logged max_cost on every golden program).
      node.cost_from_root =
          node.cost +
          (node.op->getNumOperands() > 0 ? nodes_[parent].cost_from_root : 0);
      max_cost_ = std::max(max_cost_, node.cost_from_root);
    }
    if (threshold_ <= 0) {
      root_relative_ = true;
      threshold_ = max_cost_;
    }
  }

  int Find(int stream) const {
    while (streams_[stream].merged_into >= 0)
      stream = streams_[stream].merged_into;
    return stream;
  }

  void Merge(int from, int into) {
    Stream& source = streams_[from];
    Stream& target = streams_[into];
    target.cost += source.cost;
    target.has_return = target.has_return || source.has_return;
    target.nodes.insert(target.nodes.end(), source.nodes.begin(),
                        source.nodes.end());
    source.merged_into = into;
  }

  // Whether a side use connects streams `a` and `b`.
  bool DataDependent(int a, int b) const {
    auto depends = [&](int from, int to) {
      for (int node : streams_[from].nodes) {
        for (int user : nodes_[node].side_users) {
          if (Find(nodes_[user].stream) == to) return true;
        }
      }
      return false;
    };
    return depends(a, b) || depends(b, a);
  }

  void Assign(int index) {
    Node& node = nodes_[index];
    if (node.children.empty()) {
      Stream stream;
      stream.cost = node.cost;
      stream.has_return = node.op != nullptr && IsReturn(node.op);
      stream.nodes.push_back(index);
      node.stream = static_cast<int>(streams_.size());
      streams_.push_back(stream);
      return;
    }

    std::vector<int> child_streams;
    for (int child : node.children) {
      child_streams.push_back(Find(nodes_[child].stream));
      streams_[child_streams.back()].parent_node = index;
    }

    int64_t base = root_relative_ ? node.cost_from_root : 0;
    if (merge_ && child_streams.size() > 1) {
      std::vector<int> candidates = child_streams;
      for (size_t s = 0; s < candidates.size(); ++s) {
        int target = candidates[s];
        if (target < 0) continue;
        for (size_t d = 0; d < candidates.size(); ++d) {
          int other = candidates[d];
          if (d == s || other < 0) continue;
          if (streams_[other].cost >= threshold_) continue;
          if (!DataDependent(target, other)) continue;
          Merge(other, target);
          candidates[d] = -1;
          if (base + streams_[target].cost >= threshold_) break;
        }
      }
      child_streams.clear();
      for (int stream : candidates) {
        if (stream >= 0) child_streams.push_back(stream);
      }
    }

    auto cost = [&](int stream) {
      return stream < 0 ? 0 : streams_[stream].cost;
    };
    auto above = [&](int a, int b) {
      if (root_relative_)
        return node.cost_from_root + cost(a) + cost(b) >= threshold_;
      return cost(a) >= threshold_;
    };

    int largest = -1;
    int return_stream = -1;
    std::vector<int> targets;
    auto consider = [&](int stream) {
      if (largest < 0 || cost(stream) > cost(largest)) largest = stream;
      if (streams_[stream].has_return) return_stream = stream;
    };
    for (int stream : child_streams) {
      if (above(stream, -1)) {
        consider(stream);
        continue;
      }
      if (targets.empty() || above(targets.back(), stream)) {
        targets.push_back(stream);
      } else {
        Merge(stream, targets.back());
      }
      consider(targets.back());
    }

    int joined = return_stream >= 0 ? return_stream : largest;
    streams_[joined].parent_node = 0;
    streams_[joined].cost += node.cost;
    streams_[joined].nodes.push_back(index);
    node.stream = joined;
    if (!root_relative_ && !targets.empty()) {
      int last = Find(targets.back());
      if (last != joined && !above(last, -1)) Merge(last, joined);
    }
  }

  int64_t threshold_;
  bool merge_;
  bool root_relative_ = false;
  int64_t max_cost_ = 0;
  std::vector<Node> nodes_;
  std::vector<Stream> streams_;
  llvm::DenseMap<mlir::Operation*, int> node_of_;
};

}  // namespace

StreamAnalysis::StreamAnalysis(mlir::Block& block,
                               const StreamAnalysisOptions& options) {
  Analyzer analyzer(block, options);
  analyzer.Run();
  streams_by_position_.reserve(analyzer.num_nodes() - 1);
  for (size_t node = 1; node < analyzer.num_nodes(); ++node) {
    streams_by_position_.push_back(analyzer.StreamOf(static_cast<int>(node)));
  }
  root_stream_ = analyzer.StreamOf(0);
  max_cost_ = analyzer.max_cost();
  positions_ = analyzer.TakeNodeOf();
  if (!options.describe) return;

  // The stream tree, as TFRT finalizes it: walking the block in order, a
  // stream is described when its first op is seen; it becomes a child of
  // its parent op (in the parent's stream) once that stream has been
  // described, in the order of the walk.
  auto describe = [&](uint32_t id, int32_t parent) {
    StreamInfo info;
    info.id = id;
    info.cost = analyzer.CostOf(id);
    info.parent_id = parent;
    return info;
  };
  info_[root_stream_] = describe(root_stream_, -1);
  for (size_t node = 1; node < analyzer.num_nodes(); ++node) {
    uint32_t id = analyzer.StreamOf(static_cast<int>(node));
    int parent_node = analyzer.ParentNodeOf(id);
    auto [it, added] = info_.try_emplace(id);
    if (added) {
      it->second = describe(id, static_cast<int32_t>(
                                    analyzer.StreamOf(parent_node)));
      parent_ops_[id] = analyzer.OpOf(parent_node);
    }
    if (id == root_stream_) continue;
    auto parent = info_.find(static_cast<uint32_t>(it->second.parent_id));
    if (parent == info_.end()) continue;
    std::vector<uint32_t>& children =
        child_streams_[{parent->first, parent_ops_[id]}];
    if (!llvm::is_contained(children, id)) children.push_back(id);
  }
}

uint32_t StreamAnalysis::GetStream(mlir::Operation* op) const {
  auto it = positions_.find(op);
  return it == positions_.end() ? 0 : streams_by_position_[it->second - 1];
}

StreamAnalysis::StreamInfo StreamAnalysis::Describe(mlir::Operation* op) const {
  uint32_t id = op == nullptr ? root_stream_ : GetStream(op);
  StreamInfo info = info_.lookup(id);
  auto children = child_streams_.find({id, op});
  if (children != child_streams_.end()) info.child_streams = children->second;
  return info;
}

StreamAnalysisOptions StreamAnalysis::OptionsFor(mlir::Block& block) {
  StreamAnalysisOptions options;
  mlir::Operation* parent = block.getParentOp();
  auto read = [&](mlir::Operation* op) {
    if (op == nullptr) return false;
    bool found = false;
    if (auto threshold =
            op->getAttrOfType<mlir::IntegerAttr>("tfrt.cost_threshold")) {
      options.cost_threshold = threshold.getInt();
      found = true;
    }
    if (auto merge = op->getAttrOfType<mlir::BoolAttr>(
            "tfrt.merge_inter_dependent_streams")) {
      options.merge_inter_dependent_streams = merge.getValue();
    }
    return found;
  };
  auto module = parent ? parent->getParentOfType<mlir::ModuleOp>()
                       : mlir::ModuleOp();
  read(module);
  if (auto function = llvm::dyn_cast_or_null<mlir::func::FuncOp>(parent)) {
    read(function);
  }
  return options;
}

}  // namespace bef::converter
