// EnqueueWork(context, work): the kernel author's way to compute a result on
// a work-queue task, as TFRT's async_dispatch.h offers it.
//
//   AsyncValueRef<int32_t> AsyncAdd(Argument<int32_t> a, Argument<int32_t> b,
//                                    const ExecutionContext& context) {
//     return EnqueueWork(context, [a = *a, b = *b] { return a + b; });
//   }
//
// `work` runs once, on a task of the execution's work queue (traced like
// every task when tracing is on); the returned value becomes available with
// what it returns:
//   R                    an AsyncValueRef<R> holding it;
//   absl::StatusOr<T>    an AsyncValueRef<T> holding the T, or the error;
//   absl::Status         an AsyncValueRef<Chain>: a chain, or the error;
//   void                 an AsyncValueRef<Chain>, a chain when work ends.
// An error is reported at the kernel's location (the context's), as an
// error a kernel returns is.
//
// `work` captures what it reads by value: the kernel's operands are the
// executor's and may be gone when the task runs (copy the payload, or keep
// an AsyncValueRef from Argument<T>::ValueRef()).
#ifndef BEF_HOST_ASYNC_DISPATCH_H_
#define BEF_HOST_ASYNC_DISPATCH_H_

#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bef/async/async_value_ref.h"
#include "bef/async/async_value.h"
#include "bef/host/execution_context.h"
#include "bef/host/host_context.h"

namespace bef {
namespace internal {

// The payload type of what EnqueueWork returns for `work` returning R.
template <typename R>
struct WorkPayload {
  using type = R;
};
template <typename T>
struct WorkPayload<absl::StatusOr<T>> {
  using type = T;
};
template <>
struct WorkPayload<absl::Status> {
  using type = Chain;
};
template <>
struct WorkPayload<void> {
  using type = Chain;
};

template <typename R>
struct IsStatusOr : std::false_type {};
template <typename T>
struct IsStatusOr<absl::StatusOr<T>> : std::true_type {};

// Runs `work` and makes `result` available with what it returns.
template <typename Payload, typename F>
void CompleteWork(const AsyncValueRef<Payload>& result, F& work, Location location) {
  using R = std::invoke_result_t<F&>;
  if constexpr (std::is_void_v<R>) {
    work();
    result.emplace();
  } else if constexpr (std::is_same_v<R, absl::Status>) {
    absl::Status status = work();
    if (status.ok()) {
      result.emplace();
    } else {
      result.SetError(std::move(status), location);
    }
  } else if constexpr (IsStatusOr<R>::value) {
    R value = work();
    if (value.ok()) {
      result.emplace(*std::move(value));
    } else {
      result.SetError(std::move(value).status(), location);
    }
  } else {
    result.emplace(work());
  }
}

}  // namespace internal

template <typename F>
[[nodiscard]] AsyncValueRef<typename internal::WorkPayload<std::invoke_result_t<F&>>::type>
EnqueueWork(const ExecutionContext& context, F&& work) {
  using Payload = typename internal::WorkPayload<std::invoke_result_t<F&>>::type;
  AsyncValueRef<Payload> result = MakeUnconstructedAsyncValueRef<Payload>();
  context.host()->EnqueueWork(
      [result = result.CopyRef(), work = std::forward<F>(work),
       location = context.location()]() mutable {
        internal::CompleteWork(result, work, location);
      });
  return result;
}

}  // namespace bef

#endif  // BEF_HOST_ASYNC_DISPATCH_H_
