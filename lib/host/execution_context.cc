#include "bef/host/execution_context.h"

#include "absl/strings/str_cat.h"

#include "bef/async/async_value_ref.h"
#include "bef/host/host_context.h"

namespace bef {

RCReference<RequestContext> RequestContext::Create(HostContext* host,
                                                   ResourceContext* resources,
                                                   int64_t id) {
  return TakeRef(new RequestContext(host, resources, id));
}

RequestContext::~RequestContext() {
  if (deadline_) {
    std::lock_guard<std::mutex> lock(deadline_->mutex);
    deadline_->request = nullptr;
    host_->timer_queue().Cancel(deadline_->timer);
  }
  if (AsyncValue* cancel = cancel_value_.load()) cancel->DropRef();
  // Ended uncancelled: whoever waits on the signal stops waiting on it.
  if (cancellation_signal_) cancellation_signal_->emplace<Chain>();
}

void RequestContext::SetKernelBudget(int64_t kernels) {
  kernel_budget_limit_ = kernels;
  kernel_budget_.store(kernels, std::memory_order_relaxed);
  has_kernel_budget_.store(true, std::memory_order_release);
  if (kernels <= 0) ExhaustKernelBudget();
}

void RequestContext::ExhaustKernelBudget() {
  Cancel(absl::ResourceExhaustedError(absl::StrCat(
      "kernel budget of ", kernel_budget_limit_, " kernels exhausted")));
}

void RequestContext::Cancel(absl::Status status) {
  RCReference<AsyncValue> error = MakeErrorAsyncValueRef(status);
  AsyncValue* expected = nullptr;
  if (!cancel_value_.compare_exchange_strong(expected, error.get(),
                                             std::memory_order_acq_rel)) {
    return;
  }
  error.release();  // owned by the request now
  // A signal made before the cancellation gets its error (its waiters run
  // here, without the lock); one asked for from now on is the error value.
  RCReference<AsyncValue> signal;
  {
    std::lock_guard<std::mutex> lock(data_mutex_);
    signal = std::move(cancellation_signal_);
  }
  if (signal) signal->SetError(std::move(status));
}

RCReference<AsyncValue> RequestContext::CancellationSignal() {
  std::lock_guard<std::mutex> lock(data_mutex_);
  // Cancel publishes the error value before it takes the signal, under
  // this lock: either the error is seen here, or Cancel takes the signal.
  if (AsyncValue* cancelled = GetCancelAsyncValue()) return FormRef(cancelled);
  if (!cancellation_signal_) {
    cancellation_signal_ = MakeUnconstructedAsyncValueRef<Chain>().ReleaseRCRef();
  }
  return cancellation_signal_;
}

void RequestContext::SetDeadline(absl::Time deadline) {
  if (deadline <= absl::Now()) {
    Cancel(absl::DeadlineExceededError("Deadline exceeded"));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(data_mutex_);
    if (!deadline_) {
      deadline_ = std::make_shared<DeadlineState>();
      deadline_->request = this;
    }
  }
  std::shared_ptr<DeadlineState> state = deadline_;
  std::lock_guard<std::mutex> lock(state->mutex);
  if (state->timer != 0) host_->timer_queue().Cancel(state->timer);
  state->timer = host_->timer_queue().ScheduleAt(deadline, [state] {
    // Cancel runs the waiters of the request's cancellation signal, which
    // may drop the last reference to the request (a caller that stops
    // waiting and lets its run go): the destructor takes state->mutex, so
    // the request is cancelled through a reference taken under the lock,
    // with the lock released. A request already being destroyed (no
    // reference left) is not revived.
    RCReference<RequestContext> request;
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      if (state->request != nullptr && state->request->TryAddRef()) {
        request = TakeRef(state->request);
      }
    }
    if (request) request->Cancel(absl::DeadlineExceededError("Deadline exceeded"));
  });
}

}  // namespace bef
