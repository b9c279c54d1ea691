#include "lib/executor/parallel_levels.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

namespace bef {
namespace {

// The wide levels of one straight-line run, shared with helper tasks on the
// work queue's other threads. The running thread publishes one level at a
// time in `claim` (level << 32 | next chunk); every thread claims chunks
// with a compare-and-swap on it, so a chunk is only ever claimed in the
// level it belongs to, and the running thread moves on only when all of a
// level's chunks are done. A helper touches the registers only inside a
// claimed chunk, hence only while the running thread waits for it; between
// levels it spins (briefly) for the next one instead of going back to sleep,
// so one wake-up serves the whole run. It co-owns this object.
struct ParallelRun : std::enable_shared_from_this<ParallelRun> {
  const ExecutionPlan* plan;
  PayloadRegister* registers;
  const uint8_t* attribute_pool;
  std::atomic<uint64_t> claim{UINT64_MAX};  // no level yet
  std::atomic<uint32_t> done_chunks{0};
  std::atomic<bool> finished{false};
  std::atomic<int> idle_helpers{0};  // helpers waiting for a level

  static uint32_t NumChunks(const ExecutionPlan& plan, uint32_t level) {
    return (plan.level_begin[level + 1] - plan.level_begin[level] + kParallelChunk - 1) /
           kParallelChunk;
  }
  void RunChunk(uint32_t level, uint32_t chunk) {
    uint32_t first = plan->level_begin[level] + chunk * kParallelChunk;
    uint32_t last = std::min(plan->level_begin[level + 1], first + kParallelChunk);
    LineCursor(plan->straight, registers, attribute_pool).Run(first, last);
    // Publishes the chunk's registers to the running thread.
    done_chunks.fetch_add(1, std::memory_order_release);
  }
  // Claims and runs chunks of the published level until none is left;
  // false when there was no level to work on.
  bool ClaimChunks() {
    bool worked = false;
    uint64_t current = claim.load(std::memory_order_acquire);
    while (current != UINT64_MAX) {
      uint32_t level = static_cast<uint32_t>(current >> 32);
      uint32_t chunk = static_cast<uint32_t>(current);
      if (chunk >= NumChunks(*plan, level)) break;
      if (claim.compare_exchange_weak(current, current + 1, std::memory_order_acq_rel)) {
        RunChunk(level, chunk);
        worked = true;
        current = claim.load(std::memory_order_acquire);
      }
    }
    return worked;
  }
  // A helper task: works on levels as they come, gives up after a while
  // without one.
  void Help() {
    auto idle_since = std::chrono::steady_clock::now();
    while (!finished.load(std::memory_order_acquire)) {
      if (ClaimChunks()) {
        idle_since = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - idle_since >
                 std::chrono::microseconds(200)) {
        break;
      } else {
        std::this_thread::yield();
      }
    }
    idle_helpers.fetch_sub(1, std::memory_order_relaxed);
  }
  // The running thread: publishes `level`, works on it, waits for the
  // chunks other threads claimed.
  void RunLevel(uint32_t level, HostContext* host) {
    done_chunks.store(0, std::memory_order_relaxed);
    claim.store(uint64_t{level} << 32, std::memory_order_release);
    // Helpers that gave up are replaced (as many as the queue has threads).
    while (idle_helpers.load(std::memory_order_relaxed) < host->GetNumWorkerThreads() - 1) {
      idle_helpers.fetch_add(1, std::memory_order_relaxed);
      host->EnqueueParallelWork([self = shared_from_this()] { self->Help(); });
    }
    ClaimChunks();
    const uint32_t num_chunks = NumChunks(*plan, level);
    while (done_chunks.load(std::memory_order_acquire) < num_chunks) {
      std::this_thread::yield();
    }
  }
};

}  // namespace

uint32_t RunLevelsInParallel(const ExecutionPlan& plan, PayloadRegister* registers,
                             const uint8_t* attribute_pool, const FastPathPolicy& policy,
                             HostContext* host) {
  auto parallel = std::make_shared<ParallelRun>();
  parallel->plan = &plan;
  parallel->registers = registers;
  parallel->attribute_pool = attribute_pool;
  const LineCursor cursor(plan.straight, registers, attribute_pool);
  uint32_t end = static_cast<uint32_t>(plan.straight.steps.size());
  for (uint32_t level = 0; level + 1 < plan.level_begin.size(); ++level) {
    uint32_t begin = plan.level_begin[level];
    uint32_t stop = plan.level_begin[level + 1];
    if (policy.cancelled()) {  // before every level
      end = begin;
      break;
    }
    if (stop - begin >= kParallelLevel) {
      parallel->RunLevel(level, host);
    } else if (uint32_t ran_to = RunLineRange(cursor, begin, stop, policy.request()); ran_to != stop) {
      end = ran_to;
      break;
    }
  }
  parallel->finished.store(true, std::memory_order_release);
  return end;
}


}  // namespace bef
