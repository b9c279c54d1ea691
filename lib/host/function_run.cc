#include "bef/host/function_run.h"

#include <atomic>
#include <memory>
#include <utility>

#include "bef/async/async_value_ref.h"
#include "bef/support/debug_check.h"

namespace bef {

FunctionRun::FunctionRun(const Function& function, HostContext* host,
                           ResourceContext* resources,
                           std::vector<RCReference<AsyncValue>> inputs,
                           std::shared_ptr<const void> keep_alive, int64_t request_id)
    : function_(&function),
      request_(RequestContext::Create(host, resources, request_id)),
      results_(function.num_results()) {
  BEF_DEBUG_CHECK(inputs.size() == NumInputs(function),
                  "a run takes one value per non-chain argument");
  // The request holds the owner until its last kernel has run (the executor
  // keeps the request while any of its work is queued).
  if (keep_alive) request_->KeepAlive(std::move(keep_alive));
  arguments_.reserve(function.num_arguments());
  size_t next_input = 0;
  for (std::string_view type : function.argument_types()) {
    if (type == kChainTypeName) {
      arguments_.push_back(FormRef(GetReadyChainValue()));
    } else {
      arguments_.push_back(std::move(inputs[next_input++]));
    }
  }
}

size_t FunctionRun::NumInputs(const Function& function) {
  size_t count = 0;
  for (std::string_view type : function.argument_types()) count += type != kChainTypeName;
  return count;
}

void FunctionRun::Execute() {
  absl::InlinedVector<AsyncValue*, 4> pointers;
  pointers.reserve(arguments_.size());
  for (const RCReference<AsyncValue>& argument : arguments_) pointers.push_back(argument.get());
  ExecutionContext context(request_);
  function_->Execute(context, pointers, results_);
}

RCReference<AsyncValue> FunctionRun::Done() {
  // Exactly the results counted get a waiter (one may become available
  // meanwhile: AndThen then runs its waiter at once).
  absl::InlinedVector<AsyncValue*, 4> unavailable;
  for (const RCReference<AsyncValue>& result : results_) {
    if (result->IsUnavailable()) unavailable.push_back(result.get());
  }
  if (unavailable.empty()) return FormRef(GetReadyChainValue());  // the usual case
  // Whichever comes first: the last result, or the cancellation. A result
  // that is never completed keeps this state (not a thread) for good.
  struct State {
    explicit State(size_t pending) : pending(pending) {}
    std::atomic<size_t> pending;
    std::atomic<bool> fired{false};
    AsyncValueRef<Chain> done = MakeUnconstructedAsyncValueRef<Chain>();
    void Fire() {
      if (!fired.exchange(true, std::memory_order_acq_rel)) done.emplace();
    }
  };
  auto state = std::make_shared<State>(unavailable.size());
  RCReference<AsyncValue> done = state->done.CopyRCRef();
  for (AsyncValue* result : unavailable) {
    result->AndThen([state] {
      if (state->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) state->Fire();
    });
  }
  RCReference<AsyncValue> signal = request_->CancellationSignal();
  // (The waiter runs while the signal is alive: from its completion, or
  // here, where `signal` holds it.)
  AsyncValue* const cancellation = signal.get();
  signal->AndThen([state, cancellation] {
    if (cancellation->IsError()) state->Fire();  // cancelled, not ended
  });
  return done;
}

void FunctionRun::Settle() {
  AsyncValue* cancelled = request_->GetCancelAsyncValue();
  for (RCReference<AsyncValue>& result : results_) {
    if (!result->IsUnavailable()) continue;
    BEF_DEBUG_CHECK(cancelled != nullptr, "Settle before Done is available");
    result = FormRef(cancelled);
  }
}

int FunctionRun::FirstErrorResult() const {
  for (size_t i = 0; i < results_.size(); ++i) {
    if (results_[i]->IsError()) return static_cast<int>(i);
  }
  return -1;
}

std::vector<RCReference<AsyncValue>> FunctionRun::TakeOutputs() {
  std::vector<RCReference<AsyncValue>> outputs;
  outputs.reserve(results_.size());
  const std::vector<std::string_view>& types = function_->result_types();
  for (size_t i = 0; i < results_.size(); ++i) {
    if (types[i] != kChainTypeName) outputs.push_back(std::move(results_[i]));
  }
  return outputs;
}

}  // namespace bef
