// BefTbbArenaApiV1 over oneTBB (lib/host/tbb_arena.h). Built twice: into
// //lib/host:tbb_arena, linked by binaries that want TBB linked, and into
// the plugin libbef_tbb_arena.so.
#include "lib/host/tbb_arena.h"

#include <atomic>
#include <memory>

#include "oneapi/tbb/global_control.h"
#include "oneapi/tbb/task_arena.h"

namespace {

struct Arena {
  explicit Arena(int compute_threads)
      : arena(compute_threads, /*reserved_for_masters=*/0) {
    // TBB's market allows max_concurrency() - 1 worker threads by default
    // (one slot is the application thread's); this arena wants N workers.
    int default_workers = tbb::this_task_arena::max_concurrency() - 1;
    if (compute_threads > default_workers) {
      parallelism = std::make_unique<tbb::global_control>(
          tbb::global_control::max_allowed_parallelism, compute_threads + 1);
    }
  }

  std::unique_ptr<tbb::global_control> parallelism;
  tbb::task_arena arena;
};

void* Create(int compute_threads) {
  try {
    return new Arena(compute_threads);
  } catch (...) {
    return nullptr;
  }
}

// The task TBB copies into its own storage and runs on a worker. TBB hands
// the copy over inside libtbb, which is not built for ThreadSanitizer, so
// the fields are atomics written with release and read with acquire (plain
// moves on x86): that is what shows TSan the worker reads what the
// enqueuing thread wrote, the copy included.
class Call {
 public:
  Call(void (*run)(void*), void* argument) { Store(run, argument); }
  Call(const Call& other) {
    Store(other.run_.load(std::memory_order_acquire),
          other.argument_.load(std::memory_order_acquire));
  }
  Call& operator=(const Call&) = delete;
  void operator()() const {
    void (*run)(void*) = run_.load(std::memory_order_acquire);
    run(argument_.load(std::memory_order_acquire));
  }

 private:
  void Store(void (*run)(void*), void* argument) {
    argument_.store(argument, std::memory_order_release);
    run_.store(run, std::memory_order_release);
  }
  std::atomic<void (*)(void*)> run_{nullptr};
  std::atomic<void*> argument_{nullptr};
};

void Enqueue(void* arena, void (*run)(void*), void* argument) {
  static_cast<Arena*>(arena)->arena.enqueue(Call(run, argument));
}

void Destroy(void* arena) {
  Arena* owned = static_cast<Arena*>(arena);
  owned->arena.terminate();
  delete owned;
}

constexpr BefTbbArenaApi kApi = {&Create, &Enqueue, &Destroy};

}  // namespace

extern "C" __attribute__((visibility("default"))) const BefTbbArenaApi*
BefTbbArenaApiV1() {
  return &kApi;
}
