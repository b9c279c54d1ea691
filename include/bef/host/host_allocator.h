// HostAllocator: where kernels and the runtime get host memory, chosen per
// HostContext (bef_executor --host_allocator_type).
//
//   malloc                aligned malloc/free (here keeping freed blocks
//                         of kLargeBlock bytes or more, up to
//                         kMaxKeptBytes, for the next request of the same
//                         page count: see CreateMallocAllocator)
//   profiled_allocator    counts allocations and bytes; prints the profile
//                         when destroyed
//   leak_check_allocator  (the default) prints nothing unless bytes are still
//                         allocated when it is destroyed: then the profile,
//                         "Memory leak detected: N alive allocations, M alive
//                         bytes", and exit(1)
//   test_fixed_size_1k    a 1024-byte budget with TFRT's log lines;
//                         allocations of at most 32 bytes are not accounted;
//                         one that would exceed the budget returns null
//
// Thread safety: all allocators may be used from any thread.
#ifndef BEF_HOST_HOST_ALLOCATOR_H_
#define BEF_HOST_HOST_ALLOCATOR_H_

#include <cstddef>
#include <memory>
#include <new>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"

namespace bef {

class HostAllocator {
 public:
  virtual ~HostAllocator() = default;

  // Null when the memory cannot be provided. REQUIRES: alignment is a power
  // of two.
  virtual void* AllocateBytes(size_t size, size_t alignment) = 0;
  // REQUIRES: `size` is the size passed to AllocateBytes.
  virtual void DeallocateBytes(void* pointer, size_t size) = 0;

  template <typename T>
  T* Allocate(size_t count = 1) {
    return static_cast<T*>(AllocateBytes(sizeof(T) * count, alignof(T)));
  }
  template <typename T>
  void Deallocate(T* pointer, size_t count = 1) {
    DeallocateBytes(pointer, sizeof(T) * count);
  }
  // Allocates and constructs a T; null if the allocation fails.
  template <typename T, typename... Args>
  T* New(Args&&... args) {
    void* memory = AllocateBytes(sizeof(T), alignof(T));
    return memory ? new (memory) T(std::forward<Args>(args)...) : nullptr;
  }
  template <typename T>
  void Delete(T* pointer) {
    pointer->~T();
    DeallocateBytes(pointer, sizeof(T));
  }
};

// Large blocks: a model allocates the same tensors on every run, and a
// block malloc returns to the system comes back as fresh pages, each
// faulted in on first write (microseconds a page on a VM). With
// `max_kept_bytes` > 0, freed blocks of kLargeBlock bytes or more are kept,
// up to that many bytes, and given to the next request of the same page
// count; they go back to malloc when the allocator is destroyed, and a
// block past the bound is freed at once. The lock is taken only for such
// blocks (whose first touch alone costs far more). 0 (the default) keeps
// nothing: a server whose clients choose tensor sizes must give their
// memory back (bef_serve does). bef_executor and the Python package keep
// up to kMaxKeptBytes.
inline constexpr size_t kLargeBlock = size_t{128} << 10;
inline constexpr size_t kMaxKeptBytes = size_t{1} << 30;
std::unique_ptr<HostAllocator> CreateMallocAllocator(size_t max_kept_bytes = 0);
std::unique_ptr<HostAllocator> CreateProfiledAllocator(
    std::unique_ptr<HostAllocator> allocator);
std::unique_ptr<HostAllocator> CreateLeakCheckAllocator(
    std::unique_ptr<HostAllocator> allocator);
std::unique_ptr<HostAllocator> CreateFixedSizeAllocator(
    std::unique_ptr<HostAllocator> allocator, size_t capacity = 1024);

// One of the four names above (on a malloc allocator keeping up to
// kMaxKeptBytes); InvalidArgument otherwise.
absl::StatusOr<std::unique_ptr<HostAllocator>> CreateHostAllocator(
    std::string_view type);

}  // namespace bef

#endif  // BEF_HOST_HOST_ALLOCATOR_H_
