// FastPathPolicy: which of the executor's fast paths one execution may
// take, in one place. Every path gives the same results and errors
// (docs/architecture.md); the request decides which are allowed:
//
//   straight-line plan  (straight_line.cc) a function of synchronous direct
//                       kernels runs as a list of calls on payload
//                       registers: allowed unless the execution is traced
//                       or the request already cancelled; a kernel budget is
//                       charged for the whole run up front (refused, nothing
//                       charged, when it could run out on the way);
//   segments            (segment_runner.cc) the kernels of a segment (direct
//                       kernels, call steps, deferred and async call steps,
//                       execution_plan.h) run on payload registers without
//                       frames: allowed unless the execution is traced, the
//                       request has a kernel budget (charged per kernel, by
//                       the frame path) or is cancelled; a segment that may
//                       not runs its kernels one by one through their frames.
//
// Tracing is decided once, when the execution starts (a trace started
// mid-execution covers the next ones); budget and cancellation are looked at
// as the execution goes, since a request may be cancelled or given a budget
// at any time.
#ifndef BEF_LIB_EXECUTOR_FAST_PATH_POLICY_H_
#define BEF_LIB_EXECUTOR_FAST_PATH_POLICY_H_

#include <cstdint>

#include "bef/host/execution_context.h"
#include "bef/host/tracing.h"

namespace bef {

class FastPathPolicy {
 public:
  explicit FastPathPolicy(const ExecutionContext& context)
      : request_(context.request_context()), traced_(IsTracing()) {}

  bool traced() const { return traced_; }
  [[gnu::always_inline]] bool cancelled() const { return Cancelled(request_); }
  // The same, for loops that keep the request pointer in a machine register
  // (the straight-line interpreter's).
  [[gnu::always_inline]] static bool Cancelled(const RequestContext* request) {
    return request->GetCancelAsyncValue() != nullptr;
  }
  RequestContext* request() const { return request_; }

  [[gnu::always_inline]] bool DirectKernelsAllowed() const {
    return !traced_ && !request_->has_kernel_budget() && !cancelled();
  }
  [[gnu::always_inline]] bool StraightLineAllowed() const {
    return !traced_ && !cancelled();
  }
  // Charges the kernel budget, if any, for `kernels` kernels up front;
  // false, charging nothing, when that could exhaust it (the dataflow path
  // then stops at the exact kernel), or when the number is not `known`
  // before the run (a tfrt.if or while loop on the way).
  [[gnu::always_inline]] bool ChargeStraightLine(int64_t kernels, bool known) const {
    return !request_->has_kernel_budget() ||
           (known && request_->TryConsumeKernelBudget(kernels));
  }

 private:
  RequestContext* request_;
  bool traced_;
};

}  // namespace bef

#endif  // BEF_LIB_EXECUTOR_FAST_PATH_POLICY_H_
