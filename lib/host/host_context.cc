#include "bef/host/host_context.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace bef {
namespace internal {

constinit thread_local CapturedWork* captured_work = nullptr;

int NextSharedContextId() {
  static std::atomic<int> next{0};
  int id = next.fetch_add(1);
  if (id >= kMaxSharedContexts) {
    std::fprintf(stderr, "bef: more than %d shared context types\n",
                 kMaxSharedContexts);
    std::abort();
  }
  return id;
}

}  // namespace internal

void HostContext::Capture(internal::CapturedWork& captured, TaskFunction task) {
  if (captured.num_tasks == 0) {
    captured.KeepFirstTask(std::move(task));
    return;
  }
  ++captured.num_tasks;
  if (captured.more_tasks == nullptr) captured.more_tasks = new std::vector<TaskFunction>;
  captured.more_tasks->push_back(std::move(task));
}

HostContext::HostContext(DiagnosticHandler diagnostic_handler,
                         std::unique_ptr<HostAllocator> allocator,
                         std::unique_ptr<ConcurrentWorkQueue> work_queue)
    : allocator_(std::move(allocator)),
      diagnostic_handler_(std::move(diagnostic_handler)),
      work_queue_(std::move(work_queue)) {}

HostContext::~HostContext() {
  work_queue_->Quiesce();
  for (auto& context : shared_contexts_) {
    delete context.exchange(nullptr);
  }
  work_queue_.reset();
}

void HostContext::EmitError(const DecodedDiagnostic& diagnostic) const {
  if (diagnostic_handler_) diagnostic_handler_(diagnostic);
}

void HostContext::Await(std::span<const RCReference<AsyncValue>> values) {
  std::vector<AsyncValue*> pointers;
  pointers.reserve(values.size());
  for (const auto& value : values) pointers.push_back(value.get());
  work_queue_->Await(pointers);
}

}  // namespace bef
