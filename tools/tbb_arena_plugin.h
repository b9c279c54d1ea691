// bef_executor's source of oneTBB arenas for `mstd` queues: the plugin
// libbef_tbb_arena.so (//lib/host:libbef_tbb_arena.so, tbb_arena.cc built
// as a shared library), loaded with dlopen when the first queue runs its
// first compute task. Linking libtbb directly would load it and the shared
// libstdc++ it needs at every start, which is most of the start-up of a
// program that never enqueues work (docs/performance.md). A start-up trick of
// bef_executor's own: the runtime library knows nothing of it
// (RegisterTbbArenaSource, bef/host/work_queue.h).
//
// Where the plugin is looked for, in order: $BEF_TBB_ARENA_LIBRARY; beside
// the executable (an installed tool); ../lib/host/ from the executable's
// directory (bazel-bin's layout); the dynamic loader's search path.
#ifndef BEF_TOOLS_TBB_ARENA_PLUGIN_H_
#define BEF_TOOLS_TBB_ARENA_PLUGIN_H_

namespace bef::tools {

// Registers the plugin as the arena source (call before creating queues).
void RegisterTbbArenaPlugin();

}  // namespace bef::tools

#endif  // BEF_TOOLS_TBB_ARENA_PLUGIN_H_
