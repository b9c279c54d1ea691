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

struct FreeLists {
  ~FreeLists() {
    alive = false;
    for (FreeBlock*& head : heads) {
      while (head != nullptr) {
        FreeBlock* next = head->next;
        std::free(head);
        head = next;
      }
    }
  }
  FreeBlock* heads[kClasses] = {};
  uint32_t counts[kClasses] = {};
  static thread_local bool alive;
};
thread_local bool FreeLists::alive = true;
thread_local FreeLists free_lists;

size_t ClassOf(size_t size) { return (size + kGranule - 1) / kGranule - 1; }

}  // namespace

void* AllocateValueMemory(size_t size) {
  size_t index = ClassOf(size);
  if (kUseFreeLists && index < kClasses && FreeLists::alive) {
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
  if (kUseFreeLists && index < kClasses && FreeLists::alive &&
      free_lists.counts[index] < (index < 16 ? kMaxCached : kMaxCachedLarge)) {
    auto* block = static_cast<FreeBlock*>(pointer);
    block->next = free_lists.heads[index];
    free_lists.heads[index] = block;
    ++free_lists.counts[index];
    return;
  }
  std::free(pointer);
}

}  // namespace bef::internal
