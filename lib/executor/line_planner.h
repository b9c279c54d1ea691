// LinePlanner: how a kernel becomes a step of a line (private to
// execution_plan.cc, which plans the straight line and the segments with
// it; execution_plan.h says what the steps are).
#ifndef BEF_LIB_EXECUTOR_LINE_PLANNER_H_
#define BEF_LIB_EXECUTOR_LINE_PLANNER_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "bef/async/async_value_ref.h"
#include "bef/host/kernel_registry.h"
#include "bef/loader/bef_file.h"
#include "bef/loader/function_info.h"
#include "lib/executor/execution_plan.h"
#include "lib/executor/line_cursor.h"

namespace bef::line_planner_internal {

// A chain-only kernel on the straight line: every operand is an available
// value there, so the chain is ready and there is nothing to do.
inline void RunChainOnly(const void* const*, const uint8_t*, const uint32_t*, void*) {}
inline AsyncValue* BoxChain(const void*) {
  return GetReadyChain().ReleaseRCRef().release();
}

// Plans a function's kernels as line steps over payload registers: the
// function's own (the top level) and, for calls run in place, nested lines
// whose registers are windows of the same register file. It tracks per
// register which step defines it, the payload type it holds and how to box
// it, and refuses (nullopt / false) whatever the straight line cannot run.
class LinePlanner {
 public:
  using Box = AsyncValue* (*)(const void*);
  static constexpr uint32_t kUndefined = UINT32_MAX;
  static constexpr uint32_t kArgument = 0;               // the top level's arguments
  static constexpr uint32_t kNestedStep = UINT32_MAX - 1;  // a step of a nested line
  // Segment mode: a value from outside the segments (an argument, a frame
  // kernel's result), of a type known only when it arrives.
  static constexpr uint32_t kExternal = UINT32_MAX - 2;

  struct Register {
    uint32_t producer = kUndefined;  // kernel index at the top level
    uint16_t type = kAnyOperandType;
    Box box = nullptr;
  };
  // One planned step: its LineStep (operands into `operands`), the
  // registers it reads (for its dataflow level) and how many kernels it runs.
  struct Step {
    ExecutionPlan::LineStep line;
    std::vector<uint32_t> reads;
    int64_t kernels = 1;
  };

  LinePlanner(ExecutionPlan& plan, const BefFile* file)
      : plan_(plan), file_(file), line_(&plan.straight) {
    const FunctionInfo& function = *plan.info;
    registers_.resize(function.num_registers);
    for (uint32_t a = 0; a < function.num_arguments; ++a) registers_[a].producer = kArgument;
    untyped_argument_read_.assign(function.num_arguments, false);
  }
  // Segment mode: `kernel_segment` (per kernel, its segment or kNoSegment)
  // says which registers are a segment's own; reads of others are its
  // inputs (reads()).
  LinePlanner(ExecutionPlan& plan, const BefFile* file,
              const std::vector<uint32_t>* kernel_segment)
      : plan_(plan), file_(file), line_(&plan.segmented), kernel_segment_(kernel_segment) {
    const FunctionInfo& function = *plan.info;
    registers_.resize(function.num_registers);
    for (uint32_t a = 0; a < function.num_arguments; ++a) registers_[a].producer = kExternal;
  }

  // Segment mode: plans the next kernel for `segment`.
  void BeginKernel(uint32_t segment) {
    segment_ = segment;
    reads_.clear();
  }
  // Segment mode: the registers from outside the segment the last kernel
  // planned reads, with the payload type each read takes.
  const std::vector<std::pair<uint32_t, uint16_t>>& reads() const { return reads_; }
  // Segment mode: a kernel's results as values from outside the segments.
  void DefineExternal(const KernelInfo& kernel) {
    for (uint32_t reg : kernel.results()) registers_[reg] = {kExternal, kAnyOperandType, nullptr};
  }

  std::vector<Register>& registers() { return registers_; }
  // Whether payloads of `type` are read by reference (their registers hold
  // the payload's address; DirectKernel::reference_operands): a property
  // of the payload type, the same for every kernel reading it.
  bool read_by_reference(uint16_t type) const {
    return std::find(reference_types_.begin(), reference_types_.end(), type) !=
           reference_types_.end();
  }
  // Whether the plan has try steps (kernels that can fail, or with several
  // results).
  bool has_try_steps() const { return has_try_steps_; }
  bool untyped_argument_read(uint32_t a) const { return untyped_argument_read_[a]; }
  bool known_kernel_count() const { return known_kernel_count_; }

  // Plans `kernel` of a function whose register r is line register map[r],
  // its results defined by `producer`; its operands go to `operands`.
  std::optional<Step> PlanKernel(const KernelInfo& kernel, std::span<const uint32_t> map,
                                 uint32_t producer, int depth,
                                 std::vector<uint32_t>& operands) {
    Step step;
    step.line.first_operand = static_cast<uint32_t>(operands.size());
    step.line.attribute_offsets = kernel.attributes().data();
    if (kernel.direct != nullptr && !kernel.chain_only) {
      const DirectKernel& direct = *kernel.direct;
      // (The verifier holds a kernel to its signature; a direct entry point
      // reads at most kMaxDirectArguments operands.)
      if (kernel.num_arguments() > kMaxDirectArguments) return std::nullopt;
      uint16_t operand_types[kMaxDirectArguments];
      uint16_t result_type = direct.types(operand_types);
      for (uint32_t i = 0; i < kernel.num_arguments(); ++i) {
        uint32_t reg = map[kernel.arguments()[i]];
        if (!Read(reg, operand_types[i])) return std::nullopt;
        if ((direct.reference_operands >> i) & 1) {
          // Only values from outside hold payloads read by reference (no
          // direct kernel writes one), and those are checked for their
          // type before a run.
          if (!read_by_reference(operand_types[i])) reference_types_.push_back(operand_types[i]);
        }
        step.reads.push_back(reg);
        operands.push_back(reg);
      }
      step.line.num_operands = static_cast<uint8_t>(kernel.num_arguments());
      step.line.result_register = map[kernel.results()[0]];
      if (direct.call != nullptr && (kernel_segment_ == nullptr || depth > 0)) {
        // A kernel that may have effects of its own runs where the dataflow
        // path runs it, in its order: in a segment, never on a straight line
        // (whose order is by level, and whose run is abandoned and run again
        // on the dataflow path when a kernel fails).
        return std::nullopt;
      }
      if (direct.run != nullptr) {
        step.line.run = direct.run;
        registers_[step.line.result_register] = {producer, result_type, direct.box};
        return step;
      }
      // Fallible, or several results: a try step (not in nested lines,
      // whose runner has no way to stop at a failure).
      if (depth > 0) return std::nullopt;
      has_try_steps_ = true;
      uint16_t result_types[kMaxDirectResults];
      direct.result_types(result_types);
      ExecutionPlan::TryStep try_step;
      try_step.try_run = direct.try_run;
      try_step.call = direct.call;
      try_step.attribute_offsets = kernel.attributes().data();
      try_step.result_register = step.line.result_register;
      try_step.num_results = direct.num_results;
      try_step.location = kernel.location();
      for (uint32_t i = 0; i < direct.num_results; ++i) {
        try_step.result_types[i] = result_types[i];
        try_step.results[i] = map[kernel.results()[i]];
        registers_[try_step.results[i]] = {producer, result_types[i], direct.boxes[i]};
      }
      step.line.kind = direct.call == nullptr ? ExecutionPlan::StepKind::kTry
                       : direct.may_enqueue   ? ExecutionPlan::StepKind::kAsyncCall
                                              : ExecutionPlan::StepKind::kCall;
      bool consecutive = true;
      for (uint32_t i = 1; i < direct.num_results; ++i) {
        consecutive &= try_step.results[i] == try_step.results[0] + i;
      }
      if (direct.run_step != nullptr && !direct.may_enqueue && consecutive) {
        // The kernel's own step entry point is the step: its results are
        // consecutive registers (result i at result_register + i).
        step.line.run = direct.run_step;
        step.line.own_entry = true;
      } else {
        step.line.run = &RunTryStep;
        // The TryStep's address once the plan's vectors are final (Link).
        step.line.attribute_offsets = nullptr;
      }
      step.line.detail = static_cast<uint32_t>(line_->try_steps.size());
      line_->try_steps.push_back(try_step);
      return step;
    }
    if (kernel.chain_only) {
      // Only waits for its operands, which are available on the line.
      for (uint32_t reg : kernel.arguments()) {
        if (!Read(map[reg], kAnyOperandType)) return std::nullopt;
        step.reads.push_back(map[reg]);
      }
      step.line.run = &RunChainOnly;
      step.line.kind = ExecutionPlan::StepKind::kChainOnly;
      step.line.result_register = map[kernel.results()[0]];
      registers_[step.line.result_register] = {producer, AsyncValueTypeId<Chain>(), &BoxChain};
      return step;
    }
    if (kernel.function_call != FunctionCallKind::kNone && file_ != nullptr &&
        depth < kMaxCallNesting) {
      return PlanCall(kernel, map, producer, depth, operands, std::move(step));
    }
    return std::nullopt;
  }

 private:
  // Whether the straight line can read `reg` as `type` (kAnyOperandType:
  // not as a payload) here; a top-level argument takes the type it is first
  // read as (a run checks the argument has it).
  bool Read(uint32_t reg, uint16_t type) {
    Register& r = registers_[reg];
    if (r.producer == kUndefined) return false;  // not defined yet
    if (kernel_segment_ != nullptr) {
      // A payload another segment's kernel writes has its type already.
      if (r.producer != kExternal && type != kAnyOperandType && r.type != type) return false;
      const bool own = r.producer == kNestedStep ||
                       (r.producer != kExternal && (*kernel_segment_)[r.producer] == segment_);
      if (!own) reads_.push_back({reg, type});
      return true;
    }
    if (r.producer == kArgument && reg < untyped_argument_read_.size()) {
      if (type == kAnyOperandType) {
        untyped_argument_read_[reg] = true;
        return true;
      }
      if (r.type != kAnyOperandType && r.type != type) return false;  // read as two types
      r.type = type;
      return true;
    }
    return type == kAnyOperandType || r.type == type;
  }

  // A function-call kernel whose callees are planned as nested lines.
  std::optional<Step> PlanCall(const KernelInfo& kernel, std::span<const uint32_t> map,
                               uint32_t producer, int depth, std::vector<uint32_t>& operands,
                               Step step) {
    const bool conditional = kernel.function_call == FunctionCallKind::kIf;
    std::span<const uint32_t> arguments = kernel.arguments();
    if (conditional) {
      uint32_t condition = map[arguments[0]];
      if (!Read(condition, AsyncValueTypeId<bool>())) return std::nullopt;
      step.reads.push_back(condition);
      operands.push_back(condition);
      step.line.num_operands = 1;
      arguments = arguments.subspan(1);
    }
    std::vector<uint32_t> argument_registers;
    for (uint32_t reg : arguments) {
      argument_registers.push_back(map[reg]);
      step.reads.push_back(map[reg]);
    }
    ExecutionPlan::NestedCall call;
    const uint32_t num_results = kernel.num_results();
    call.num_results = num_results;
    std::vector<uint32_t> branch_results[2];
    int64_t most_kernels = 0;
    const size_t num_callees = kernel.functions().size();
    for (size_t b = 0; b < num_callees; ++b) {
      absl::StatusOr<const FunctionInfo*> callee = file_->GetFunctionInfo(kernel.functions()[b]);
      if (!callee.ok() || (*callee)->kind != FunctionKind::kBefFunction ||
          (*callee)->num_arguments != argument_registers.size() ||
          (*callee)->result_registers.size() != num_results) {
        return std::nullopt;
      }
      int64_t kernels = 0;
      std::optional<std::vector<uint32_t>> results =
          PlanNestedLine(**callee, argument_registers, depth + 1, &kernels, &call.begin[b],
                         &call.end[b]);
      if (!results) return std::nullopt;
      branch_results[b] = std::move(*results);
      most_kernels = std::max(most_kernels, kernels);
    }
    if (num_callees == 1) {
      call.begin[1] = call.begin[0];
      call.end[1] = call.end[0];
      branch_results[1] = branch_results[0];
    }
    // The results: of one payload type whichever callee ran.
    call.sources[0] = static_cast<uint32_t>(line_->nested_results.size());
    for (uint32_t reg : branch_results[0]) line_->nested_results.push_back(reg);
    call.sources[1] = static_cast<uint32_t>(line_->nested_results.size());
    for (uint32_t reg : branch_results[1]) line_->nested_results.push_back(reg);
    call.destinations = static_cast<uint32_t>(line_->nested_results.size());
    std::vector<Register> defined(num_results);
    for (uint32_t i = 0; i < num_results; ++i) {
      const Register& first = registers_[branch_results[0][i]];
      const Register& second = registers_[branch_results[1][i]];
      if (first.type != second.type) return std::nullopt;
      defined[i] = {producer, first.type, first.box != nullptr ? first.box : second.box};
      line_->nested_results.push_back(map[kernel.results()[i]]);
    }
    for (uint32_t i = 0; i < num_results; ++i) {
      registers_[map[kernel.results()[i]]] = defined[i];
    }
    // The step's base register: its first result's (any register when it
    // has none; it only anchors the register file).
    call.result_register = num_results > 0 ? map[kernel.results()[0]] : 0;
    step.line.result_register = call.result_register;
    step.line.run = conditional ? &RunNestedIf : &RunNestedCall;
    step.line.kind =
        conditional ? ExecutionPlan::StepKind::kNestedIf : ExecutionPlan::StepKind::kNestedCall;
    // The NestedCall's index until the plan's vectors are final (Link).
    step.line.attribute_offsets = nullptr;
    step.line.detail = static_cast<uint32_t>(line_->nested_calls.size());
    line_->nested_calls.push_back(call);
    step.kernels = 1 + most_kernels;
    if (conditional) known_kernel_count_ = false;
    return step;
  }

  // Plans `callee` as a nested line whose arguments are the line registers
  // `arguments` and whose other registers are a new window; appends its
  // steps to line_->nested_steps at [*begin, *end) and returns the line
  // registers of its results.
  std::optional<std::vector<uint32_t>> PlanNestedLine(const FunctionInfo& callee,
                                                      std::span<const uint32_t> arguments,
                                                      int depth, int64_t* kernels,
                                                      uint32_t* begin, uint32_t* end) {
    const uint32_t window = static_cast<uint32_t>(registers_.size());
    registers_.resize(window + callee.num_registers);
    std::vector<uint32_t> map(callee.num_registers);
    for (uint32_t r = 0; r < callee.num_registers; ++r) {
      map[r] = r < callee.num_arguments ? arguments[r] : window + r;
    }
    std::vector<ExecutionPlan::LineStep> steps;
    std::vector<uint32_t> operands;
    for (size_t k = 1; k < callee.kernels.size(); ++k) {
      std::optional<Step> step = PlanKernel(callee.kernels[k], map, kNestedStep, depth, operands);
      if (!step) return std::nullopt;
      *kernels += step->kernels;
      if (*kernels > kMaxNestedKernels) return std::nullopt;
      steps.push_back(step->line);
    }
    std::vector<uint32_t> results;
    for (uint32_t reg : callee.result_registers) {
      if (registers_[map[reg]].producer == kUndefined) return std::nullopt;
      results.push_back(map[reg]);
    }
    // Appended whole, after the nested lines of its own calls.
    const uint32_t operand_base = static_cast<uint32_t>(line_->nested_operands.size());
    line_->nested_operands.insert(line_->nested_operands.end(), operands.begin(), operands.end());
    *begin = static_cast<uint32_t>(line_->nested_steps.size());
    for (ExecutionPlan::LineStep& step : steps) {
      step.first_operand += operand_base;
      line_->nested_steps.push_back(step);
    }
    *end = static_cast<uint32_t>(line_->nested_steps.size());
    return results;
  }

  ExecutionPlan& plan_;
  const BefFile* file_;
  // Where try steps and nested lines go: the straight line, or the
  // segments' line (planned later, while straight-line runs may read the
  // former). Its steps and operands are the caller's to fill.
  ExecutionPlan::Line* line_;
  std::vector<Register> registers_;
  std::vector<uint16_t> reference_types_;
  bool has_try_steps_ = false;
  std::vector<bool> untyped_argument_read_;
  bool known_kernel_count_ = true;
  // Segment mode only.
  const std::vector<uint32_t>* kernel_segment_ = nullptr;
  uint32_t segment_ = ExecutionPlan::kNoSegment;
  std::vector<std::pair<uint32_t, uint16_t>> reads_;
};

}  // namespace bef::line_planner_internal

#endif  // BEF_LIB_EXECUTOR_LINE_PLANNER_H_
