// tfrt.* control flow: call, if/cond, case, while, repeat.i32, once,
// parallel_for.i32 / parallel_call.i32 (host-dialects.md §2.8).
//
// Loops iterate: a body that finishes synchronously is run again from the
// same loop, never from a nested call, so the stack does not grow per
// iteration (10 million repeat.i32 iterations run on an 8 MB stack).
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/function.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_utils.h"
#include "bef/kernels/kernel_types.h"
#include "bef/support/string_view.h"

namespace bef {
namespace {

// Runs `function` with `arguments` into the kernel's results after checking
// the counts (a malformed file may disagree with the callee).
void CallInto(AsyncKernelFrame* frame, const Function* function,
              std::span<AsyncValue* const> arguments) {
  if (arguments.size() != function->num_arguments() ||
      frame->GetNumResults() != function->num_results()) {
    frame->ReportError(absl::InternalError(absl::StrCat(
        "function '", ToAbsl(function->name()), "' takes ",
        function->num_arguments(), " arguments and returns ",
        function->num_results(), " results; the kernel passes ",
        arguments.size(), " and expects ", frame->GetNumResults())));
    return;
  }
  function->Execute(frame->GetExecutionContext(), arguments, frame->GetResults());
}

void Call(AsyncKernelFrame* frame) {
  CallInto(frame, frame->GetFunctionAt(0), frame->GetArguments());
}

// tfrt.if and tfrt.cond: (i1, args...) with functions (then, else).
void If(AsyncKernelFrame* frame) {
  if (!CheckArgumentTypes<bool>(frame)) return;
  bool condition = frame->GetArgAt(0)->get<bool>();
  CallInto(frame, frame->GetFunctionAt(condition ? 0 : 1),
           frame->GetArguments().subspan(1));
}

// tfrt.case: (i32 index, args...); out-of-range indices pick the last branch.
void Case(AsyncKernelFrame* frame) {
  if (!CheckArgumentTypes<int32_t>(frame)) return;
  int32_t index = frame->GetArgAt(0)->get<int32_t>();
  int32_t branches = static_cast<int32_t>(frame->GetNumFunctions());
  if (branches == 0) {
    frame->ReportError("tfrt.case has no branches");
    return;
  }
  if (index < 0 || index >= branches) index = branches - 1;
  CallInto(frame, frame->GetFunctionAt(index), frame->GetArguments().subspan(1));
}

// ---------------------------------------------------------------------------
// tfrt.repeat.i32: (i32 n, values...) with the body function.

class RepeatLoop {
 public:
  static constexpr int32_t kBlock = 32;

  RepeatLoop(const ExecutionContext& context, const Function* body,
             std::vector<RCReference<AsyncValue>> values, int32_t remaining,
             std::vector<RCReference<IndirectAsyncValue>> results)
      : context_(context),
        body_(body),
        values_(std::move(values)),
        arguments_(values_.size()),
        next_(values_.size()),
        remaining_(remaining),
        results_(std::move(results)) {}

  // Issues blocks of iterations until done or until the first loop value of
  // the last iteration is pending; then continues when it is available.
  static void Run(std::unique_ptr<RepeatLoop> loop) {
    while (true) {
      for (int32_t i = 0; i < kBlock && loop->remaining_ > 0; ++i) {
        if (AsyncValue* cancelled =
                loop->context_.request_context()->GetCancelAsyncValue()) {
          loop->Finish(FormRef(cancelled));
          return;
        }
        loop->Iterate();
      }
      if (loop->remaining_ == 0) {
        loop->Finish(nullptr);
        return;
      }
      if (loop->values_.empty() || loop->values_[0]->IsAvailable()) continue;
      AsyncValue* first = loop->values_[0].get();
      first->AndThen([loop = loop.release()] { Run(std::unique_ptr<RepeatLoop>(loop)); });
      return;
    }
  }

 private:
  // The argument and output vectors are reused across iterations (next_
  // is all null between them).
  void Iterate() {
    const size_t size = values_.size();
    for (size_t i = 0; i < size; ++i) arguments_[i] = values_[i].get();
    body_->Execute(context_, arguments_, next_);
    for (size_t i = 0; i < size; ++i) values_[i] = std::move(next_[i]);
    --remaining_;
  }

  // Forwards the results to the last values, or all to `error`.
  void Finish(RCReference<AsyncValue> error) {
    for (size_t i = 0; i < results_.size(); ++i) {
      results_[i]->ForwardTo(error ? error : std::move(values_[i]));
    }
  }

  ExecutionContext context_;
  const Function* body_;
  std::vector<RCReference<AsyncValue>> values_;
  std::vector<AsyncValue*> arguments_;
  std::vector<RCReference<AsyncValue>> next_;
  int32_t remaining_;
  std::vector<RCReference<IndirectAsyncValue>> results_;
};

void RepeatI32(AsyncKernelFrame* frame) {
  if (!CheckArgumentTypes<int32_t>(frame)) return;
  int32_t count = frame->GetArgAt(0)->get<int32_t>();
  const Function* body = frame->GetFunctionAt(0);
  auto values = frame->GetArguments().subspan(1);
  if (values.size() != body->num_arguments() ||
      body->num_results() != values.size() ||
      frame->GetNumResults() != values.size()) {
    frame->ReportError("tfrt.repeat.i32 body does not match the loop values");
    return;
  }
  if (count <= 0) {
    for (size_t i = 0; i < values.size(); ++i) frame->SetResultAt(i, FormRef(values[i]));
    return;
  }
  // A body that can run all iterations at once (a straight-line BEF body
  // keeps the loop values unboxed between them).
  std::vector<RCReference<AsyncValue>> results(values.size());
  if (body->ExecuteRepeated(frame->GetExecutionContext(), count, values, results)) {
    for (size_t i = 0; i < values.size(); ++i) frame->SetResultAt(i, std::move(results[i]));
    return;
  }
  RepeatLoop::Run(std::make_unique<RepeatLoop>(
      frame->GetExecutionContext(), body, CopyRefs(values), count,
      frame->AllocateIndirectResults()));
}

// ---------------------------------------------------------------------------
// tfrt.while: (i1 cond, values...) {parallel_iterations} with the body,
// which returns the next values and a trailing i1.

class WhileLoop {
 public:
  WhileLoop(const ExecutionContext& context, const Function* body,
            int64_t parallel_iterations, std::vector<RCReference<AsyncValue>> values,
            RCReference<AsyncValue> condition,
            std::vector<RCReference<IndirectAsyncValue>> results)
      : context_(context),
        body_(body),
        parallel_iterations_(parallel_iterations),
        values_(std::move(values)),
        condition_(std::move(condition)),
        results_(std::move(results)) {}

  static void Run(std::unique_ptr<WhileLoop> loop) {
    while (true) {
      AsyncValue* condition = loop->condition_.get();
      if (condition->IsUnavailable()) {
        // Resume from the work queue once the condition is known.
        HostContext* host = loop->context_.host();
        condition->AndThen([loop = loop.release(), host] {
          host->EnqueueWork([loop] { Run(std::unique_ptr<WhileLoop>(loop)); });
        });
        return;
      }
      if (condition->IsError()) {
        loop->FinishWithError();
        return;
      }
      if (!condition->IsType<bool>()) {
        // The body's last result is not an i1 (a malformed file).
        loop->condition_ = MakeErrorAsyncValueRef(absl::InvalidArgumentError(
            "tfrt.while: the body's last result is not an i1"));
        loop->FinishWithError();
        return;
      }
      if (!condition->get<bool>()) {
        for (size_t i = 0; i < loop->results_.size(); ++i) {
          loop->results_[i]->ForwardTo(std::move(loop->values_[i]));
        }
        return;
      }
      if (loop->parallel_iterations_ > 1) {
        // Each body execution is its own work-queue task.
        HostContext* host = loop->context_.host();
        host->EnqueueWork([loop = loop.release()] {
          loop->Iterate();
          Run(std::unique_ptr<WhileLoop>(loop));
        });
        return;
      }
      loop->Iterate();
    }
  }

 private:
  void Iterate() {
    std::vector<AsyncValue*> arguments;
    for (auto& value : values_) arguments.push_back(value.get());
    std::vector<RCReference<AsyncValue>> outputs(values_.size() + 1);
    body_->Execute(context_, arguments, outputs);
    condition_ = std::move(outputs.back());
    outputs.pop_back();
    values_ = std::move(outputs);
  }

  // An error condition: every result becomes it once the values are known.
  void FinishWithError() {
    std::vector<AsyncValue*> pending;
    for (auto& value : values_) pending.push_back(value.get());
    RCReference<AsyncValue> error = condition_;
    auto results = std::move(results_);
    RunWhenReady(pending, [error, results = std::move(results)] {
      for (auto& result : results) result->ForwardTo(error);
    });
  }

  ExecutionContext context_;
  const Function* body_;
  int64_t parallel_iterations_;
  std::vector<RCReference<AsyncValue>> values_;
  RCReference<AsyncValue> condition_;
  std::vector<RCReference<IndirectAsyncValue>> results_;
};

void While(AsyncKernelFrame* frame) {
  if (!CheckArgumentTypes<bool>(frame)) return;
  const Function* body = frame->GetFunctionAt(0);
  if (frame->GetAttributeBytesAvailable(0) < sizeof(int64_t)) {
    frame->ReportError("tfrt.while: the parallel_iterations attribute is outside the "
                       "Attributes section");
    return;
  }
  int64_t parallel_iterations =
      LoadScalarAttribute<int64_t>(frame->GetAttributeAt(0));
  auto values = frame->GetArguments().subspan(1);
  if (body->num_arguments() != values.size() ||
      body->num_results() != values.size() + 1 ||
      frame->GetNumResults() != values.size()) {
    frame->ReportError("tfrt.while body does not match the loop values");
    return;
  }
  // A true condition and a body that can run the whole loop at once (a
  // straight-line BEF body keeps the loop values unboxed between runs).
  AsyncValue* condition = frame->GetArgAt(0);
  if (condition->IsConcrete() && condition->get<bool>()) {
    std::vector<RCReference<AsyncValue>> results(values.size());
    if (body->ExecuteWhile(frame->GetExecutionContext(), values, results)) {
      for (size_t i = 0; i < values.size(); ++i) frame->SetResultAt(i, std::move(results[i]));
      return;
    }
  }
  WhileLoop::Run(std::make_unique<WhileLoop>(
      frame->GetExecutionContext(), body, parallel_iterations, CopyRefs(values),
      FormRef(frame->GetArgAt(0)), frame->AllocateIndirectResults()));
}

// ---------------------------------------------------------------------------
// tfrt.once: the function runs at most once per resource context. The
// first call evaluates it; a call while that evaluation is under way on
// another thread gets placeholders of the results (no thread waits), later
// calls the results. A call made by the evaluation itself (the function's
// own tfrt.once of itself, or of a function whose evaluation called it: a
// converter-accepted cycle, or a one-byte change of a BEF file) fails at its
// location: "tfrt.once of @f re-entered while it is being evaluated".
// TFRT's std::call_once waits for itself there, for ever; we differ on
// purpose (docs/executor-semantics.md).

struct OnceResults {
  std::mutex mutex;
  bool started = false;  // guarded by mutex
  // Guarded by mutex: during the evaluation, placeholders (forwarded to
  // the results when it returns); after it, the results.
  std::vector<RCReference<AsyncValue>> values;
};

// The tfrt.once evaluations this thread is inside, innermost last.
thread_local std::vector<const OnceResults*> evaluating_once;

void Once(AsyncKernelFrame* frame) {
  const Function* function = frame->GetFunctionAt(0);
  ResourceContext* resources =
      frame->GetExecutionContext().request_context()->resource_context();
  if (resources == nullptr) {
    RCReference<AsyncValue> error = MakeErrorAsyncValueRef(
        absl::InternalError("tfrt.once requires resource context"));
    for (auto& result : frame->GetResults()) result = error;
    return;
  }
  if (frame->GetNumResults() != function->num_results() ||
      frame->GetNumArgs() != function->num_arguments()) {
    frame->ReportError("tfrt.once function does not match the op");
    return;
  }
  std::string key = absl::StrCat("tfrt.once @", ToAbsl(function->name()));
  auto* once = resources->GetOrCreate<std::shared_ptr<OnceResults>>(
      key, [] { return std::make_shared<OnceResults>(); });
  std::shared_ptr<OnceResults> state = *once;
  std::vector<RCReference<AsyncValue>> values;
  bool evaluate = false;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    if (!state->started) {
      state->started = true;
      evaluate = true;
      for (size_t i = 0; i < function->num_results(); ++i) {
        state->values.push_back(MakeIndirectAsyncValue());
      }
    } else {
      for (const RCReference<AsyncValue>& value : state->values) values.push_back(value.CopyRef());
    }
  }
  if (!evaluate) {
    if (std::find(evaluating_once.begin(), evaluating_once.end(), state.get()) !=
        evaluating_once.end()) {
      frame->ReportError(absl::FailedPreconditionError(
          absl::StrCat("tfrt.once of @", ToAbsl(function->name()),
                       " re-entered while it is being evaluated")));
      return;
    }
    for (size_t i = 0; i < values.size(); ++i) frame->SetResultAt(i, std::move(values[i]));
    return;
  }
  values.resize(function->num_results());
  evaluating_once.push_back(state.get());
  function->Execute(frame->GetExecutionContext(), frame->GetArguments(), values);
  evaluating_once.pop_back();
  std::vector<RCReference<AsyncValue>> placeholders;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    placeholders = std::move(state->values);
    state->values.clear();
    for (const RCReference<AsyncValue>& value : values) state->values.push_back(value.CopyRef());
  }
  for (size_t i = 0; i < values.size(); ++i) {
    static_cast<IndirectAsyncValue*>(placeholders[i].get())->ForwardTo(values[i].CopyRef());
    frame->SetResultAt(i, std::move(values[i]));
  }
}

// ---------------------------------------------------------------------------
// tfrt.parallel_for.i32 / tfrt.parallel_call.i32: (start, end, block_size,
// args...) with the body taking (start, end, args...) and returning nothing
// or one chain.

struct ParallelState {
  explicit ParallelState(const ExecutionContext& context) : context(context) {}
  ExecutionContext context;
  const Function* body;
  std::vector<RCReference<AsyncValue>> arguments;  // the extra operands
  std::atomic<int64_t> pending;
  // The cancellation that made blocks be skipped, if any (set before the
  // skipped blocks count as finished).
  std::atomic<AsyncValue*> skipped_by{nullptr};
  AsyncValueRef<Chain> done;

  // `blocks` more blocks are finished (run or skipped); the last makes
  // `done` available: the ready chain, or the cancellation's error when
  // blocks were skipped.
  void Finish(int64_t blocks) {
    if (pending.fetch_sub(blocks, std::memory_order_acq_rel) != blocks) return;
    if (AsyncValue* cancelled = skipped_by.load(std::memory_order_acquire)) {
      done.SetError(cancelled->GetError());
    } else {
      done.emplace();
    }
  }
};

void RunBlock(const std::shared_ptr<ParallelState>& state, int32_t start, int32_t end) {
  AsyncValueRef<int32_t> first = MakeAvailableAsyncValueRef<int32_t>(start);
  AsyncValueRef<int32_t> last = MakeAvailableAsyncValueRef<int32_t>(end);
  std::vector<AsyncValue*> arguments = {first.GetAsyncValue(), last.GetAsyncValue()};
  for (auto& argument : state->arguments) arguments.push_back(argument.get());
  std::vector<RCReference<AsyncValue>> results(state->body->num_results());
  state->body->Execute(state->context, arguments, results);
  if (results.empty()) {
    state->Finish(1);
  } else {
    results[0]->AndThen([state, keep = results[0]] { state->Finish(1); });
  }
}

// Splits [first_block, last_block) by halving: the upper half is enqueued,
// this thread continues with the lower half, ending with the first block.
// Once the request is cancelled (deadline, kernel budget, Cancel) the blocks
// not yet started are skipped as a whole, so a cancelled loop of 2^31 blocks
// ends in a few steps instead of walking every block.
void RunBlocks(const std::shared_ptr<ParallelState>& state, int32_t start,
               int32_t end, int32_t block_size, int64_t first_block,
               int64_t last_block) {
  RequestContext* request = state->context.request_context();
  while (true) {
    if (AsyncValue* cancelled = request->GetCancelAsyncValue()) [[unlikely]] {
      AsyncValue* expected = nullptr;
      state->skipped_by.compare_exchange_strong(expected, cancelled,
                                                std::memory_order_acq_rel);
      state->Finish(last_block - first_block);
      return;
    }
    if (last_block - first_block <= 1) break;
    int64_t middle = first_block + (last_block - first_block) / 2;
    state->context.host()->EnqueueParallelWork([=] {
      RunBlocks(state, start, end, block_size, middle, last_block);
    });
    last_block = middle;
  }
  int64_t block_start = start + first_block * block_size;
  int64_t block_end = std::min<int64_t>(block_start + block_size, end);
  RunBlock(state, static_cast<int32_t>(block_start), static_cast<int32_t>(block_end));
}

void ParallelFor(AsyncKernelFrame* frame) {
  if (!CheckArgumentTypes<int32_t, int32_t, int32_t>(frame)) return;
  int32_t start = frame->GetArgAt(0)->get<int32_t>();
  int32_t end = frame->GetArgAt(1)->get<int32_t>();
  int32_t block_size = frame->GetArgAt(2)->get<int32_t>();
  const Function* body = frame->GetFunctionAt(0);
  auto extra = frame->GetArguments().subspan(3);
  bool chain_result = body->num_results() == 1 && body->result_types()[0] == "!tfrt.chain";
  if (!(body->num_results() == 0 || chain_result)) {
    frame->SetResultAt(0, MakeErrorAsyncValueRef(absl::InternalError(
                              "Invalid parallel body function result types")));
    return;
  }
  if (body->num_arguments() != extra.size() + 2) {
    frame->ReportError("parallel body does not take (start, end, operands...)");
    return;
  }
  int64_t total = int64_t{end} - start;
  if (total <= 0) {
    frame->SetResultAt(0, FormRef(GetReadyChainValue()));
    return;
  }
  int64_t size = block_size <= 0 ? total : std::min<int64_t>(block_size, total);
  auto state = std::make_shared<ParallelState>(frame->GetExecutionContext());
  state->body = body;
  state->arguments = CopyRefs(extra);
  int64_t blocks = (total + size - 1) / size;
  state->pending = blocks;
  state->done = MakeUnconstructedAsyncValueRef<Chain>();
  frame->SetResultAt(0, state->done.CopyRCRef());
  RunBlocks(state, start, end, static_cast<int32_t>(size), 0, blocks);
}

// These kernels work on the frame directly; their signatures say what they
// read so the loader checks records against them.
KernelDefinition<AsyncKernelImplementation> Raw(
    AsyncKernelImplementation kernel, std::vector<std::string_view> arguments,
    uint32_t functions, std::vector<uint8_t> attributes = {},
    std::vector<std::string_view> results = {}, bool variadic_results = true) {
  KernelSignature signature;
  signature.known = true;
  signature.arguments.assign(arguments.begin(), arguments.end());
  signature.results.assign(results.begin(), results.end());
  signature.attributes.assign(attributes.begin(), attributes.end());
  signature.num_functions = functions;
  signature.variadic_arguments = true;
  signature.variadic_results = variadic_results;
  signature.variadic_attributes = true;
  return {kernel, std::move(signature)};
}

void RegisterControlFlowKernels(KernelRegistry* registry) {
  const uint8_t i64 = static_cast<uint8_t>(DType::kI64);
  registry->AddKernel("tfrt.call", FunctionCall(Raw(&Call, {}, 1), FunctionCallKind::kCall));
  registry->AddKernel("tfrt.if", FunctionCall(Raw(&If, {"i1"}, 2), FunctionCallKind::kIf));
  registry->AddKernel("tfrt.cond", FunctionCall(Raw(&If, {"i1"}, 2), FunctionCallKind::kIf));
  registry->AddKernel("tfrt.case", Raw(&Case, {"i32"}, 0));
  registry->AddKernel("tfrt.repeat.i32", Raw(&RepeatI32, {"i32"}, 1));
  registry->AddKernel("tfrt.while", Raw(&While, {"i1"}, 1, {i64}));
  registry->AddKernel("tfrt.once", Raw(&Once, {}, 1));
  registry->AddKernel("tfrt.parallel_for.i32",
                      Raw(&ParallelFor, {"i32", "i32", "i32"}, 1, {}, {"!tfrt.chain"}, false));
  registry->AddKernel("tfrt.parallel_call.i32",
                      Raw(&ParallelFor, {"i32", "i32", "i32"}, 1, {}, {"!tfrt.chain"}, false));
}

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterControlFlowKernels, "tfrt");

}  // namespace
}  // namespace bef
