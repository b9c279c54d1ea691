// Per-thread free lists for AsyncValue memory (see AllocateValueMemory in
// async_value.h, which takes blocks from the lists inline).
//
// Values often die on another thread than the one that made them (an async
// kernel's result is made by the thread running the kernel and freed by the
// one running its users): the freeing thread's list fills while the making
// thread's runs dry. So a full list hands a *batch* of its blocks to a
// process-wide transfer store (per size class, under a spin lock held for
// one pointer swap), and an empty list takes a batch from there before it
// asks malloc: one lock per batch instead of a malloc and a cross-thread
// free (which contends on glibc's arena lock) per value. The store holds
// at most kMaxTransferBatches batches per class; beyond that blocks go
// back to malloc.
//
// fork() gives the child only the forking thread: a store's lock another
// thread held at that moment would stay held in the child for ever, and its
// first TakeBatch or GiveBatch would spin. So every store is locked around
// a fork (pthread_atfork), and parent and child both start again with the
// stores free and their batches whole.
#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>

#include "bef/async/async_value.h"
#include "bef/support/spin_lock.h"

namespace bef::internal {

constinit thread_local ValueFreeLists value_free_lists = {};

namespace {

constexpr uint32_t kTransferBatch = 256;      // blocks per batch, up to 256 bytes
constexpr uint32_t kTransferBatchLarge = 32;  // larger classes
constexpr int kMaxTransferBatches = 16;       // per class

uint32_t TransferBatch(size_t index) {
  return index < 16 ? kTransferBatch : kTransferBatchLarge;
}

// The process-wide store of full batches, one per size class.
struct TransferStore {
  std::atomic<bool> locked{false};
  std::atomic<int> count{0};  // written under the lock, peeked without
  FreeValueBlock* batches[kMaxTransferBatches] = {};  // each TransferBatch(class) long
};
TransferStore transfer_stores[kValueSizeClasses];

// Takes a batch for class `index` from the store, or null.
FreeValueBlock* TakeBatch(size_t index) {
  TransferStore& store = transfer_stores[index];
  if (store.count.load(std::memory_order_relaxed) == 0) return nullptr;  // the lock decides
  SpinLock lock(store.locked);
  const int count = store.count.load(std::memory_order_relaxed);
  if (count == 0) return nullptr;
  store.count.store(count - 1, std::memory_order_relaxed);
  return store.batches[count - 1];
}

// Offers the first TransferBatch(index) blocks of `lists`' class `index`
// (which holds at least that many) to the store; false when it is full.
bool GiveBatch(ValueFreeLists& lists, size_t index) {
  TransferStore& store = transfer_stores[index];
  if (store.count.load(std::memory_order_relaxed) == kMaxTransferBatches) return false;
  const uint32_t size = TransferBatch(index);
  FreeValueBlock* first = lists.heads[index];
  FreeValueBlock* last = first;
  for (uint32_t i = 1; i < size; ++i) last = last->next;
  {
    SpinLock lock(store.locked);
    const int count = store.count.load(std::memory_order_relaxed);
    if (count == kMaxTransferBatches) return false;
    store.batches[count] = first;
    store.count.store(count + 1, std::memory_order_relaxed);
    lists.heads[index] = last->next;
    last->next = nullptr;
  }
  lists.counts[index] -= size;
  return true;
}

// pthread_atfork's handlers: every store locked before the fork (in one
// order: only fork takes more than one), released after it in both
// processes.
void LockTransferStores() {
  for (TransferStore& store : transfer_stores) SpinLock::Acquire(store.locked);
}
void ReleaseTransferStores() {
  for (TransferStore& store : transfer_stores) SpinLock::Release(store.locked);
}
[[maybe_unused]] const bool fork_handlers_registered =
    pthread_atfork(&LockTransferStores, &ReleaseTransferStores, &ReleaseTransferStores) == 0;

struct ThreadCleanup {
  ~ThreadCleanup() {
    value_free_lists.dead = true;
    value_free_lists.inline_free = false;
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
  value_free_lists.inline_free = !value_free_lists.dead;
}

}  // namespace

int ValueTransferBatchesForTesting(size_t size) {
  return transfer_stores[ValueSizeClass(size)].count.load(std::memory_order_relaxed);
}

void HoldValueTransferStoreForTesting(size_t size) {
  SpinLock::Acquire(transfer_stores[ValueSizeClass(size)].locked);
}

void ReleaseValueTransferStoreForTesting(size_t size) {
  SpinLock::Release(transfer_stores[ValueSizeClass(size)].locked);
}

void* AllocateValueMemoryFromMalloc(size_t size) {
  size_t index = ValueSizeClass(size);
  if (kValueFreeLists && index < kValueSizeClasses) {
    ValueFreeLists& lists = value_free_lists;
    if (!lists.dead && lists.heads[index] == nullptr) {
      if (FreeValueBlock* batch = TakeBatch(index)) {
        // The thread's list is empty (the inline path found no block).
        if (!lists.cleanup_registered) [[unlikely]] RegisterThreadCleanup();
        lists.heads[index] = batch->next;
        lists.counts[index] = TransferBatch(index) - 1;
        return batch;
      }
    }
    // A block that may be cached when freed has its class's full size.
    size = (index + 1) * kValueGranule;
  }
  void* memory = std::malloc(size);
  if (memory == nullptr) throw std::bad_alloc();
  return memory;
}

void FreeValueMemoryToListOrMalloc(void* pointer, size_t size) {
  size_t index = ValueSizeClass(size);
  ValueFreeLists& lists = value_free_lists;
  if (kValueFreeLists && index < kValueSizeClasses && !lists.dead &&
      (lists.counts[index] < MaxCachedValueBlocks(index) || GiveBatch(lists, index))) {
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
