// RCReference<T>: an owning pointer to an intrusively reference-counted object
// (anything with AddRef() and DropRef(), e.g. AsyncValue).
//
// Copying adds a reference, destruction drops one; moving transfers it. Use
// TakeRef(p) to adopt a reference the caller already owns and FormRef(p) to
// add a new one.
#ifndef BEF_ASYNC_RC_REFERENCE_H_
#define BEF_ASYNC_RC_REFERENCE_H_

#include <cstddef>
#include <type_traits>
#include <utility>

namespace bef {

template <typename T>
class RCReference {
 public:
  RCReference() = default;
  RCReference(std::nullptr_t) {}  // NOLINT: implicit like a pointer
  RCReference(const RCReference& other) : pointer_(other.pointer_) {
    if (pointer_) pointer_->AddRef();
  }
  RCReference(RCReference&& other) noexcept : pointer_(other.pointer_) {
    other.pointer_ = nullptr;
  }
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  RCReference(RCReference<U>&& other) noexcept  // NOLINT: like pointers
      : pointer_(other.release()) {}
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  RCReference(const RCReference<U>& other)  // NOLINT: like pointers
      : pointer_(other.get()) {
    if (pointer_) pointer_->AddRef();
  }
  RCReference& operator=(RCReference other) noexcept {
    std::swap(pointer_, other.pointer_);
    return *this;
  }
  ~RCReference() {
    if (pointer_) pointer_->DropRef();
  }

  T* get() const { return pointer_; }
  T* operator->() const { return pointer_; }
  T& operator*() const { return *pointer_; }
  explicit operator bool() const { return pointer_ != nullptr; }

  // Gives up ownership without dropping the reference.
  T* release() {
    T* pointer = pointer_;
    pointer_ = nullptr;
    return pointer;
  }
  void reset() { RCReference().swap(*this); }
  void swap(RCReference& other) noexcept { std::swap(pointer_, other.pointer_); }
  // A new reference to the same object.
  RCReference CopyRef() const { return *this; }

  friend bool operator==(const RCReference& reference, std::nullptr_t) {
    return reference.pointer_ == nullptr;
  }

  template <typename U>
  friend RCReference<U> TakeRef(U* pointer);

 private:
  T* pointer_ = nullptr;
};

// Adopts a reference the caller owns.
template <typename T>
RCReference<T> TakeRef(T* pointer) {
  RCReference<T> reference;
  reference.pointer_ = pointer;
  return reference;
}

// Adds a reference to `pointer`.
template <typename T>
RCReference<T> FormRef(T* pointer) {
  if (pointer) pointer->AddRef();
  return TakeRef(pointer);
}

template <typename T, typename U>
bool operator==(const RCReference<T>& a, const RCReference<U>& b) {
  return a.get() == b.get();
}

}  // namespace bef

#endif  // BEF_ASYNC_RC_REFERENCE_H_
