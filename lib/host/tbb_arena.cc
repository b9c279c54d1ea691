// BefTbbArenaApiV1 over oneTBB (lib/host/tbb_arena.h). Built twice: into
// //lib/host:tbb_arena, linked by binaries that want TBB linked, and into
// the plugin libbef_tbb_arena.so.
#include "lib/host/tbb_arena.h"

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

void Enqueue(void* arena, void (*run)(void*), void* argument) {
  static_cast<Arena*>(arena)->arena.enqueue([run, argument] { run(argument); });
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
