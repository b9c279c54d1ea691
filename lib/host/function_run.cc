#include "bef/host/function_run.h"

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
