// Per-thread free lists for AsyncValue memory (see AllocateValueMemory in
// async_value.h, which takes blocks from the lists inline).
#include <cstdlib>
#include <new>

#include "bef/async/async_value.h"

namespace bef::internal {

constinit thread_local ValueFreeLists value_free_lists = {};

namespace {

constexpr uint32_t kMaxCached = 4096;      // per class up to 256 bytes
constexpr uint32_t kMaxCachedLarge = 256;  // per larger class (<= 1 KiB)

struct ThreadCleanup {
  ~ThreadCleanup() {
    value_free_lists.dead = true;
    for (FreeValueBlock*& head : value_free_lists.heads) {
      while (head != nullptr) {
        FreeValueBlock* next = head->next;
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
  value_free_lists.cleanup_registered = true;
}

}  // namespace

void* AllocateValueMemoryFromMalloc(size_t size) {
  size_t index = ValueSizeClass(size);
  // A block that may be cached when freed has its class's full size.
  if (kValueFreeLists && index < kValueSizeClasses) size = (index + 1) * kValueGranule;
  void* memory = std::malloc(size);
  if (memory == nullptr) throw std::bad_alloc();
  return memory;
}

void FreeValueMemoryToListOrMalloc(void* pointer, size_t size) {
  size_t index = ValueSizeClass(size);
  ValueFreeLists& lists = value_free_lists;
  if (kValueFreeLists && index < kValueSizeClasses && !lists.dead &&
      lists.counts[index] < (index < 16 ? kMaxCached : kMaxCachedLarge)) {
    if (!lists.cleanup_registered) [[unlikely]] RegisterThreadCleanup();
    auto* block = static_cast<FreeValueBlock*>(pointer);
    block->next = lists.heads[index];
    lists.heads[index] = block;
    ++lists.counts[index];
    return;
  }
  std::free(pointer);
}

}  // namespace bef::internal
