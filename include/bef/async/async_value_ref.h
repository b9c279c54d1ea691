// AsyncValueRef<T>: the typed, owning handle to an AsyncValue holding a T,
// and the helpers that make values.
//
//   AsyncValueRef<int32_t> ready = MakeAvailableAsyncValueRef<int32_t>(7);
//   AsyncValueRef<int32_t> later = MakeUnconstructedAsyncValueRef<int32_t>();
//   later.emplace(8);                        // or later.SetError(status)
//   RCReference<AsyncValue> error = MakeErrorAsyncValueRef(status);
//   RunWhenReady(values, [] { ... });        // when all are available
#ifndef BEF_ASYNC_ASYNC_VALUE_REF_H_
#define BEF_ASYNC_ASYNC_VALUE_REF_H_

#include <atomic>
#include <span>
#include <vector>
#include <utility>

#include "absl/status/status.h"
#include "bef/async/async_value.h"
#include "bef/async/rc_reference.h"

namespace bef {

template <typename T>
class AsyncValueRef {
 public:
  AsyncValueRef() = default;
  AsyncValueRef(std::nullptr_t) {}  // NOLINT: like a pointer
  // Adopts a reference to a value that holds (or will hold) a T.
  explicit AsyncValueRef(RCReference<AsyncValue> value)
      : value_(std::move(value)) {}

  AsyncValue* GetAsyncValue() const { return value_.get(); }
  AsyncValue* operator->() const { return value_.get(); }
  explicit operator bool() const { return static_cast<bool>(value_); }

  bool IsAvailable() const { return value_->IsAvailable(); }
  bool IsConcrete() const { return value_->IsConcrete(); }
  bool IsError() const { return value_->IsError(); }
  const absl::Status& GetError() const { return value_->GetError(); }

  // REQUIRES: concrete.
  T& get() const { return value_->template get<T>(); }
  T& operator*() const { return get(); }

  template <typename... Args>
  void emplace(Args&&... args) const {
    value_->template emplace<T>(std::forward<Args>(args)...);
  }
  void SetError(absl::Status status, Location location = {}) const {
    value_->SetError(std::move(status), location);
  }
  void SetStateConcrete() const { value_->SetStateConcrete(); }
  template <typename F>
  void AndThen(F&& callback) const {
    value_->AndThen(std::forward<F>(callback));
  }

  AsyncValueRef CopyRef() const { return AsyncValueRef(value_.CopyRef()); }
  RCReference<AsyncValue> CopyRCRef() const { return value_.CopyRef(); }
  RCReference<AsyncValue> ReleaseRCRef() { return std::move(value_); }
  AsyncValue* release() { return value_.release(); }
  void reset() { value_.reset(); }

 private:
  RCReference<AsyncValue> value_;
};

// A value that is available at once.
template <typename T, typename... Args>
AsyncValueRef<T> MakeAvailableAsyncValueRef(Args&&... args) {
  return AsyncValueRef<T>(TakeRef<AsyncValue>(new ConcreteAsyncValue<T>(
      typename ConcreteAsyncValue<T>::ConcreteTag(),
      std::forward<Args>(args)...)));
}

// A value whose payload is built and published later (emplace / SetError).
template <typename T>
AsyncValueRef<T> MakeUnconstructedAsyncValueRef() {
  return AsyncValueRef<T>(TakeRef<AsyncValue>(new ConcreteAsyncValue<T>(
      typename ConcreteAsyncValue<T>::UnconstructedTag())));
}

// A value whose payload is built now and published later
// (SetStateConcrete).
template <typename T, typename... Args>
AsyncValueRef<T> MakeConstructedAsyncValueRef(Args&&... args) {
  return AsyncValueRef<T>(TakeRef<AsyncValue>(new ConcreteAsyncValue<T>(
      typename ConcreteAsyncValue<T>::ConstructedTag(),
      std::forward<Args>(args)...)));
}

// An error value (of no payload type).
RCReference<AsyncValue> MakeErrorAsyncValueRef(absl::Status status,
                                               Location location = {});

// A placeholder to forward later (IndirectAsyncValue::ForwardTo).
RCReference<IndirectAsyncValue> MakeIndirectAsyncValue();

// A new reference to each of `values`.
inline std::vector<RCReference<AsyncValue>> CopyRefs(
    std::span<AsyncValue* const> values) {
  std::vector<RCReference<AsyncValue>> references;
  references.reserve(values.size());
  for (AsyncValue* value : values) references.push_back(FormRef(value));
  return references;
}

// The process-wide available chain; not reference counted.
AsyncValue* GetReadyChainValue();
inline AsyncValueRef<Chain> GetReadyChain() {
  return AsyncValueRef<Chain>(FormRef(GetReadyChainValue()));
}

// Runs `callback` once every value in `values` is available (at once if they
// already are), on the thread that makes the last one available.
template <typename F>
void RunWhenReady(std::span<AsyncValue* const> values, F&& callback) {
  size_t pending = 0;
  for (AsyncValue* value : values) pending += value->IsUnavailable();
  if (pending == 0) {
    callback();
    return;
  }
  if (pending == 1) {
    for (AsyncValue* value : values) {
      if (value->IsUnavailable()) {
        value->AndThen(std::forward<F>(callback));
        return;
      }
    }
  }
  struct Counter {
    explicit Counter(size_t count, F&& f)
        : remaining(count), callback(std::forward<F>(f)) {}
    std::atomic<size_t> remaining;
    std::decay_t<F> callback;
  };
  auto* counter = new Counter(pending, std::forward<F>(callback));
  for (AsyncValue* value : values) {
    if (value->IsAvailable()) continue;
    value->AndThen([counter] {
      if (counter->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        counter->callback();
        delete counter;
      }
    });
  }
}

}  // namespace bef

#endif  // BEF_ASYNC_ASYNC_VALUE_REF_H_
