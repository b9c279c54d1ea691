// SyncValue: a plain (not asynchronous) value slot, the register type of sync
// functions. Holds any movable type; types of up to 16 bytes are stored
// inline.
#ifndef BEF_HOST_SYNC_VALUE_H_
#define BEF_HOST_SYNC_VALUE_H_

#include <cassert>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace bef {

class SyncValue {
 public:
  SyncValue() = default;
  template <typename T, typename = std::enable_if_t<
                            !std::is_same_v<std::decay_t<T>, SyncValue>>>
  explicit SyncValue(T&& value) {
    emplace<std::decay_t<T>>(std::forward<T>(value));
  }
  SyncValue(SyncValue&& other) noexcept { TakeValueOf(other); }
  SyncValue& operator=(SyncValue&& other) noexcept {
    if (this != &other) {
      reset();
      TakeValueOf(other);
    }
    return *this;
  }
  SyncValue(const SyncValue&) = delete;
  SyncValue& operator=(const SyncValue&) = delete;
  ~SyncValue() { reset(); }

  bool HasValue() const { return ops_ != nullptr; }
  template <typename T>
  bool IsType() const {
    return ops_ == &OpsFor<T>::kOps;
  }

  template <typename T, typename... Args>
  T& emplace(Args&&... args) {
    reset();
    T* value;
    if constexpr (kInline<T>) {
      value = new (&storage_) T(std::forward<Args>(args)...);
    } else {
      value = new T(std::forward<Args>(args)...);
      *reinterpret_cast<T**>(&storage_) = value;
    }
    ops_ = &OpsFor<T>::kOps;
    return *value;
  }

  // REQUIRES: IsType<T>().
  template <typename T>
  T& get() {
    assert(IsType<T>());
    if constexpr (kInline<T>) {
      return *std::launder(reinterpret_cast<T*>(&storage_));
    } else {
      return **reinterpret_cast<T**>(&storage_);
    }
  }
  template <typename T>
  const T& get() const {
    return const_cast<SyncValue*>(this)->get<T>();
  }

  void reset() {
    if (ops_) {
      ops_->destroy(&storage_);
      ops_ = nullptr;
    }
  }

 private:
  // Moves `other`'s value (if any) into this empty SyncValue; `other` is
  // left empty.
  void TakeValueOf(SyncValue& other) noexcept {
    ops_ = std::exchange(other.ops_, nullptr);
    if (ops_) ops_->move(&storage_, &other.storage_);
  }
  static constexpr size_t kInlineSize = 16;
  template <typename T>
  static constexpr bool kInline = sizeof(T) <= kInlineSize &&
                                  alignof(T) <= alignof(std::max_align_t) &&
                                  std::is_nothrow_move_constructible_v<T>;

  struct Ops {
    void (*move)(void* to, void* from);
    void (*destroy)(void* storage);
  };
  template <typename T>
  struct OpsFor {
    static void Move(void* to, void* from) {
      if constexpr (kInline<T>) {
        T* source = std::launder(reinterpret_cast<T*>(from));
        new (to) T(std::move(*source));
        source->~T();
      } else {
        *static_cast<T**>(to) = *static_cast<T**>(from);
      }
    }
    static void Destroy(void* storage) {
      if constexpr (kInline<T>) {
        std::launder(reinterpret_cast<T*>(storage))->~T();
      } else {
        delete *static_cast<T**>(storage);
      }
    }
    static constexpr Ops kOps = {&Move, &Destroy};
  };

  alignas(std::max_align_t) unsigned char storage_[kInlineSize];
  const Ops* ops_ = nullptr;
};

}  // namespace bef

#endif  // BEF_HOST_SYNC_VALUE_H_
