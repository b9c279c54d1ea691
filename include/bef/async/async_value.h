// AsyncValue: a reference-counted value that becomes available later -- the
// one thing that flows between kernels.
//
// States: unconstructed -> (constructed) -> concrete | error. Once available
// (concrete or error) a value never changes. An *indirect* value is a
// placeholder that is later forwarded to another value and from then on
// behaves as that value.
//
//   AsyncValueRef<int32_t> v = MakeUnconstructedAsyncValueRef<int32_t>();
//   v.AndThen([v = v.CopyRef()] { use(v.get()); });   // runs when set
//   v.emplace(42);                                       // runs the waiter
//
// Design (see docs/architecture.md): no virtual functions and no RTTI. The
// payload type is a small integer id into a process-wide table that holds
// the object's deleter; the state and the lock-free waiter list share one
// atomic word; waiters run synchronously on the thread that makes the value
// available, in reverse order of registration (as TFRT's do), or at once if
// the value is already available. The reference count is atomic; values
// created as process-wide constants (the ready chain) are not counted.
//
// Thread safety: every member may be called concurrently, except that a
// value must be made available (emplace / SetError / SetStateConcrete /
// ForwardTo) exactly once, and get<T>() requires that it is concrete.
#ifndef BEF_ASYNC_ASYNC_VALUE_H_
#define BEF_ASYNC_ASYNC_VALUE_H_

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "bef/async/location.h"
#include "bef/async/rc_reference.h"

namespace bef {

// The payload of values that only order work.
struct Chain {};

// What an error value holds: the status and where it was raised.
struct ErrorInfo {
  absl::Status status;
  Location location;
};

class AsyncValue;

namespace internal {

struct AsyncValueTypeInfo {
  // Destroys the payload (as the state requires) and frees the object.
  void (*destroy)(AsyncValue* value);
  // Destroys a constructed payload in place (before an error replaces it).
  void (*destroy_payload)(AsyncValue* value);
};

inline constexpr uint16_t kMaxAsyncValueTypes = 4096;

// Memory for AsyncValue objects: small sizes come from per-thread free
// lists (no malloc on the executor's hot path), others from malloc. Blocks
// are 16-aligned. Sanitizer builds use malloc only, so use-after-free
// stays detectable. Taking a block from the thread's list is inline (every
// result value of the executor is allocated here); the rest is in
// value_memory.cc.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kValueFreeLists = false;
#else
inline constexpr bool kValueFreeLists = true;
#endif
inline constexpr size_t kValueGranule = 16;
// 16, 32, ..., 1024 bytes: values, waiter nodes, and the invocations of
// small functions (loop and call bodies: a few hundred bytes each).
inline constexpr size_t kValueSizeClasses = 64;
struct FreeValueBlock {
  FreeValueBlock* next;
};
// Trivial and constant-initialized, so every access is a plain
// thread-local load (no initialization guard or wrapper call); the blocks
// are freed at thread exit (value_memory.cc).
struct ValueFreeLists {
  FreeValueBlock* heads[kValueSizeClasses];
  uint32_t counts[kValueSizeClasses];
  bool cleanup_registered;
  bool dead;  // the thread is exiting: malloc/free only from here on
  // cleanup_registered && !dead: FreeValueMemory may push inline.
  bool inline_free;
};
// The most blocks a thread's list of class `index` keeps (value_memory.cc
// hands a batch to the process-wide store beyond it).
inline constexpr uint32_t kMaxCachedValueBlocks = 4096;       // classes up to 256 bytes
inline constexpr uint32_t kMaxCachedLargeValueBlocks = 256;   // larger classes
inline constexpr uint32_t MaxCachedValueBlocks(size_t index) {
  return index < 16 ? kMaxCachedValueBlocks : kMaxCachedLargeValueBlocks;
}
extern constinit thread_local ValueFreeLists value_free_lists;
void* AllocateValueMemoryFromMalloc(size_t size);
void FreeValueMemoryToListOrMalloc(void* pointer, size_t size);
// Full batches of blocks of `size`'s class waiting in the process-wide
// transfer store (value_memory.cc), for tests.
int ValueTransferBatchesForTesting(size_t size);
// Takes / releases the transfer store's lock of `size`'s class, as a thread
// inside TakeBatch or GiveBatch holds it, for tests.
void HoldValueTransferStoreForTesting(size_t size);
void ReleaseValueTransferStoreForTesting(size_t size);

inline size_t ValueSizeClass(size_t size) { return (size + kValueGranule - 1) / kValueGranule - 1; }

inline void* AllocateValueMemory(size_t size) {
  if constexpr (kValueFreeLists) {
    const size_t index = ValueSizeClass(size);
    if (index < kValueSizeClasses) {
      ValueFreeLists& lists = value_free_lists;
      FreeValueBlock* block = lists.heads[index];
      if (block != nullptr) [[likely]] {
        lists.heads[index] = block->next;
        --lists.counts[index];
        return block;
      }
    }
  }
  return AllocateValueMemoryFromMalloc(size);
}
inline void FreeValueMemory(void* pointer, size_t size) {
  if constexpr (kValueFreeLists) {
    // The usual case inline: a live thread whose list has room.
    const size_t index = ValueSizeClass(size);
    ValueFreeLists& lists = value_free_lists;
    if (index < kValueSizeClasses && lists.inline_free &&
        lists.counts[index] < MaxCachedValueBlocks(index)) [[likely]] {
      auto* block = static_cast<FreeValueBlock*>(pointer);
      block->next = lists.heads[index];
      lists.heads[index] = block;
      ++lists.counts[index];
      return;
    }
  }
  FreeValueMemoryToListOrMalloc(pointer, size);
}
extern AsyncValueTypeInfo async_value_types[kMaxAsyncValueTypes];
uint16_t RegisterAsyncValueType(AsyncValueTypeInfo info);

// A registered waiter: intrusive singly linked, run (and freed) once. Its
// memory comes from the value free lists (a waiter per deferred kernel is
// the executor's hot path for async kernels: no malloc there either).
struct WaiterNode {
  static void* operator new(size_t size) { return AllocateValueMemory(size); }
  static void operator delete(void* pointer, size_t size) { FreeValueMemory(pointer, size); }
  void (*run_and_delete)(WaiterNode* node);
  WaiterNode* next = nullptr;
};

template <typename F>
struct WaiterNodeImpl : WaiterNode {
  explicit WaiterNodeImpl(F f) : callback(std::move(f)) {
    run_and_delete = [](WaiterNode* node) {
      auto* self = static_cast<WaiterNodeImpl*>(node);
      self->callback();
      delete self;
    };
  }
  F callback;
};

}  // namespace internal

template <typename T>
class ConcreteAsyncValue;
class IndirectAsyncValue;

// The type id of payload type T (assigned on first use).
template <typename T>
uint16_t AsyncValueTypeId();

class AsyncValue {
 public:
  enum class State : uint8_t {
    kUnconstructed = 0,
    kConstructed = 1,  // payload built, not yet published
    kConcrete = 2,
    kError = 3,
  };

  AsyncValue(const AsyncValue&) = delete;
  AsyncValue& operator=(const AsyncValue&) = delete;

  static void* operator new(size_t size) { return internal::AllocateValueMemory(size); }
  static void operator delete(void* pointer, size_t size) {
    internal::FreeValueMemory(pointer, size);
  }

  // ---- Reference counting.
  void AddRef(uint32_t count = 1) {
    if (ref_counted_) ref_count_.fetch_add(count, std::memory_order_relaxed);
  }
  // Drops `count` references; the last one destroys the value.
  void DropRef(uint32_t count = 1) {
    if (!ref_counted_) return;
    if (ref_count_.load(std::memory_order_acquire) == count ||
        ref_count_.fetch_sub(count, std::memory_order_acq_rel) == count) {
      Destroy();
    }
  }
  uint32_t NumRef() const { return ref_count_.load(std::memory_order_acquire); }
  // Whether this is the only reference to the value's payload: one
  // reference, and for an indirect value also a forwarded-to value that is
  // itself unique (recursively). An indirect value not yet forwarded is not
  // unique. A kernel may mutate a unique operand in place; following the
  // forwarding is what keeps it from writing into a value another kernel
  // still reads through the original register.
  bool IsUnique() const;

  // ---- State.
  State state() const {
    return static_cast<State>(waiters_and_state_.load(std::memory_order_acquire) &
                              kStateMask);
  }
  bool IsAvailable() const { return state() >= State::kConcrete; }
  bool IsUnavailable() const { return !IsAvailable(); }
  bool IsConcrete() const { return state() == State::kConcrete; }
  bool IsError() const { return state() == State::kError; }
  bool IsConstructed() const { return state() == State::kConstructed; }
  bool IsUnconstructed() const { return state() == State::kUnconstructed; }
  bool IsIndirect() const { return indirect_; }
  // Unconstructed with no waiter: nothing has been asked of or done to
  // the value yet (its producer may still hand its payload elsewhere when
  // it holds every reference).
  bool IsPristine() const {
    return waiters_and_state_.load(std::memory_order_acquire) ==
           static_cast<uintptr_t>(State::kUnconstructed);
  }

  // The payload type; for an indirect value, that of the value it was
  // forwarded to (REQUIRES: available).
  uint16_t type_id() const;
  template <typename T>
  [[gnu::always_inline]] bool IsType() const {
    return type_id() == AsyncValueTypeId<T>();
  }

  // The payload. REQUIRES: IsConcrete() (or constructed, for the producer)
  // and IsType<T>().
  template <typename T>
  T& get();
  template <typename T>
  const T& get() const {
    return const_cast<AsyncValue*>(this)->get<T>();
  }

  // The address of the payload of a concrete value whose payload type is
  // aligned to at most alignof(AsyncValue) (the scalars direct kernels
  // read), through forwarding: the payload sits right after the header.
  // REQUIRES: IsConcrete().
  [[gnu::always_inline]] void* ScalarPayload() const;

  // REQUIRES: IsError().
  const absl::Status& GetError() const { return GetErrorInfo().status; }
  const ErrorInfo& GetErrorInfo() const;

  // Runs `callback` (a `void()` callable) when the value becomes available,
  // or now if it already is.
  template <typename F>
  void AndThen(F&& callback) {
    if (IsAvailable()) {
      callback();
      return;
    }
    EnqueueWaiter(
        new internal::WaiterNodeImpl<std::decay_t<F>>(std::forward<F>(callback)));
  }

  // Runs `node->run_and_delete(node)` when the value becomes available, or
  // now if it already is: AndThen for a caller that keeps its waiters'
  // memory itself (the executor keeps one per register and execution).
  void AddWaiter(internal::WaiterNode* node) { EnqueueWaiter(node); }

  // ---- Producers (exactly one of these, once).
  // Sets an error. REQUIRES: not available; not indirect (forward an error
  // value instead).
  void SetError(absl::Status status, Location location = {});
  // Publishes a constructed payload. REQUIRES: IsConstructed().
  void SetStateConcrete();
  // Constructs the payload and publishes it. REQUIRES: IsUnconstructed(),
  // a ConcreteAsyncValue<T>.
  template <typename T, typename... Args>
  void emplace(Args&&... args);

 protected:
  static constexpr uintptr_t kStateMask = 3;

  AsyncValue(uint16_t type_id, State state, bool indirect)
      : type_id_(type_id),
        indirect_(indirect),
        waiters_and_state_(static_cast<uintptr_t>(state)) {}
  // Inline: most values hold no error.
  ~AsyncValue() {
    if (error_ != nullptr) [[unlikely]] DeleteError();
  }
  void DeleteError();

  void Destroy() { internal::async_value_types[type_id_].destroy(this); }
  // Moves to `state` (available or constructed) and runs the waiters if
  // available.
  void NotifyStateChange(State state);
  // NotifyStateChange to an available state (kConcrete or kError), inline
  // up to the waiters: a value no one waits for (a kernel's result, read
  // once it is there) is one exchange.
  void PublishAvailable(State state) {
    const uintptr_t old =
        waiters_and_state_.exchange(static_cast<uintptr_t>(state), std::memory_order_acq_rel);
    assert((old & kStateMask) < static_cast<uintptr_t>(State::kConcrete) &&
           "an AsyncValue was made available twice");
    if ((old & ~kStateMask) != 0) [[unlikely]] RunWaitersOfWord(old);
  }
  void PublishConcrete() { PublishAvailable(State::kConcrete); }
  // Runs the waiters of a waiters-and-state word.
  static void RunWaitersOfWord(uintptr_t word);
  void EnqueueWaiter(internal::WaiterNode* node);

  std::atomic<uint32_t> ref_count_{1};
  uint16_t type_id_;
  bool indirect_;
  bool ref_counted_ = true;
  // Low two bits: State. Rest: the most recently added WaiterNode.
  std::atomic<uintptr_t> waiters_and_state_;
  ErrorInfo* error_ = nullptr;

  friend class IndirectAsyncValue;
  template <typename T>
  friend class ConcreteAsyncValue;
};

// An AsyncValue with inline storage for a T.
template <typename T>
class ConcreteAsyncValue : public AsyncValue {
  static_assert(alignof(T) <= 16, "AsyncValue payloads are at most 16-aligned");
  // ScalarPayload: no tail padding in the header for a payload to move into.
  static_assert(sizeof(AsyncValue) % alignof(AsyncValue) == 0 &&
                sizeof(AsyncValue) == 24);

 public:
  struct UnconstructedTag {};
  struct ConstructedTag {};
  struct ConcreteTag {};

  explicit ConcreteAsyncValue(UnconstructedTag)
      : AsyncValue(AsyncValueTypeId<T>(), State::kUnconstructed, false) {}
  // With `references` references instead of one (a producer that keeps
  // one for itself without an atomic increment).
  ConcreteAsyncValue(UnconstructedTag, uint32_t references)
      : AsyncValue(AsyncValueTypeId<T>(), State::kUnconstructed, false) {
    ref_count_.store(references, std::memory_order_relaxed);
  }
  template <typename... Args>
  explicit ConcreteAsyncValue(ConstructedTag, Args&&... args)
      : AsyncValue(AsyncValueTypeId<T>(), State::kConstructed, false) {
    new (&value_) T(std::forward<Args>(args)...);
  }
  template <typename... Args>
  explicit ConcreteAsyncValue(ConcreteTag, Args&&... args)
      : AsyncValue(AsyncValueTypeId<T>(), State::kConcrete, false) {
    new (&value_) T(std::forward<Args>(args)...);
  }

  // A value that is never reference counted nor destroyed (process-wide
  // constants such as the ready chain).
  static ConcreteAsyncValue* MakeStatic(ConcreteAsyncValue* storage) {
    storage->ref_counted_ = false;
    return storage;
  }

  ~ConcreteAsyncValue() {
    State s = static_cast<State>(waiters_and_state_.load(std::memory_order_relaxed) &
                                 kStateMask);
    if (s == State::kConstructed || s == State::kConcrete) value_.~T();
  }

  T& value() { return value_; }

  template <typename... Args>
  void Construct(Args&&... args) {
    new (&value_) T(std::forward<Args>(args)...);
  }
  // Payload destruction before an error replaces a constructed value.
  void DestroyPayload() { value_.~T(); }

 private:
  union {
    T value_;
  };
};

// A placeholder forwarded later to another value.
class IndirectAsyncValue : public AsyncValue {
 public:
  IndirectAsyncValue();
  ~IndirectAsyncValue();

  // Makes this value behave as `value` once `value` is available (now, if it
  // already is). REQUIRES: called once.
  void ForwardTo(RCReference<AsyncValue> value);
  // The value forwarded to (null until available).
  AsyncValue* forwarded() const { return value_; }

 private:
  AsyncValue* value_ = nullptr;  // owned reference once set
};

// ---------------------------------------------------------------------------
// Implementation.

namespace internal {
struct IndirectPayload {};
struct ErrorPayload {};  // the "type" of values created as errors

template <typename T>
void DestroyConcrete(AsyncValue* value) {
  delete static_cast<ConcreteAsyncValue<T>*>(value);
}
template <typename T>
void DestroyPayload(AsyncValue* value) {
  static_cast<ConcreteAsyncValue<T>*>(value)->DestroyPayload();
}
}  // namespace internal

// Inlined into every caller: after the first call it is one guard load and
// one load of the id.
template <typename T>
[[gnu::always_inline]] inline uint16_t AsyncValueTypeId() {
  static const uint16_t id = internal::RegisterAsyncValueType(
      {&internal::DestroyConcrete<T>, &internal::DestroyPayload<T>});
  return id;
}

inline uint16_t AsyncValue::type_id() const {
  if (!indirect_) return type_id_;
  const AsyncValue* target = static_cast<const IndirectAsyncValue*>(this)->forwarded();
  return target ? target->type_id() : type_id_;
}

inline bool AsyncValue::IsUnique() const {
  const AsyncValue* value = this;
  while (true) {
    if (value->NumRef() != 1) return false;
    if (!value->indirect_) return true;
    value = static_cast<const IndirectAsyncValue*>(value)->forwarded();
    if (value == nullptr) return false;
  }
}

[[gnu::always_inline]] inline void* AsyncValue::ScalarPayload() const {
  const AsyncValue* value = this;
  while (value->indirect_) value = static_cast<const IndirectAsyncValue*>(value)->forwarded();
  return const_cast<char*>(reinterpret_cast<const char*>(value)) + sizeof(AsyncValue);
}

template <typename T>
T& AsyncValue::get() {
  AsyncValue* value = this;
  while (value->indirect_) {
    value = static_cast<IndirectAsyncValue*>(value)->forwarded();
    assert(value != nullptr && "get() on an unforwarded indirect value");
  }
  assert(value->type_id_ == AsyncValueTypeId<T>() && "get<T>() of another type");
  return static_cast<ConcreteAsyncValue<T>*>(value)->value();
}

template <typename T, typename... Args>
void AsyncValue::emplace(Args&&... args) {
  assert(!indirect_ && IsUnconstructed());
  static_cast<ConcreteAsyncValue<T>*>(this)->Construct(std::forward<Args>(args)...);
  PublishConcrete();
}

}  // namespace bef

#endif  // BEF_ASYNC_ASYNC_VALUE_H_
