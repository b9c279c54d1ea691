#include "lib/executor/execution_plan.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "bef/async/async_value_ref.h"
#include "bef/support/debug_check.h"
#include "lib/executor/line_cursor.h"
#include "lib/executor/line_planner.h"

namespace bef {

using line_planner_internal::LinePlanner;

namespace {

// The stream kernel `k` runs on in threaded_schedule: the file's, but for
// a kernel with no operands (a constant, a new tensor or chain: ready as
// the invocation starts) whose every user is on the entry's stream, the
// entry's. Its value is wanted on the thread that starts the invocation;
// handed to a queue thread it can only make that thread wait for it, and
// the entry's stream then goes on wherever it arrived. (TFRT's stream
// analysis gives such roots streams of their own: an ONNX MLP's weights
// and output tensors, three tasks of kernels that take nanoseconds, moved
// the model's chain off the caller onto a queue thread on every run.)
uint32_t GatheredStream(const FunctionInfo& function, uint32_t k) {
  const KernelInfo& kernel = function.kernels[k];
  const uint32_t entry = function.kernels[0].stream;
  if (k == 0 || kernel.stream == entry || kernel.num_arguments() != 0) return kernel.stream;
  const uint32_t* user = kernel.used_by();
  for (uint32_t count : kernel.used_by_counts()) {
    for (uint32_t i = 0; i < count; ++i, ++user) {
      if (function.kernels[*user].stream != entry) return kernel.stream;
    }
  }
  return entry;
}

}  // namespace

ExecutionPlan::ExecutionPlan(const FunctionInfo& function, const BefFile* file)
    : info(&function) {
  constexpr uint32_t kNotReturned = UINT32_MAX;
  std::vector<uint32_t> first_result(function.num_registers, kNotReturned);
  first_result_of_register.reserve(function.result_registers.size());
  for (uint32_t i = 0; i < function.result_registers.size(); ++i) {
    uint32_t& first = first_result[function.result_registers[i]];
    if (first == kNotReturned) first = i;
    first_result_of_register.push_back(first);
  }
  PlanStraightLine(file);
  Link(straight);
  file_ = file;
  // A straight-line function takes the dataflow path rarely (a pending
  // argument, a traced, cancelled or budgeted request): its segments are
  // planned when it first does.
  if (!straight_line) EnsureSegments();
#ifndef NDEBUG
  CheckRegisterWindows(straight);
#endif
}

void ExecutionPlan::EnsureSegments() const {
  std::call_once(segments_planned_, [this] {
    // Before this, no execution read what it writes (dataflow executions
    // wait here; straight-line runs read none of it).
    auto* plan = const_cast<ExecutionPlan*>(this);
    plan->PlanSegments(file_);
    Link(plan->segmented);
#ifndef NDEBUG
    CheckRegisterWindows(segmented);
#endif
  });
}

void ExecutionPlan::CheckRegisterWindows(const Line& line) {
  // Every step, nested ones included, reads and writes registers inside the
  // register file its runner allocates (the function's and the windows of
  // nested lines).
  auto check = [&](std::span<const LineStep> steps, std::span<const uint32_t> operands) {
    for (const LineStep& step : steps) {
      BEF_DEBUG_CHECK(step.result_register < line.registers,
                      "a step's result outside its window");
      for (uint32_t i = 0; i < step.num_operands; ++i) {
        BEF_DEBUG_CHECK(operands[step.first_operand + i] < line.registers,
                        "a step's operand outside its window");
      }
    }
  };
  check(line.steps, line.operands);
  check(line.nested_steps, line.nested_operands);
  for ([[maybe_unused]] uint32_t reg : line.nested_results) {
    BEF_DEBUG_CHECK(reg < line.registers, "a nested call's result outside its window");
  }
  for (const TryStep& step : line.try_steps) {
    for (uint32_t i = 0; i < step.num_results; ++i) {
      BEF_DEBUG_CHECK(step.results[i] < line.registers, "a result outside its window");
    }
  }
}

void ExecutionPlan::PlanStraightLine(const BefFile* file) {
  const FunctionInfo& function = *info;
  LinePlanner planner(*this, file);
  // Streams are scheduling hints (where and when kernels run, never what
  // they compute): a function of direct kernels, which are synchronous,
  // cannot fail and have no side effects, of chain-only kernels and of calls
  // of such functions runs straight line whatever streams the converter's
  // analysis gave them. An argument read without a payload type (a chain)
  // must still be an available value, not an error: it is checked when a
  // run starts.
  std::vector<uint32_t> identity(function.num_registers);
  std::iota(identity.begin(), identity.end(), 0);
  std::vector<LinePlanner::Step> steps(function.kernels.size());
  std::vector<uint32_t> step_operands;
  auto give_up = [&] { straight = Line(); };
  for (size_t k = 1; k < function.kernels.size(); ++k) {
    std::optional<LinePlanner::Step> step = planner.PlanKernel(
        function.kernels[k], identity, static_cast<uint32_t>(k), 0, step_operands);
    if (!step) return give_up();
    line_kernels += step->kernels;
    steps[k] = std::move(*step);
  }
  std::vector<LinePlanner::Register>& registers = planner.registers();
  for (uint32_t reg : function.result_registers) {
    const LinePlanner::Register& r = registers[reg];
    if (r.producer == LinePlanner::kUndefined) return give_up();
    // A kernel's result of no known payload type (a call passing on an
    // argument it does not read) cannot be boxed: the dataflow path hands
    // it out.
    if (r.producer != LinePlanner::kArgument && r.box == nullptr) return give_up();
  }
  straight_line = true;
  line_has_try_steps = planner.has_try_steps();
  straight.registers = static_cast<uint32_t>(registers.size());
  line_kernels_known = planner.known_kernel_count();

  // Levels, then a counting sort of the kernels by level.
  std::vector<uint32_t> levels(steps.size(), 0);
  uint32_t deepest = 0;
  for (size_t k = 1; k < steps.size(); ++k) {
    uint32_t level = 1;
    for (uint32_t reg : steps[k].reads) {
      level = std::max(level, levels[registers[reg].producer] + 1);
    }
    levels[k] = level;
    deepest = std::max(deepest, level);
  }
  level_begin.assign(deepest + 1, 0);  // kernels of level l start at [l - 1]
  for (size_t k = 1; k < steps.size(); ++k) ++level_begin[levels[k]];
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
  std::vector<uint32_t> positions(steps.size(), 0);
  std::vector<uint32_t> next(level_begin.begin(), level_begin.end() - 1);
  for (size_t k = 1; k < steps.size(); ++k) {
    uint32_t at = next[levels[k] - 1]++;
    order[at] = static_cast<uint32_t>(k);
    positions[k] = at;
  }
  straight.steps.reserve(order.size());
  straight.operands.reserve(step_operands.size());
  for (uint32_t kernel : order) {
    LineStep step = steps[kernel].line;
    const uint32_t first = step.first_operand;
    step.first_operand = static_cast<uint32_t>(straight.operands.size());
    for (uint32_t i = 0; i < step.num_operands; ++i) {
      straight.operands.push_back(step_operands[first + i]);
    }
    straight.steps.push_back(step);
  }
  argument_types.assign(function.num_arguments, kAnyOperandType);
  for (uint32_t a = 0; a < function.num_arguments; ++a) {
    argument_types[a] = registers[a].type;
    if (argument_types[a] != kAnyOperandType) {
      if (planner.read_by_reference(argument_types[a])) {
        reference_arguments.push_back(a);
      } else {
        typed_arguments.push_back(a);
      }
    } else if (planner.untyped_argument_read(a)) {
      available_arguments.push_back(a);
    }
  }
  results_boxed_directly = true;
  for (uint32_t i = 0; i < function.result_registers.size(); ++i) {
    uint32_t reg = function.result_registers[i];
    uint32_t producer = registers[reg].producer;
    result_producers.push_back(producer);
    result_positions.push_back(producer == 0 ? 0 : positions[producer]);
    result_boxers.push_back(producer == 0 ? nullptr : registers[reg].box);
    results_boxed_directly &= producer != 0 && first_result_of_register[i] == i;
  }
  // Result i can be fed back as argument i: of the payload type argument i
  // is read as, or argument i is not read as a payload.
  auto carried = [&](uint32_t i) {
    uint16_t type = registers[function.result_registers[i]].type;
    return argument_types[i] == kAnyOperandType || argument_types[i] == type;
  };
  const uint32_t num_results = static_cast<uint32_t>(function.result_registers.size());
  loop_carried = num_results == function.num_arguments;
  for (uint32_t i = 0; i < function.num_arguments && loop_carried; ++i) {
    loop_carried = carried(i);
  }
  while_carried = num_results == function.num_arguments + 1;
  for (uint32_t i = 0; i < function.num_arguments && while_carried; ++i) {
    while_carried = carried(i);
  }
  if (while_carried) {
    uint32_t condition = function.result_registers[function.num_arguments];
    while_carried = registers[condition].producer != 0 &&
                    registers[condition].type == AsyncValueTypeId<bool>();
  }
}

void ExecutionPlan::Link(Line& line) {
  for (NestedCall& call : line.nested_calls) {
    call.steps = line.nested_steps.data();
    call.operands = line.nested_operands.data();
    call.registers = line.nested_results.data();
  }
  auto link = [&](LineStep& step) {
    if (step.is_nested_call()) {
      step.attribute_offsets = reinterpret_cast<const uint32_t*>(&line.nested_calls[step.detail]);
    } else if (step.is_try() && !step.own_entry) {
      step.attribute_offsets = reinterpret_cast<const uint32_t*>(&line.try_steps[step.detail]);
    }
  };
  for (LineStep& step : line.steps) link(step);
  for (LineStep& step : line.nested_steps) link(step);
}

void ExecutionPlan::PlanSegments(const BefFile* file) {
  const FunctionInfo& function = *info;
  const uint32_t num_kernels = static_cast<uint32_t>(function.kernels.size());
  const uint32_t num_registers = function.num_registers;
  std::vector<uint32_t> kernel_segment(num_kernels, kNoSegment);
  LinePlanner planner(*this, file, &kernel_segment);
  std::vector<uint32_t> identity(num_registers);
  std::iota(identity.begin(), identity.end(), 0);
  // Per register: the kernel producing it (0: an argument).
  std::vector<uint32_t> producer(num_registers, 0);
  // Per segment: its inputs (the head's operands), each with the payload
  // type the segment's kernels read it as.
  std::vector<std::vector<std::pair<uint32_t, uint16_t>>> inputs_of;
  auto input_of = [&](uint32_t segment, uint32_t reg) -> std::pair<uint32_t, uint16_t>* {
    for (auto& input : inputs_of[segment]) {
      if (input.first == reg) return &input;
    }
    return nullptr;
  };
  std::vector<std::vector<uint32_t>> members;  // per segment, its kernels
  std::vector<LineStep> kernel_steps(num_kernels);
  std::vector<uint32_t> step_operands;
  // Per kernel: the kernel the dataflow path runs right after it when it
  // makes it ready (its last used-by entry: pushed last, popped first).
  auto successor = [&](uint32_t k) {
    const KernelInfo& kernel = function.kernels[k];
    const uint32_t* used_by = kernel.used_by();
    uint32_t last = 0;
    for (uint32_t count : kernel.used_by_counts()) {
      if (count > 0) last = used_by[count - 1];
      used_by += count;
    }
    return last;
  };

  for (uint32_t k = 1; k < num_kernels; ++k) {
    const KernelInfo& kernel = function.kernels[k];
    for (uint32_t reg : kernel.results()) producer[reg] = k;
    const bool candidate = kernel.direct != nullptr || kernel.chain_only ||
                           (kernel.function_call != FunctionCallKind::kNone && file != nullptr);
    if (!candidate) {
      planner.DefineExternal(kernel);
      continue;
    }
    // It continues a segment whose last kernel it follows on the dataflow
    // path (same stream, its successor) when each operand is the segment's
    // own or one of the head's: then the dataflow path would run it right
    // there too, and running them as one changes nothing but the cost.
    uint32_t joined = kNoSegment;
    for (uint32_t reg : kernel.arguments()) {
      const uint32_t from = producer[reg];
      const uint32_t segment = from == 0 ? kNoSegment : kernel_segment[from];
      if (segment == kNoSegment || members[segment].back() != from ||
          successor(from) != k || function.kernels[from].stream != kernel.stream) {
        continue;
      }
      bool fits = true;
      for (uint32_t operand : kernel.arguments()) {
        const uint32_t p = producer[operand];
        fits &= (p != 0 && kernel_segment[p] == segment) || input_of(segment, operand) != nullptr;
      }
      if (fits) {
        joined = segment;
        break;
      }
    }
    const bool opens = joined == kNoSegment;
    const uint32_t segment = opens ? static_cast<uint32_t>(members.size()) : joined;
    planner.BeginKernel(segment);
    const size_t operands_before = step_operands.size();
    std::optional<LinePlanner::Step> step =
        planner.PlanKernel(kernel, identity, k, 0, step_operands);
    bool joins = step.has_value();
    // A result of no known payload type (a call passing on an argument it
    // does not read) cannot be boxed: the kernel's frame hands it out.
    for (size_t i = 0; joins && i < kernel.num_results(); ++i) {
      joins = planner.registers()[kernel.results()[i]].box != nullptr;
    }
    if (opens) {
      members.emplace_back();
      inputs_of.emplace_back();
      for (uint32_t reg : kernel.arguments()) {
        if (input_of(segment, reg) == nullptr) inputs_of[segment].push_back({reg, kAnyOperandType});
      }
    }
    // An input read as two payload types cannot be loaded once.
    std::vector<std::pair<uint32_t, uint16_t>> inputs_before = inputs_of[segment];
    for (size_t i = 0; joins && i < planner.reads().size(); ++i) {
      auto [reg, type] = planner.reads()[i];
      uint16_t& read_as = input_of(segment, reg)->second;
      if (read_as == kAnyOperandType) read_as = type;
      joins = type == kAnyOperandType || read_as == type;
    }
    if (!joins) {
      // (A kernel that cannot continue a segment as planned cannot head
      // one either: the same reads and results would refuse it.)
      step_operands.resize(operands_before);
      planner.DefineExternal(kernel);
      if (opens) {
        members.pop_back();
        inputs_of.pop_back();
      } else {
        inputs_of[segment] = std::move(inputs_before);
      }
      continue;
    }
    kernel_segment[k] = segment;
    members[segment].push_back(k);
    kernel_steps[k] = step->line;
  }
  segmented.registers = static_cast<uint32_t>(planner.registers().size());

  // Segments numbered in the order the single-threaded queue reaches them:
  // by their head's stream (its tasks run the streams in ascending order,
  // §5.1), then by head. A fan-out's streams are a few kernels each, spread
  // over the function; numbered by head, each stream's segments, steps,
  // inputs and exports were a fresh cache line or three away from the
  // last stream's, and a 10,000-kernel fan-out read them from beyond L2.
  {
    std::vector<uint32_t> order(members.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return function.kernels[members[a].front()].stream <
             function.kernels[members[b].front()].stream;
    });
    std::vector<uint32_t> number(members.size());
    std::vector<std::vector<uint32_t>> ordered_members(members.size());
    std::vector<std::vector<std::pair<uint32_t, uint16_t>>> ordered_inputs(members.size());
    for (uint32_t i = 0; i < order.size(); ++i) {
      number[order[i]] = i;
      ordered_members[i] = std::move(members[order[i]]);
      ordered_inputs[i] = std::move(inputs_of[order[i]]);
    }
    members = std::move(ordered_members);
    inputs_of = std::move(ordered_inputs);
    for (uint32_t& segment : kernel_segment) {
      if (segment != kNoSegment) segment = number[segment];
    }
  }

  // Registers the segments produce, and how to box them.
  register_segment.assign(num_registers, kNoSegment);
  register_boxers.assign(num_registers, nullptr);
  for (uint32_t k = 1; k < num_kernels; ++k) {
    if (kernel_segment[k] == kNoSegment) continue;
    for (uint32_t reg : function.kernels[k].results()) {
      register_segment[reg] = kernel_segment[k];
      register_boxers[reg] = planner.registers()[reg].box;
    }
  }
  deferral_slot.assign(num_registers, kNoDeferralSlot);
  deferral_slots = 0;
  for (uint32_t reg = 0; reg < num_registers; ++reg) {
    if (register_segment[reg] == kNoSegment) deferral_slot[reg] = deferral_slots++;
  }
  // Uses: a value holds a reference per use outside its producer's
  // segment, and per return.
  std::vector<uint32_t> return_uses(num_registers, 0);
  for (uint32_t reg : function.result_registers) ++return_uses[reg];
  value_uses.assign(function.register_uses.begin(), function.register_uses.end());
  for (uint32_t reg = 0; reg < num_registers; ++reg) {
    if (register_segment[reg] != kNoSegment) value_uses[reg] = return_uses[reg];
  }
  for (uint32_t k = 1; k < num_kernels; ++k) {
    for (uint32_t reg : function.kernels[k].arguments()) {
      if (register_segment[reg] != kNoSegment && register_segment[reg] != kernel_segment[k]) {
        ++value_uses[reg];
      }
    }
  }
  result_kernel_uses.clear();
  for (uint32_t reg : function.result_registers) {
    result_kernel_uses.push_back(value_uses[reg] - return_uses[reg]);
  }
  shared_register.assign(num_registers, 0);
  for (uint32_t reg = 0; reg < num_registers; ++reg) {
    if (value_uses[reg] >= kSharedRegisterUses && return_uses[reg] == 0) {
      shared_register[reg] = 1;
      shared_registers.push_back(reg);
    }
  }
  // Who counts toward a node: a kernel outside the segments, or a head
  // (kernels after the head were ready when the head ran).
  auto counted = [&](uint32_t k) {
    return kernel_segment[k] == kNoSegment || members[kernel_segment[k]].front() == k;
  };

  // Registers a segment produces and boxes when it exports them (a frame
  // kernel reads them or the function returns them, SegmentExport::
  // needs_value); the others stay payloads unless a segment runs one by one.
  std::vector<uint8_t> boxed(num_registers, 0);
  for (uint32_t k = 1; k < num_kernels; ++k) {
    if (kernel_segment[k] == kNoSegment) continue;
    const KernelInfo& kernel = function.kernels[k];
    const uint32_t* used_by = kernel.used_by();
    auto counts = kernel.used_by_counts();
    for (size_t i = 0; i < counts.size(); ++i) {
      const uint32_t reg = kernel.results()[i];
      boxed[reg] |= return_uses[reg] > 0;
      for (uint32_t u = 0; u < counts[i]; ++u)
        boxed[reg] |= kernel_segment[used_by[u]] == kNoSegment;
      used_by += counts[i];
    }
  }

  // The segments' lines, inputs and exports.
  std::vector<uint32_t> input_uses(num_registers, 0);
  head_of.assign(num_kernels, kNoSegment);
  initial_ready_counts.assign(function.initial_ready_counts.begin(),
                              function.initial_ready_counts.end());
  for (uint32_t s = 0; s < members.size(); ++s) {
    Segment segment;
    head_of[members[s].front()] = s;
    segment.begin = static_cast<uint32_t>(segmented.steps.size());
    segment.first_deferred = static_cast<uint32_t>(segment_deferred.size());
    segment.first_input = static_cast<uint32_t>(segment_inputs.size());
    std::vector<uint32_t> inputs;
    for (uint32_t k : members[s]) {
      LineStep step = kernel_steps[k];
      const uint32_t first = step.first_operand;
      step.first_operand = static_cast<uint32_t>(segmented.operands.size());
      for (uint32_t i = 0; i < step.num_operands; ++i) {
        segmented.operands.push_back(step_operands[first + i]);
      }
      segmented.steps.push_back(step);
      segment_kernels.push_back(k);
      if (step.is_try()) {
        ++segment.num_checks;
      }
      if (step.kind == StepKind::kAsyncCall) {
        segment_deferred.push_back(static_cast<uint32_t>(segmented.steps.size()) - 1);
      }
      for (uint32_t reg : function.kernels[k].arguments()) {
        if (register_segment[reg] == s) continue;
        if (input_uses[reg]++ == 0) inputs.push_back(reg);
      }
    }
    segment.end = static_cast<uint32_t>(segmented.steps.size());
    segment.num_deferred =
        static_cast<uint32_t>(segment_deferred.size()) - segment.first_deferred;
    // Inputs with a use count first, shared registers last.
    std::stable_partition(inputs.begin(), inputs.end(),
                          [&](uint32_t reg) { return shared_register[reg] == 0; });
    for (uint32_t reg : inputs) {
      const uint16_t type = input_of(s, reg)->second;
      segment_inputs.push_back({reg, input_uses[reg], type, planner.read_by_reference(type),
                                register_segment[reg] != kNoSegment && !boxed[reg]});
      input_uses[reg] = 0;
      if (shared_register[reg] == 0) ++segment.num_counted_inputs;
    }
    segment.num_inputs = static_cast<uint32_t>(segment_inputs.size()) - segment.first_input;
    // Per kernel in order, what the dataflow path does when it ends:
    // publish its results, decrement its users (the next kernel of the
    // segment is the last of them and runs at once).
    segment.first_export = static_cast<uint32_t>(segment_exports.size());
    for (uint32_t position = segment.begin; position < segment.end; ++position) {
      const KernelInfo& kernel = function.kernels[segment_kernels[position]];
      const uint32_t* used_by = kernel.used_by();
      auto counts = kernel.used_by_counts();
      for (size_t i = 0; i < counts.size(); ++i) {
        const uint32_t reg = kernel.results()[i];
        SegmentExport out{reg, static_cast<uint32_t>(segment_targets.size()), 0, position,
                          return_uses[reg] > 0};
        for (uint32_t u = 0; u < counts[i]; ++u) {
          const uint32_t user = used_by[u];
          if (kernel_segment[user] == s) continue;
          out.needs_value |= kernel_segment[user] == kNoSegment;
          if (counted(user)) segment_targets.push_back(user);
        }
        used_by += counts[i];
        out.num_targets = static_cast<uint32_t>(segment_targets.size()) - out.first_target;
        if (out.num_targets > 0 || out.needs_value || value_uses[reg] > 0) {
          segment_exports.push_back(out);
        }
      }
    }
    segment.num_exports = static_cast<uint32_t>(segment_exports.size()) - segment.first_export;
    // The runner walks exports and deferred positions forward only.
    BEF_DEBUG_CHECK(std::is_sorted(segment_exports.begin() + segment.first_export,
                                   segment_exports.end(),
                                   [](const SegmentExport& a, const SegmentExport& b) {
                                     return a.position < b.position;
                                   }),
                    "a segment's exports out of order");
    BEF_DEBUG_CHECK(std::is_sorted(segment_deferred.begin() + segment.first_deferred,
                                   segment_deferred.end()),
                    "a segment's deferred positions out of order");
    segments.push_back(segment);
  }

  // The TrySteps in the order of their steps, as the segments are: an
  // async call step reads its TryStep at every call.
  {
    std::vector<TryStep> ordered;
    std::vector<uint32_t> moved_to(segmented.try_steps.size(), kNoSegment);
    auto reorder = [&](LineStep& step) {
      if (!step.is_try()) return;
      uint32_t& to = moved_to[step.detail];
      if (to == kNoSegment) {
        to = static_cast<uint32_t>(ordered.size());
        ordered.push_back(segmented.try_steps[step.detail]);
      }
      step.detail = to;
    };
    for (LineStep& step : segmented.steps) reorder(step);
    for (LineStep& step : segmented.nested_steps) reorder(step);
    segmented.try_steps = std::move(ordered);
  }

  schedule.resize(num_kernels);
  for (uint32_t k = 0; k < num_kernels; ++k) {
    const bool skipped = k != 0 && !counted(k);
    schedule[k] = {initial_ready_counts[k], function.kernels[k].stream,
                   skipped ? kNotCounted : k};
  }
  for (uint32_t k = 0; k < num_kernels; ++k) {
    const uint32_t gathered = GatheredStream(function, k);
    if (gathered == schedule[k].stream) continue;
    if (threaded_schedule.empty()) threaded_schedule = schedule;
    threaded_schedule[k].stream = gathered;
  }

  // What an invocation sets up (see the header).
  auto ranges_of = [](uint32_t count, auto&& needed) {
    std::vector<IndexRange> ranges;
    for (uint32_t i = 0; i < count; ++i) {
      if (!needed(i)) continue;
      if (!ranges.empty() && i - ranges.back().end < kSetupGap) {
        ranges.back().end = i + 1;
      } else {
        ranges.push_back({i, i + 1});
      }
    }
    return ranges;
  };
  registers_to_clear = ranges_of(num_registers, [&](uint32_t reg) {
    return register_segment[reg] == kNoSegment || value_uses[reg] > 0;
  });
  ready_counts_to_set = ranges_of(num_kernels, [&](uint32_t k) {
    return schedule[k].counted != kNotCounted && schedule[k].ready_count > 1;
  });
}

}  // namespace bef
