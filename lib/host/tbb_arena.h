// The oneTBB task arena behind the `mstd` work queue, as a C interface.
//
// Why a C interface: linking libtbb.so makes every process load it and the
// shared libstdc++ it needs, which is 60% of the start-up instructions of
// bef_executor even when the program runs on the single-threaded queue (see
// docs/performance.md). So the arena is reached through this table, found
//   1. in the binary itself, when it links //lib/host:tbb_arena (tests,
//      benchmarks, embedders: nothing changes for them), or
//   2. in libbef_tbb_arena.so, the same code built as a plugin (bef_executor,
//      which links libstdc++ statically and does not link libtbb). Creating
//      an `mstd` queue only finds the file; the queue's first task loads it
//      with dlopen, so a run that enqueues nothing never loads TBB. If it
//      then fails to load, the queue logs it once and runs compute tasks on
//      its blocking threads.
// Only C types cross the interface, so the plugin's libstdc++ and the
// binary's may differ.
#ifndef BEF_LIB_HOST_TBB_ARENA_H_
#define BEF_LIB_HOST_TBB_ARENA_H_

extern "C" {

struct BefTbbArenaApi {
  // Sizes the process's TBB market for `compute_threads` workers and
  // creates an arena of that many slots, none reserved for the caller.
  // Returns null when TBB fails (it reports failures as exceptions, which
  // stay inside the library).
  void* (*create)(int compute_threads);
  // Runs run(argument) once on one of the arena's threads.
  void (*enqueue)(void* arena, void (*run)(void* argument), void* argument);
  // Waits for the arena's threads to leave it and frees it. Every enqueued
  // task must have finished.
  void (*destroy)(void* arena);
};

// The table, with a version in the name: a plugin from another build of the
// interface is not found rather than called wrongly.
const BefTbbArenaApi* BefTbbArenaApiV1();

}  // extern "C"

#endif  // BEF_LIB_HOST_TBB_ARENA_H_
