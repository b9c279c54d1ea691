// Linking //lib/host:tbb_arena makes oneTBB the source of every `mstd`
// queue's arena (bef::RegisterTbbArenaSource, work_queue.h). Not part of
// the plugin build of tbb_arena.cc, which knows nothing of the runtime.
#include "bef/host/work_queue.h"
#include "lib/host/tbb_arena.h"

namespace {

[[maybe_unused]] const bool registered = [] {
  bef::RegisterTbbArenaSource(&BefTbbArenaApiV1);
  return true;
}();

}  // namespace
