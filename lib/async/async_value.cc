#include "bef/async/async_value.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bef/async/async_value_ref.h"

namespace bef {
namespace internal {

AsyncValueTypeInfo async_value_types[kMaxAsyncValueTypes];

uint16_t RegisterAsyncValueType(AsyncValueTypeInfo info) {
  // Id 0 stays unused so a zeroed value is recognizably invalid.
  static std::atomic<uint16_t> next_id{1};
  uint16_t id = next_id.fetch_add(1, std::memory_order_relaxed);
  if (id >= kMaxAsyncValueTypes) {
    std::fprintf(stderr, "bef: more than %u AsyncValue payload types\n",
                 unsigned{kMaxAsyncValueTypes});
    std::abort();
  }
  async_value_types[id] = info;
  return id;
}

namespace {
void DestroyIndirect(AsyncValue* value) {
  delete static_cast<IndirectAsyncValue*>(value);
}
void NoPayload(AsyncValue*) {}

uint16_t IndirectTypeId() {
  static const uint16_t id =
      RegisterAsyncValueType({&DestroyIndirect, &NoPayload});
  return id;
}
}  // namespace
}  // namespace internal

namespace {

internal::WaiterNode* WaitersOf(uintptr_t word) {
  return reinterpret_cast<internal::WaiterNode*>(word & ~uintptr_t{3});
}

// Waiters run synchronously, and a waiter may make another value available
// whose waiters run in turn: a chain of forwarded indirect values (a call
// chain 100,000 levels deep) would recurse as deep. Past kMaxWaiterNesting
// nested notifications, lists are queued on this thread instead and run by
// the outermost notification's loop, so the stack stays bounded. Below that
// depth waiters run exactly in place.
constexpr int kMaxWaiterNesting = 64;
thread_local int waiter_nesting = 0;
// Lists deferred past kMaxWaiterNesting, run when the nesting returns to 0.
thread_local std::vector<internal::WaiterNode*> deferred_waiters;

void RunList(internal::WaiterNode* node) {
  while (node != nullptr) {
    internal::WaiterNode* next = node->next;
    node->run_and_delete(node);
    node = next;
  }
}

[[gnu::noinline]] void RunDeferredWaiters() {
  // Running a deferred list may defer more, at most one level down each
  // time.
  while (!deferred_waiters.empty()) {
    internal::WaiterNode* list = deferred_waiters.back();
    deferred_waiters.pop_back();
    ++waiter_nesting;
    RunList(list);
    --waiter_nesting;
  }
}

void RunWaiters(internal::WaiterNode* node) {
  if (node == nullptr) return;
  if (waiter_nesting >= kMaxWaiterNesting) [[unlikely]] {
    deferred_waiters.push_back(node);
    return;
  }
  ++waiter_nesting;
  RunList(node);
  --waiter_nesting;
  // The outermost notification drains what deeper ones deferred.
  if (waiter_nesting == 0 && !deferred_waiters.empty()) [[unlikely]] RunDeferredWaiters();
}

}  // namespace

void AsyncValue::DeleteError() { delete error_; }

const ErrorInfo& AsyncValue::GetErrorInfo() const {
  const AsyncValue* value = this;
  while (value->indirect_) {
    value = static_cast<const IndirectAsyncValue*>(value)->forwarded();
  }
  return *value->error_;
}

void AsyncValue::EnqueueWaiter(internal::WaiterNode* node) {
  uintptr_t old = waiters_and_state_.load(std::memory_order_acquire);
  while (true) {
    if ((old & kStateMask) >= static_cast<uintptr_t>(State::kConcrete)) {
      node->run_and_delete(node);
      return;
    }
    node->next = WaitersOf(old);
    uintptr_t desired = reinterpret_cast<uintptr_t>(node) | (old & kStateMask);
    if (waiters_and_state_.compare_exchange_weak(old, desired,
                                                 std::memory_order_acq_rel,
                                                 std::memory_order_acquire)) {
      return;
    }
  }
}

void AsyncValue::NotifyStateChange(State state) {
  if (state < State::kConcrete) {
    // Constructed: keep the waiters, change only the state bits.
    uintptr_t old = waiters_and_state_.load(std::memory_order_acquire);
    while (!waiters_and_state_.compare_exchange_weak(
        old, (old & ~kStateMask) | static_cast<uintptr_t>(state),
        std::memory_order_acq_rel, std::memory_order_acquire)) {
    }
    return;
  }
  PublishAvailable(state);
}

void AsyncValue::SetError(absl::Status status, Location location) {
  assert(!indirect_ && "forward an error value to an indirect value instead");
  assert(IsUnavailable());
  if (IsConstructed()) internal::async_value_types[type_id_].destroy_payload(this);
  error_ = new ErrorInfo{std::move(status), location};
  NotifyStateChange(State::kError);
}

void AsyncValue::SetStateConcrete() {
  assert(IsConstructed());
  PublishConcrete();
}

void AsyncValue::RunWaitersOfWord(uintptr_t word) { RunWaiters(WaitersOf(word)); }

IndirectAsyncValue::IndirectAsyncValue()
    : AsyncValue(internal::IndirectTypeId(), State::kUnconstructed, true) {}

IndirectAsyncValue::~IndirectAsyncValue() {
  if (value_ != nullptr) value_->DropRef();
}

void IndirectAsyncValue::ForwardTo(RCReference<AsyncValue> value) {
  assert(value_ == nullptr);
  if (value->IsAvailable()) {
    // Collapse chains of forwarded indirect values.
    while (value->IsIndirect()) {
      value = FormRef(static_cast<IndirectAsyncValue*>(value.get())->value_);
    }
    State state = value->state();
    value_ = value.release();
    NotifyStateChange(state);
    return;
  }
  AsyncValue* target = value.get();
  AddRef();  // kept alive until the target is available
  target->AndThen([self = this, value = std::move(value)]() mutable {
    self->ForwardTo(std::move(value));
    self->DropRef();
  });
}

RCReference<AsyncValue> MakeErrorAsyncValueRef(absl::Status status,
                                               Location location) {
  auto* value = new ConcreteAsyncValue<internal::ErrorPayload>(
      ConcreteAsyncValue<internal::ErrorPayload>::UnconstructedTag());
  value->SetError(std::move(status), location);
  return TakeRef<AsyncValue>(value);
}

RCReference<IndirectAsyncValue> MakeIndirectAsyncValue() {
  return TakeRef(new IndirectAsyncValue());
}

AsyncValue* GetReadyChainValue() {
  static auto* chain = ConcreteAsyncValue<Chain>::MakeStatic(
      new ConcreteAsyncValue<Chain>(ConcreteAsyncValue<Chain>::ConcreteTag()));
  return chain;
}

}  // namespace bef
