// UniqueFunction<R(Args...)>: a move-only, type-erased callable with inline
// storage for small callables (up to kInlineSize bytes). It is what work
// queues store (tasks capture references and move-only values), and unlike
// std::function it never copies and does not allocate for small lambdas.
#ifndef BEF_SUPPORT_UNIQUE_FUNCTION_H_
#define BEF_SUPPORT_UNIQUE_FUNCTION_H_

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace bef {

template <typename Signature>
class UniqueFunction;

template <typename R, typename... Args>
class UniqueFunction<R(Args...)> {
 public:
  static constexpr size_t kInlineSize = 48;

  UniqueFunction() = default;
  UniqueFunction(std::nullptr_t) {}  // NOLINT

  template <typename F,
            typename = std::enable_if_t<
                !std::is_same_v<std::decay_t<F>, UniqueFunction> &&
                std::is_invocable_r_v<R, std::decay_t<F>&, Args...>>>
  UniqueFunction(F&& f) {  // NOLINT: implicit from callables
    using Callable = std::decay_t<F>;
    if constexpr (sizeof(Callable) <= kInlineSize &&
                  alignof(Callable) <= alignof(std::max_align_t) &&
                  std::is_nothrow_move_constructible_v<Callable>) {
      new (&storage_) Callable(std::forward<F>(f));
      ops_ = &InlineOps<Callable>::kOps;
    } else {
      *reinterpret_cast<Callable**>(&storage_) = new Callable(std::forward<F>(f));
      ops_ = &HeapOps<Callable>::kOps;
    }
  }

  UniqueFunction(UniqueFunction&& other) noexcept { TakeCallableOf(other); }
  UniqueFunction& operator=(UniqueFunction&& other) noexcept {
    if (this != &other) {
      reset();
      TakeCallableOf(other);
    }
    return *this;
  }
  UniqueFunction(const UniqueFunction&) = delete;
  UniqueFunction& operator=(const UniqueFunction&) = delete;
  ~UniqueFunction() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }

  R operator()(Args... args) {
    return ops_->call(&storage_, std::forward<Args>(args)...);
  }

  void reset() {
    if (ops_) {
      if (ops_->destroy != nullptr) ops_->destroy(&storage_);
      ops_ = nullptr;
    }
  }

 private:
  // Moves `other`'s callable (if any) into this empty function; `other` is
  // left empty.
  void TakeCallableOf(UniqueFunction& other) noexcept {
    ops_ = std::exchange(other.ops_, nullptr);
    if (ops_ == nullptr) return;
    if (ops_->move != nullptr) {
      ops_->move(&storage_, &other.storage_);
    } else {
      // Trivially copyable (a task capturing pointers and indices, the
      // usual case: work queues move each task several times on its way).
      std::memcpy(&storage_, &other.storage_, kInlineSize);
    }
  }
  // move and destroy are null for inline callables that are trivially
  // copyable and destructible: moved with memcpy, nothing to destroy.
  struct Ops {
    R (*call)(void* storage, Args&&... args);
    void (*move)(void* to, void* from);
    void (*destroy)(void* storage);
  };

  template <typename Callable, bool = std::is_trivially_copyable_v<Callable> &&
                                      std::is_trivially_destructible_v<Callable>>
  struct InlineOps {
    static R Call(void* storage, Args&&... args) {
      return (*static_cast<Callable*>(storage))(std::forward<Args>(args)...);
    }
    static constexpr Ops kOps = {&Call, nullptr, nullptr};
  };
  template <typename Callable>
  struct InlineOps<Callable, false> {
    static R Call(void* storage, Args&&... args) {
      return (*static_cast<Callable*>(storage))(std::forward<Args>(args)...);
    }
    static void Move(void* to, void* from) {
      new (to) Callable(std::move(*static_cast<Callable*>(from)));
      static_cast<Callable*>(from)->~Callable();
    }
    static void Destroy(void* storage) { static_cast<Callable*>(storage)->~Callable(); }
    static constexpr Ops kOps = {&Call, &Move, &Destroy};
  };

  template <typename Callable>
  struct HeapOps {
    static Callable*& Pointer(void* storage) {
      return *static_cast<Callable**>(storage);
    }
    static R Call(void* storage, Args&&... args) {
      return (*Pointer(storage))(std::forward<Args>(args)...);
    }
    static void Move(void* to, void* from) {
      *static_cast<Callable**>(to) = Pointer(from);
    }
    static void Destroy(void* storage) { delete Pointer(storage); }
    static constexpr Ops kOps = {&Call, &Move, &Destroy};
  };

  alignas(std::max_align_t) unsigned char storage_[kInlineSize];
  const Ops* ops_ = nullptr;
};

}  // namespace bef

#endif  // BEF_SUPPORT_UNIQUE_FUNCTION_H_
