#include "lib/executor/execution_plan.h"

#include <algorithm>

#include "bef/async/async_value_ref.h"

namespace bef {
namespace {

// A chain-only kernel on the straight line: every operand is an available
// value there, so the chain is ready and there is nothing to do.
void RunChainOnly(const void* const*, const uint8_t*, const uint32_t*, void*) {}
AsyncValue* BoxChain(const void*) { return GetReadyChain().ReleaseRCRef().release(); }

}  // namespace

ExecutionPlan::ExecutionPlan(const FunctionInfo& function) : info(&function) {
  const size_t num_kernels = function.kernels.size();
  schedule.resize(num_kernels);
  direct.resize(num_kernels);
  std::vector<uint16_t> result_types(num_kernels, kAnyOperandType);
  for (size_t k = 0; k < num_kernels; ++k) {
    const KernelInfo& kernel = function.kernels[k];
    schedule[k] = {function.initial_ready_counts[k], kernel.stream};
    if (kernel.chain_only && kernel.direct == nullptr) {
      // Not a direct step of the dataflow path (its frame runs it there);
      // the straight line runs it as nothing and boxes the ready chain.
      direct[k].box = &BoxChain;
      direct[k].result_register = kernel.results()[0];
      result_types[k] = AsyncValueTypeId<Chain>();
      continue;
    }
    if (kernel.direct == nullptr) continue;
    DirectStep& step = direct[k];
    uint16_t operand_types[kMaxDirectArguments];
    result_types[k] = kernel.direct->types(operand_types);
    step.run = kernel.direct->run;
    step.box = kernel.direct->box;
    step.attribute_offsets = kernel.attributes().data();
    step.users = kernel.used_by();
    step.num_users = kernel.used_by_counts()[0];
    step.result_register = kernel.results()[0];
    step.first_operand = static_cast<uint32_t>(operands.size());
    step.num_operands = static_cast<uint16_t>(kernel.num_arguments());
    for (uint32_t i = 0; i < kernel.num_arguments(); ++i) {
      operands.push_back({kernel.arguments()[i], operand_types[i]});
    }
  }

  constexpr uint32_t kNotReturned = UINT32_MAX;
  std::vector<uint32_t> first_result(function.num_registers, kNotReturned);
  first_result_of_register.reserve(function.result_registers.size());
  for (uint32_t i = 0; i < function.result_registers.size(); ++i) {
    uint32_t& first = first_result[function.result_registers[i]];
    if (first == kNotReturned) first = i;
    first_result_of_register.push_back(first);
  }
  for (size_t k = 1; k < num_kernels; ++k) {
    DirectStep& step = direct[k];
    if (step.run == nullptr || first_result[step.result_register] != kNotReturned) continue;
    bool unboxed = true;
    for (uint32_t u = 0; u < step.num_users && unboxed; ++u) {
      const DirectStep& user = direct[step.users[u]];
      unboxed = user.run != nullptr;
      for (uint32_t i = 0; i < user.num_operands && unboxed; ++i) {
        const DirectOperand& operand = operands[user.first_operand + i];
        unboxed = operand.reg != step.result_register || operand.type == kAnyOperandType ||
                  operand.type == result_types[k];
      }
    }
    step.unboxed_result = unboxed;
  }
  PlanStraightLine(result_types);
}

void ExecutionPlan::PlanStraightLine(const std::vector<uint16_t>& result_types) {
  const FunctionInfo& function = *info;
  // The kernel defining each register (0: an argument).
  constexpr uint32_t kUndefined = UINT32_MAX;
  std::vector<uint32_t> producers(function.num_registers, kUndefined);
  for (uint32_t a = 0; a < function.num_arguments; ++a) producers[a] = 0;
  argument_types.assign(function.num_arguments, kAnyOperandType);
  // Streams are scheduling hints (where and when kernels run, never what
  // they compute): a function of direct kernels, which are synchronous,
  // cannot fail and have no side effects, and of chain-only kernels runs
  // straight line whatever streams the converter's analysis gave them.
  // An argument read without a payload type (a chain) must still be an
  // available value, not an error: it is checked when a run starts.
  std::vector<bool> untyped_argument_read(function.num_arguments, false);
  for (size_t k = 1; k < direct.size(); ++k) {
    const DirectStep& step = direct[k];
    const KernelInfo& kernel = function.kernels[k];
    if (step.run == nullptr) {
      // A chain-only kernel only waits for its operands.
      if (!kernel.chain_only) return;
      for (uint32_t reg : kernel.arguments()) {
        uint32_t producer = producers[reg];
        if (producer == kUndefined) return;  // not defined yet
        if (producer == 0) untyped_argument_read[reg] = true;
      }
      producers[step.result_register] = static_cast<uint32_t>(k);
      continue;
    }
    for (uint32_t i = 0; i < step.num_operands; ++i) {
      const DirectOperand& operand = operands[step.first_operand + i];
      uint32_t producer = producers[operand.reg];
      if (producer == kUndefined) return;  // not defined yet
      if (operand.type == kAnyOperandType) {
        if (producer == 0) untyped_argument_read[operand.reg] = true;
        continue;
      }
      if (producer == 0) {
        uint16_t& type = argument_types[operand.reg];
        if (type != kAnyOperandType && type != operand.type) return;  // read as two types
        type = operand.type;
      } else if (result_types[producer] != operand.type) {
        return;  // the frame reports it
      }
    }
    producers[step.result_register] = static_cast<uint32_t>(k);
  }
  for (uint32_t reg : function.result_registers) {
    if (producers[reg] == kUndefined) return;
  }
  straight_line = true;

  // Levels, then a counting sort of the kernels by level.
  std::vector<uint32_t> levels(direct.size(), 0);
  uint32_t deepest = 0;
  for (size_t k = 1; k < direct.size(); ++k) {
    const DirectStep& step = direct[k];
    uint32_t level = 1;
    if (step.run == nullptr) {  // chain-only
      for (uint32_t reg : function.kernels[k].arguments()) {
        level = std::max(level, levels[producers[reg]] + 1);
      }
    }
    for (uint32_t i = 0; i < step.num_operands; ++i) {
      level = std::max(level, levels[producers[operands[step.first_operand + i].reg]] + 1);
    }
    levels[k] = level;
    deepest = std::max(deepest, level);
  }
  level_begin.assign(deepest + 1, 0);  // kernels of level l start at [l - 1]
  for (size_t k = 1; k < direct.size(); ++k) ++level_begin[levels[k]];
  uint32_t position = 0;
  for (uint32_t& begin : level_begin) {
    uint32_t count = begin;
    begin = position;
    position += count;
    widest_level = std::max(widest_level, count);
  }
  // level_begin[0] counted the (no) level-0 kernels: drop it.
  level_begin.erase(level_begin.begin());
  level_begin.push_back(position);
  std::vector<uint32_t> order(position);
  std::vector<uint32_t> positions(direct.size(), 0);
  std::vector<uint32_t> next(level_begin.begin(), level_begin.end() - 1);
  for (size_t k = 1; k < direct.size(); ++k) {
    uint32_t at = next[levels[k] - 1]++;
    order[at] = static_cast<uint32_t>(k);
    positions[k] = at;
  }
  line.reserve(order.size());
  line_operands.reserve(operands.size());
  for (uint32_t kernel : order) {
    const DirectStep& step = direct[kernel];
    line.push_back({step.run != nullptr ? step.run : &RunChainOnly, step.attribute_offsets,
                    step.result_register, static_cast<uint32_t>(line_operands.size()),
                    step.num_operands});
    for (uint32_t i = 0; i < step.num_operands; ++i) {
      line_operands.push_back(operands[step.first_operand + i].reg);
    }
  }
  for (uint32_t a = 0; a < function.num_arguments; ++a) {
    if (argument_types[a] != kAnyOperandType) {
      typed_arguments.push_back(a);
    } else if (untyped_argument_read[a]) {
      available_arguments.push_back(a);
    }
  }
  results_boxed_directly = true;
  for (uint32_t i = 0; i < function.result_registers.size(); ++i) {
    uint32_t reg = function.result_registers[i];
    result_producers.push_back(producers[reg]);
    result_positions.push_back(producers[reg] == 0 ? 0 : positions[producers[reg]]);
    result_boxers.push_back(direct[producers[reg]].box);
    results_boxed_directly &= producers[reg] != 0 && first_result_of_register[i] == i;
  }
  loop_carried = function.result_registers.size() == function.num_arguments;
  for (uint32_t i = 0; i < function.num_arguments && loop_carried; ++i) {
    uint32_t reg = function.result_registers[i];
    uint16_t type = producers[reg] == 0 ? argument_types[reg] : result_types[producers[reg]];
    loop_carried = argument_types[i] == kAnyOperandType || argument_types[i] == type;
  }
}

}  // namespace bef
