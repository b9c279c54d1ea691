// Native functions (docs/executor-semantics.md §8): called at once when every
// argument is available, otherwise once they are, with placeholder results
// forwarded afterwards.
#include <vector>

#include "bef/async/async_value_ref.h"
#include "bef/host/execution_context.h"
#include "lib/executor/functions.h"

namespace bef {

void NativeBefFunction::Execute(const ExecutionContext& context,
                                std::span<AsyncValue* const> arguments,
                                std::span<RCReference<AsyncValue>> results) const {
  bool available = true;
  for (AsyncValue* argument : arguments) available &= argument->IsAvailable();
  HostContext* host = context.host();
  if (available) {
    callable_(arguments, results, host);
    return;
  }
  std::vector<RCReference<AsyncValue>> argument_refs = CopyRefs(arguments);
  std::vector<AsyncValue*> argument_values(arguments.begin(), arguments.end());
  std::vector<RCReference<IndirectAsyncValue>> placeholders;
  for (auto& result : results) {
    placeholders.push_back(MakeIndirectAsyncValue());
    result = placeholders.back();
  }
  NativeCallable callable = callable_;
  RunWhenReady(argument_values,
               [callable, host, argument_refs = std::move(argument_refs),
                placeholders = std::move(placeholders)]() mutable {
                 std::vector<AsyncValue*> values;
                 for (auto& argument : argument_refs) values.push_back(argument.get());
                 std::vector<RCReference<AsyncValue>> outputs(placeholders.size());
                 callable(values, outputs, host);
                 for (size_t i = 0; i < outputs.size(); ++i) {
                   placeholders[i]->ForwardTo(std::move(outputs[i]));
                 }
               });
}

}  // namespace bef
