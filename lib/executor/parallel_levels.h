// Straight-line runs whose widest level is wide: the level's kernels are
// split between the work queue's threads (ParallelRun below).
#ifndef BEF_LIB_EXECUTOR_PARALLEL_LEVELS_H_
#define BEF_LIB_EXECUTOR_PARALLEL_LEVELS_H_

#include <cstdint>

#include "bef/host/host_context.h"
#include "lib/executor/execution_plan.h"
#include "lib/executor/fast_path_policy.h"
#include "lib/executor/line_cursor.h"

namespace bef {

// Runs the line level by level; a wide level is split between the work
// queue's threads. Cancellation is looked at before every level and, in a
// level run on this thread, every kCancellationInterval kernels. Returns as
// RunLineRange.
uint32_t RunLevelsInParallel(const ExecutionPlan& plan, PayloadRegister* registers,
                             const uint8_t* attribute_pool, const FastPathPolicy& policy,
                             HostContext* host);

}  // namespace bef

#endif  // BEF_LIB_EXECUTOR_PARALLEL_LEVELS_H_
