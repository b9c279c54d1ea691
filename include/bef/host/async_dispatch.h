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
//   absl::Status         an AsyncValueRef<Chain>: a chain, or the error.
// An error is reported at the kernel's location (the context's), as an
// error a kernel returns is.
//
// A work returning nothing is enqueued as it is and EnqueueWork returns
// nothing, as TFRT's EnqueueWork(exec_ctx, unique_function<void()>) does:
// the way a kernel fills a Result<> from a task (TFRT's async_copy_2):
//
//   void AsyncCopy(Argument<int32_t> in, Result<int32_t> out,
//                  const ExecutionContext& context) {
//     EnqueueWork(context, [out = out.Allocate(), in = *in] { out.emplace(in); });
//   }
//
// The executor keeps that one task and runs it as the kernel's deferred
// step, the kernel's users after it (execution_plan.h, "async call steps").
//
// Called by the executor as an async call step (docs/writing-kernels.md),
// EnqueueWork keeps `work` inline in the executor's capture block
// (internal::CapturedWork) when its result fits a register; a kernel that
// returns the value untouched then has its work run straight into its
// result's register, with no value published and no task made. A kernel
// that uses the value in any way gets the behaviour above.
//
// `work` captures what it reads by value: the kernel's operands are the
// executor's and may be gone when the task runs (copy the payload, or keep
// an AsyncValueRef from Argument<T>::ValueRef()).
#ifndef BEF_HOST_ASYNC_DISPATCH_H_
#define BEF_HOST_ASYNC_DISPATCH_H_

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bef/async/async_value_ref.h"
#include "bef/async/async_value.h"
#include "bef/host/execution_context.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_registry.h"

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

template <typename R>
struct IsStatusOr : std::false_type {};
template <typename T>
struct IsStatusOr<absl::StatusOr<T>> : std::true_type {};

// Runs `work` and makes `result` available with what it returns.
template <typename Payload, typename F>
void CompleteWork(const AsyncValueRef<Payload>& result, F& work, Location location) {
  using R = std::invoke_result_t<F&>;
  if constexpr (std::is_same_v<R, absl::Status>) {
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

// Whether the executor may keep `Work` (returning R) inline in an async
// call step's CapturedWork (host_context.h): a result that fits a payload
// register, a work small enough for the block.
template <typename R, typename Work>
inline constexpr bool kCapturableWork =
    std::is_trivially_copyable_v<typename WorkPayload<R>::type> &&
    sizeof(typename WorkPayload<R>::type) <= kDirectResultSize &&
    alignof(typename WorkPayload<R>::type) <= alignof(std::max_align_t) &&
    sizeof(ConcreteAsyncValue<typename WorkPayload<R>::type>) <= CapturedWork::kValueSize &&
    sizeof(Work) <= CapturedWork::kWorkSize && alignof(Work) <= 16;

// Whether the executor may keep `Work` in its result's payload register
// until it runs (CapturedWork::work_fits_register).
template <typename Work>
inline constexpr bool kWorkFitsRegister = std::is_trivially_copyable_v<Work> &&
                                          sizeof(Work) <= kDirectResultSize &&
                                          alignof(Work) <= kDirectResultSize;

template <typename Work>
absl::Status* RunWork(Work& work, void* payload) {
  using R = std::invoke_result_t<Work&>;
  using Payload = typename WorkPayload<R>::type;
  absl::Status* error = nullptr;
  if constexpr (std::is_same_v<R, absl::Status>) {
    absl::Status status = work();
    if (status.ok()) {
      ::new (payload) Chain();
    } else {
      error = new absl::Status(std::move(status));
    }
  } else if constexpr (IsStatusOr<R>::value) {
    R value = work();
    if (value.ok()) {
      ::new (payload) Payload(*std::move(value));
    } else {
      error = new absl::Status(std::move(value).status());
    }
  } else {
    ::new (payload) Payload(work());
  }
  work.~Work();
  return error;
}
template <typename Work>
absl::Status* RunCapturedWork(void* memory, void* payload) {
  if constexpr (kWorkFitsRegister<Work>) {
    // `memory` may be `payload`: the work's bytes read before its result
    // is written over them.
    alignas(Work) unsigned char bytes[sizeof(Work)];
    std::memcpy(bytes, memory, sizeof(Work));
    return RunWork(*std::launder(reinterpret_cast<Work*>(bytes)), payload);
  } else {
    return RunWork(*std::launder(static_cast<Work*>(memory)), payload);
  }
}
template <typename Work>
void CompleteCapturedWork(void* memory, AsyncValue* value, Location location) {
  using Payload = typename WorkPayload<std::invoke_result_t<Work&>>::type;
  Work& work = *std::launder(static_cast<Work*>(memory));
  CompleteWork(AsyncValueRef<Payload>(FormRef(value)), work, location);
  work.~Work();
}
template <typename Work>
void DestroyCapturedWork(void* memory) {
  std::launder(static_cast<Work*>(memory))->~Work();
}

// EnqueueWork's own task: `work` completes the value from a task of the
// work queue. Out of line, so EnqueueWork's kept-inline path stays a few
// instructions in the kernel.
template <typename Payload, typename Work>
[[gnu::noinline]] AsyncValueRef<Payload> EnqueueWorkTask(const ExecutionContext& context,
                                                         Work&& work) {
  // Called by the executor as an async call step: the kernel's location.
  CapturedWork* captured = internal::CaptureOf(context.host());
  const Location location = captured != nullptr ? captured->location : context.location();
  AsyncValueRef<Payload> result = MakeUnconstructedAsyncValueRef<Payload>();
  context.host()->EnqueueWork(
      [result = result.CopyRef(), work = std::move(work), location]() mutable {
        internal::CompleteWork(result, work, location);
      });
  return result;
}
}  // namespace internal

// clang-format off
template <typename F>
  requires(!std::is_void_v<std::invoke_result_t<std::decay_t<F>&>>)
[[nodiscard]] AsyncValueRef<typename internal::WorkPayload<std::invoke_result_t<F&>>::type>
EnqueueWork(const ExecutionContext& context, F&& work) {
  // clang-format on
  using Work = std::decay_t<F>;
  using R = std::invoke_result_t<F&>;
  using Payload = typename internal::WorkPayload<R>::type;
  if constexpr (internal::kCapturableWork<R, Work>) {
    internal::CapturedWork* captured = internal::CaptureOf(context.host());
    if (captured != nullptr && !captured->HasWork()) [[likely]] {
      // Called by the executor as an async call step: the work kept inline
      // (the executor reports its errors at the kernel's location).
      ::new (static_cast<void*>(captured->work)) Work(std::forward<F>(work));
      captured->run = &internal::RunCapturedWork<Work>;
      captured->complete = &internal::CompleteCapturedWork<Work>;
      captured->destroy = &internal::DestroyCapturedWork<Work>;
      captured->tasks_before_work = captured->num_tasks;
      captured->work_fits_register = internal::kWorkFitsRegister<Work>;
      // Two references: the kernel's and the executor's.
      auto* value = ::new (static_cast<void*>(captured->value)) ConcreteAsyncValue<Payload>(
          typename ConcreteAsyncValue<Payload>::UnconstructedTag(), 2);
      return AsyncValueRef<Payload>(TakeRef<AsyncValue>(value));
    }
  }
  return internal::EnqueueWorkTask<Payload, Work>(context, Work(std::forward<F>(work)));
}

// A work returning nothing: one task, nothing returned (see the top).
// clang-format off
template <typename F>
  requires(std::is_void_v<std::invoke_result_t<std::decay_t<F>&>>)
void EnqueueWork(const ExecutionContext& context, F&& work) {
  // clang-format on
  context.host()->EnqueueWork(std::forward<F>(work));
}

}  // namespace bef

#endif  // BEF_HOST_ASYNC_DISPATCH_H_
