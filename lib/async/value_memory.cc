// Per-thread free lists for AsyncValue memory (see AllocateValueMemory).
#include <cstdlib>
#include <new>

#include "bef/async/async_value.h"

namespace bef::internal {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kUseFreeLists = false;
#else
constexpr bool kUseFreeLists = true;
#endif

constexpr size_t kGranule = 16;
// 16, 32, ..., 1024 bytes: values, waiter nodes, and the invocations of
// small functions (loop and call bodies: a few hundred bytes each).
constexpr size_t kClasses = 64;
constexpr uint32_t kMaxCached = 4096;       // per class up to 256 bytes
constexpr uint32_t kMaxCachedLarge = 256;   // per larger class (<= 256 KiB)

struct FreeBlock {
  FreeBlock* next;
};

// Trivial and constant-initialized, so every access is a plain
// thread-local load (no initialization guard or wrapper call on the hot
// path); the blocks are freed at thread exit by ThreadCleanup, registered
// the first time the thread caches a block.
struct FreeLists {
  FreeBlock* heads[kClasses];
  uint32_t counts[kClasses];
  bool cleanup_registered;
  bool dead;  // the thread is exiting: malloc/free only from here on
};
constinit thread_local FreeLists free_lists = {};

struct ThreadCleanup {
  ~ThreadCleanup() {
    free_lists.dead = true;
    for (FreeBlock*& head : free_lists.heads) {
      while (head != nullptr) {
        FreeBlock* next = head->next;
        std::free(head);
        head = next;
      }
    }
  }
};

[[gnu::noinline]] void RegisterThreadCleanup() {
  // Constructed the first time control passes here on a thread; destroyed
  // (freeing the thread's blocks) when the thread exits.
  static thread_local ThreadCleanup cleanup;
  free_lists.cleanup_registered = true;
}

size_t ClassOf(size_t size) { return (size + kGranule - 1) / kGranule - 1; }

}  // namespace

void* AllocateValueMemory(size_t size) {
  size_t index = ClassOf(size);
  if (kUseFreeLists && index < kClasses && !free_lists.dead) {
    FreeBlock*& head = free_lists.heads[index];
    if (head != nullptr) {
      FreeBlock* block = head;
      head = block->next;
      --free_lists.counts[index];
      return block;
    }
    size = (index + 1) * kGranule;
  }
  void* memory = std::malloc(size);
  if (memory == nullptr) throw std::bad_alloc();
  return memory;
}

void FreeValueMemory(void* pointer, size_t size) {
  size_t index = ClassOf(size);
  if (kUseFreeLists && index < kClasses && !free_lists.dead &&
      free_lists.counts[index] < (index < 16 ? kMaxCached : kMaxCachedLarge)) {
    if (!free_lists.cleanup_registered) [[unlikely]] RegisterThreadCleanup();
    auto* block = static_cast<FreeBlock*>(pointer);
    block->next = free_lists.heads[index];
    free_lists.heads[index] = block;
    ++free_lists.counts[index];
    return;
  }
  std::free(pointer);
}

}  // namespace bef::internal
