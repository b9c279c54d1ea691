#include "lib/executor/straight_line.h"

#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "bef/support/debug_check.h"

#include "bef/async/async_value_ref.h"
#include "lib/executor/line_cursor.h"
#include "lib/executor/parallel_levels.h"

namespace bef {

PayloadRegister* ScratchRegisters(size_t count) {
  thread_local std::unique_ptr<PayloadRegister[]> scratch;
  thread_local size_t capacity = 0;
  if (capacity < count) {
    scratch.reset(new PayloadRegister[count]);
    capacity = count;
  }
  return scratch.get();
}

namespace {

[[gnu::always_inline]] inline void RunNestedBranch(const ExecutionPlan::NestedCall& call,
                                                   int branch, const uint8_t* attribute_pool,
                                                   void* result) {
  PayloadRegister* registers = static_cast<PayloadRegister*>(result) - call.result_register;
  LineCursor(call.steps, call.operands, attribute_pool, registers)
      .Run(call.begin[branch], call.end[branch]);
  const uint32_t* sources = call.registers + call.sources[branch];
  const uint32_t* destinations = call.registers + call.destinations;
  for (uint32_t i = 0; i < call.num_results; ++i) {
    registers[destinations[i]] = registers[sources[i]];
  }
}

}  // namespace

void RunNestedCall(const void* const*, const uint8_t* attribute_pool,
                   const uint32_t* attribute_offsets, void* result) {
  RunNestedBranch(*reinterpret_cast<const ExecutionPlan::NestedCall*>(attribute_offsets), 0,
                  attribute_pool, result);
}

void RunNestedIf(const void* const* operands, const uint8_t* attribute_pool,
                 const uint32_t* attribute_offsets, void* result) {
  const bool condition = *static_cast<const bool*>(operands[0]);
  RunNestedBranch(*reinterpret_cast<const ExecutionPlan::NestedCall*>(attribute_offsets),
                  condition ? 0 : 1, attribute_pool, result);
}

void RunTryStep(const void* const* operands, const uint8_t* attribute_pool,
                const uint32_t* attribute_offsets, void* result) {
  const auto& step = *reinterpret_cast<const ExecutionPlan::TryStep*>(attribute_offsets);
  PayloadRegister* registers = static_cast<PayloadRegister*>(result) - step.result_register;
  void* results[kMaxDirectResults];
  for (uint32_t i = 0; i < step.num_results; ++i) results[i] = registers[step.results[i]].bytes;
  if (step.call != nullptr) {
    DirectCall& call = internal::line_direct_call;
    BEF_DEBUG_CHECK(call.host != nullptr && call.valued == 0 && call.ok(),
                    "a call step ran outside a segment runner, or after an unread one");
    call.emplaced = 0;
    if (!step.call(operands, attribute_pool, step.attribute_offsets, results, call))
        [[unlikely]] {
      internal::line_kernel_failed = true;
      internal::line_call_incomplete = true;
    }
    return;
  }
  if (!step.try_run(operands, attribute_pool, step.attribute_offsets, results)) [[unlikely]] {
    internal::line_kernel_failed = true;
    // Defined payloads (a false i1, zeros) for whatever a straight-line run
    // still runs before it looks at the flag and abandons the run.
    for (uint32_t i = 0; i < step.num_results; ++i) {
      std::memset(results[i], 0, kDirectResultSize);
    }
  }
}

// Aligned to a cache line: its loop of kernel calls (a few dozen bytes, a
// chain of adds spends most of its time there) then sits on the same
// instruction-fetch windows whatever code the linker put before it. At
// 16-byte alignment the loop spanned two or three 64-byte lines as
// unrelated changes moved it, and the chain of adds ran at 2.0 or 2.6 ns
// per kernel with the same instructions.
[[gnu::aligned(64)]] uint32_t RunLineRange(const LineCursor cursor, uint32_t begin,
                                           uint32_t stop, const RequestContext* request) {
  for (uint32_t block = begin; block < stop; block += kCancellationInterval) {
    if (block != begin && (FastPathPolicy::Cancelled(request) || internal::line_kernel_failed))
        [[unlikely]] {
      return block;
    }
    cursor.Run(block, std::min<uint32_t>(stop, block + kCancellationInterval));
  }
  return stop;
}

namespace {

// Whether a straight-line run may start: the arguments are available and
// of the payload types the kernels read, and the request is neither
// cancelled nor traced. Otherwise the dataflow executor runs the function.
[[gnu::always_inline]] inline bool StraightLineMayStart(const ExecutionPlan& plan,
                                                       const FastPathPolicy& policy,
                                                       std::span<AsyncValue* const> arguments) {
  if (!policy.StraightLineAllowed() || arguments.size() != plan.info->num_arguments)
      [[unlikely]] {
    return false;
  }
  for (uint32_t a : plan.typed_arguments) {
    if (!arguments[a]->IsConcrete() || arguments[a]->type_id() != plan.argument_types[a]) {
      return false;
    }
  }
  for (uint32_t a : plan.reference_arguments) {
    if (!arguments[a]->IsConcrete() || arguments[a]->type_id() != plan.argument_types[a]) {
      return false;
    }
  }
  for (uint32_t a : plan.available_arguments) {
    if (!arguments[a]->IsConcrete()) return false;
  }
  return true;
}

// The payload registers of one straight-line run: on the stack when few,
// else the thread's scratch registers.
class StraightLineRegisters {
 public:
  explicit StraightLineRegisters(uint32_t count)
      : registers_(count <= kInline ? inline_ : ScratchRegisters(count)) {}
  StraightLineRegisters(const StraightLineRegisters&) = delete;
  StraightLineRegisters& operator=(const StraightLineRegisters&) = delete;

  PayloadRegister* get() const { return registers_; }

  // Copies the payloads of the arguments read as payloads into their
  // registers. A direct operand's payload is at most kDirectResultSize
  // bytes, and the value object extends at least that far past its header.
  void LoadArguments(const ExecutionPlan& plan, std::span<AsyncValue* const> arguments) {
    for (uint32_t a : plan.typed_arguments) {
      std::memcpy(registers_[a].bytes, arguments[a]->ScalarPayload(), kDirectResultSize);
    }
    // Payloads read by reference: their address (the caller holds the
    // arguments for the run).
    for (uint32_t a : plan.reference_arguments) {
      const void* payload = arguments[a]->ScalarPayload();
      std::memcpy(registers_[a].bytes, &payload, sizeof(payload));
    }
  }

 private:
  static constexpr uint32_t kInline = 32;
  PayloadRegister inline_[kInline];
  PayloadRegister* registers_;
};

// Whether a try step of the run just made failed (clearing the flag): the
// run is abandoned, the dataflow path runs the function and reports it.
[[gnu::always_inline]] inline bool LineFailed(const ExecutionPlan& plan) {
  if (!plan.line_has_try_steps || !internal::line_kernel_failed) [[likely]] return false;
  internal::line_kernel_failed = false;
  return true;
}

// One run of a whole line of `num_kernels` steps (in a repeated run):
// false, part run, on a cancellation, looked at before the run and every
// kCancellationInterval kernels.
[[gnu::always_inline]] inline bool RunLineOnce(const LineCursor& cursor, uint32_t num_kernels,
                                               const RequestContext* request) {
  if (FastPathPolicy::Cancelled(request)) [[unlikely]] return false;
  if (num_kernels <= kCancellationInterval) [[likely]] {
    cursor.Run(0, num_kernels);
    return true;
  }
  return RunLineRange(cursor, 0, num_kernels, request) == num_kernels;
}

// The results of a straight-line run that stopped at position `end` of the
// line, or returns an argument or a register twice.
[[gnu::noinline]] void SetStraightLineResults(const ExecutionPlan& plan, uint32_t end,
                                              const PayloadRegister* registers,
                                              RequestContext* request,
                                              std::span<AsyncValue* const> arguments,
                                              std::span<RCReference<AsyncValue>> results) {
  const FunctionInfo& info = *plan.info;
  for (size_t i = 0; i < results.size(); ++i) {
    uint32_t reg = info.result_registers[i];
    uint32_t producer = plan.result_producers[i];
    uint32_t position = plan.result_positions[i];
    uint32_t same = plan.first_result_of_register[i];
    if (same < i) {
      results[i] = results[same];
    } else if (producer == 0) {
      results[i] = FormRef(arguments[reg]);
    } else if (position >= end) {
      results[i] = FormRef(request->GetCancelAsyncValue());
    } else {
      results[i] = TakeRef(plan.result_boxers[i](registers[reg].bytes));
    }
  }
}

}  // namespace

// Runs a straight-line function; false, with nothing done, when the
// dataflow executor must run it (StraightLineMayStart, or the request's
// kernel budget would run out on the way).
// A cancellation noticed on the way makes the results of the kernels not
// run yet the cancellation's error, as the dataflow executor does.
bool RunStraightLine(const BefProgram& program, const ExecutionPlan& plan,
                     const ExecutionContext& context, const FastPathPolicy& policy,
                     std::span<AsyncValue* const> arguments,
                     std::span<RCReference<AsyncValue>> results) {
  BEF_DEBUG_CHECK(plan.straight_line, "RunStraightLine on a function that is not straight line");
  BEF_DEBUG_CHECK(!internal::line_kernel_failed,
                  "a kernel's failure on the line was left unhandled");
  if (!StraightLineMayStart(plan, policy, arguments)) return false;
  // Under a kernel budget a line that may be abandoned halfway would be
  // charged twice: the dataflow path runs it.
  if (!policy.ChargeStraightLine(plan.line_kernels,
                                 plan.line_kernels_known && !plan.line_has_try_steps)) {
    return false;
  }
  RequestContext* request = context.request_context();
  StraightLineRegisters storage(plan.straight.registers);
  PayloadRegister* registers = storage.get();
  storage.LoadArguments(plan, arguments);
  const uint8_t* attribute_pool = program.kernel_binding().attribute_pool;
  const uint32_t num_kernels = static_cast<uint32_t>(plan.straight.steps.size());
  uint32_t end = num_kernels;  // the position in plan.straight.steps of the first kernel not run
  if (num_kernels <= kCancellationInterval) {
    LineCursor(plan.straight, registers, attribute_pool).Run(0, num_kernels);
  } else if (plan.widest_level < kParallelLevel || plan.line_has_try_steps ||
             context.host()->GetNumWorkerThreads() < 2) {
    // (A try step's failure is noticed by the thread that ran it: lines
    // with try steps run on one thread.)
    end = RunLineRange(LineCursor(plan.straight, registers, attribute_pool), 0, num_kernels, request);
  } else {
    end = RunLevelsInParallel(plan, registers, attribute_pool, policy, context.host());
  }
  if (LineFailed(plan)) [[unlikely]] return false;
  if (plan.results_boxed_directly && end == num_kernels) [[likely]] {
    const uint32_t* result_registers = plan.info->result_registers.data();
    for (size_t i = 0; i < results.size(); ++i) {
      results[i] = TakeRef(plan.result_boxers[i](registers[result_registers[i]].bytes));
    }
  } else {
    SetStraightLineResults(plan, end, registers, request, arguments, results);
  }
  return true;
}

// BefFunction::ExecuteRepeated and ExecuteWhile on a straight-line body:
// the loop values stay payloads in the argument registers between runs. A
// loop value is, per position, either still an argument's value
// (`origins`, a result returning an argument unchanged) or the payload of a
// kernel's result, boxed at the end by that kernel's box (`boxers`). A
// repeat runs `count` times; a while loop runs until the body's last result
// (an i1) is false. Same conditions as RunStraightLine; a kernel budget is
// charged for all runs up front (a while loop, whose run count is not
// known, takes the dataflow path under a budget); cancellation is looked at
// before every run and every kCancellationInterval kernels, and makes every
// result its error.
template <bool kWhile>
bool RunLoopedStraightLine(const BefProgram& program, const ExecutionPlan& plan,
                           const ExecutionContext& context, const FastPathPolicy& policy,
                           int32_t count, std::span<AsyncValue* const> arguments,
                           std::span<RCReference<AsyncValue>> results) {
  BEF_DEBUG_CHECK(plan.straight_line && (kWhile ? plan.while_carried : plan.loop_carried),
                  "a looped straight-line run of a body that is not loop- or while-carried");
  BEF_DEBUG_CHECK(!internal::line_kernel_failed,
                  "a kernel's failure on the line was left unhandled");
  if (!StraightLineMayStart(plan, policy, arguments)) return false;
  const FunctionInfo& info = *plan.info;
  if (kWhile ? !policy.ChargeStraightLine(0, false)
             : !policy.ChargeStraightLine(int64_t{count} * plan.line_kernels,
                                          plan.line_kernels_known && !plan.line_has_try_steps)) {
    return false;
  }
  RequestContext* request = context.request_context();
  StraightLineRegisters storage(plan.straight.registers);
  PayloadRegister* registers = storage.get();
  storage.LoadArguments(plan, arguments);
  const uint32_t num_values = info.num_arguments;
  const uint32_t* result_registers = info.result_registers.data();
  const uint32_t* producers = plan.result_producers.data();
  const uint8_t* attribute_pool = program.kernel_binding().attribute_pool;
  const uint32_t num_kernels = static_cast<uint32_t>(plan.straight.steps.size());
  // The body's i1 result, read after each run of a while loop.
  const bool* condition =
      kWhile ? reinterpret_cast<const bool*>(registers[result_registers[num_values]].bytes)
             : nullptr;
  // On a cancellation every result is its error.
  auto cancel_results = [&] {
    for (auto& result : results) result = FormRef(request->GetCancelAsyncValue());
    return true;
  };
  const LineCursor cursor(plan.straight, registers, attribute_pool);
  bool returns_an_argument = false;
  for (uint32_t i = 0; i < num_values; ++i) returns_an_argument |= producers[i] == 0;
  if (!returns_an_argument) {
    // Every loop value is a kernel's result, in a register other than the
    // arguments': copied straight into argument i.
    // A while loop counts no runs (it may run more than INT32_MAX times).
    for (int32_t run = 0; kWhile || run < count; run += kWhile ? 0 : 1) {
      if (!RunLineOnce(cursor, num_kernels, request)) [[unlikely]] {
        return LineFailed(plan) ? false : cancel_results();
      }
      if (LineFailed(plan)) [[unlikely]] return false;
      for (uint32_t i = 0; i < num_values; ++i) registers[i] = registers[result_registers[i]];
      if (kWhile && !*condition) break;
    }
    for (uint32_t i = 0; i < num_values; ++i) {
      results[i] = TakeRef(plan.result_boxers[i](registers[i].bytes));
    }
    return true;
  }
  // Per loop value: the argument value it still is (a result returning an
  // argument unchanged), or null once a kernel produced it, then boxed at
  // the end by `boxers[i]`. Kept on the stack for the usual few loop
  // values: written every run, on
  // the heap they would share cache lines with the same arrays of another
  // thread's loop (small blocks of one malloc arena sit side by side), and
  // concurrent loops would slow each other down (false sharing).
  using Box = AsyncValue* (*)(const void*);
  constexpr uint32_t kInlineValues = 8;
  struct Values {
    AsyncValue* origins[kInlineValues];
    Box boxers[kInlineValues];
  } inline_values[2];
  PayloadRegister inline_payloads[kInlineValues];
  std::vector<AsyncValue*> heap_origins;
  std::vector<Box> heap_boxers;
  std::vector<PayloadRegister> heap_payloads;
  AsyncValue** origins = inline_values[0].origins;
  AsyncValue** next_origins = inline_values[1].origins;
  Box* boxers = inline_values[0].boxers;
  Box* next_boxers = inline_values[1].boxers;
  PayloadRegister* next_payloads = inline_payloads;
  if (num_values > kInlineValues) {
    heap_origins.resize(2 * num_values);
    heap_boxers.resize(2 * num_values);
    heap_payloads.resize(num_values);
    origins = heap_origins.data();
    next_origins = origins + num_values;
    boxers = heap_boxers.data();
    next_boxers = boxers + num_values;
    next_payloads = heap_payloads.data();
  }
  for (uint32_t i = 0; i < num_values; ++i) {
    origins[i] = arguments[i];
    boxers[i] = nullptr;
  }
  for (int32_t run = 0; kWhile || run < count; run += kWhile ? 0 : 1) {
    if (!RunLineOnce(cursor, num_kernels, request)) [[unlikely]] {
      return LineFailed(plan) ? false : cancel_results();
    }
    if (LineFailed(plan)) [[unlikely]] return false;
    for (uint32_t i = 0; i < num_values; ++i) {
      uint32_t reg = result_registers[i];
      next_payloads[i] = registers[reg];
      next_origins[i] = producers[i] == 0 ? origins[reg] : nullptr;
      next_boxers[i] = producers[i] == 0 ? boxers[reg] : plan.result_boxers[i];
    }
    for (uint32_t i = 0; i < num_values; ++i) registers[i] = next_payloads[i];
    std::swap(origins, next_origins);
    std::swap(boxers, next_boxers);
    if (kWhile && !*condition) break;
  }
  for (uint32_t i = 0; i < num_values; ++i) {
    results[i] = origins[i] != nullptr ? FormRef(origins[i])
                                       : TakeRef(boxers[i](registers[i].bytes));
  }
  return true;
}

bool RunRepeatedStraightLine(const BefProgram& program, const ExecutionPlan& plan,
                             const ExecutionContext& context,
                             const FastPathPolicy& policy, int32_t count,
                             std::span<AsyncValue* const> arguments,
                             std::span<RCReference<AsyncValue>> results) {
  return RunLoopedStraightLine<false>(program, plan, context, policy, count, arguments,
                                      results);
}

bool RunWhileStraightLine(const BefProgram& program, const ExecutionPlan& plan,
                          const ExecutionContext& context, const FastPathPolicy& policy,
                          std::span<AsyncValue* const> arguments,
                          std::span<RCReference<AsyncValue>> results) {
  return RunLoopedStraightLine<true>(program, plan, context, policy, 0, arguments, results);
}

}  // namespace bef
