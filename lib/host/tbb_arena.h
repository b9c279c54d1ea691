// The oneTBB task arena behind the `mstd` work queue, as a C interface.
//
// The runtime reaches the arena only through this table, returned by the
// source a binary registers (bef::RegisterTbbArenaSource, work_queue.h):
//   - //lib/host:tbb_arena links oneTBB and registers BefTbbArenaApiV1 as
//     the source when the binary starts (tests, benchmarks, bef_serve,
//     embedders: the runtime behaves the same in all of them);
//   - bef_executor registers a source that loads the same code, built as
//     the plugin //lib/host:libbef_tbb_arena.so, on first use
//     (tools/tbb_arena_plugin.cc): linking libtbb.so would load it and the
//     shared libstdc++ it needs at every start.
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
