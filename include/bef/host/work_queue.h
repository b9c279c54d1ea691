// ConcurrentWorkQueue: where the runtime runs work that is not done inline --
// enqueued kernels, asynchronous kernels' continuations, blocking I/O.
//
// Kinds, by the spec string of bef_executor --work_queue_type:
//   s           single-threaded: no threads; tasks run on the host thread
//               when it calls Await or Quiesce (FIFO), which makes test
//               output deterministic. Blocking tasks are queued the same way
//               when queuing is allowed, refused otherwise.
//   mstd        multi-threaded: compute threads on oneTBB (default: the
//   mstd:N      usable cores, below) and up to M threads for blocking work (default
//   mstd:N,M    256). Threads start on first use, so creating a queue costs
//               microseconds. The oneTBB arena comes from the source the
//               binary registered (RegisterTbbArenaSource below). N + M may
//               not exceed what the process may have (the least of
//               RLIMIT_NPROC, the kernel's threads-max, the cgroup's
//               pids.max and kMaxWorkQueueThreads): such a spec is refused
//               with the limit named; the default M shrinks to fit.
//
// Thread safety: AddTask and AddBlockingTask may be called from any thread;
// Await and Quiesce from the host thread (the one running the program).
#ifndef BEF_HOST_WORK_QUEUE_H_
#define BEF_HOST_WORK_QUEUE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "bef/async/async_value.h"
#include "bef/support/unique_function.h"

extern "C" {
struct BefTbbArenaApi;  // lib/host/tbb_arena.h
}

namespace bef {

using TaskFunction = UniqueFunction<void()>;

// The most threads (compute + blocking) one `mstd` queue may ask for.
inline constexpr int64_t kMaxWorkQueueThreads = 32768;

class ConcurrentWorkQueue {
 public:
  virtual ~ConcurrentWorkQueue() = default;

  // "single-threaded" or "Multi-threaded C++ work queue (N threads, M
  // blocking threads)".
  virtual std::string name() const = 0;
  // Non-blocking work. A queue may run a task added by one of its tasks on
  // the same thread right after that task (mstd's next slot).
  virtual void AddTask(TaskFunction task) = 0;
  // Non-blocking work meant to run alongside the caller (helpers of a
  // parallel run, blocks of tfrt.parallel_for): never held back behind the
  // task that adds it. The default is AddTask.
  virtual void AddParallelTask(TaskFunction task) { AddTask(std::move(task)); }
  // Work that may block (I/O, sleeps). When it cannot be started now and
  // `allow_queuing` is false, the task is handed back.
  virtual std::optional<TaskFunction> AddBlockingTask(TaskFunction task,
                                                      bool allow_queuing) = 0;
  // Returns once every value is available, running queued work meanwhile
  // where the queue runs work on the caller's thread.
  virtual void Await(std::span<AsyncValue* const> values) = 0;
  // Runs one compute task that waits in the queue on the calling thread, if
  // one waits (any thread but the queue's own; false when none waits). A
  // thread that would otherwise block until a run's results are available
  // (a server's request thread) helps instead: a run whose work waits for
  // a compute thread while every compute thread is inside another run's
  // long kernel is then run by its own caller, not after those kernels.
  // The task runs as it would on a compute thread, except that
  // IsInWorkerThread() is false there. `s` and queues without a FIFO of
  // compute tasks run none.
  virtual bool RunPendingTask() { return false; }
  // Returns once no task is queued or running.
  virtual void Quiesce() = 0;
  virtual int GetParallelismLevel() const = 0;
  // Whether the calling thread is running one of this queue's tasks.
  virtual bool IsInWorkerThread() const = 0;
  // Whether queued compute tasks run on threads of the queue's own. False
  // for the single-threaded queue ("s"), whose tasks run only inside a
  // caller's Await or Quiesce: a server whose request threads wait for
  // results without them (bef_serve) cannot use it.
  virtual bool HasComputeThreads() const { return true; }
  // Whether a task that the running task added now would be the next one
  // this queue runs, on this thread, with nothing else queued before it.
  // A task about to add its continuation as its last act may then run the
  // continuation itself instead (the executor's deferred steps): the same
  // work in the same order, without a trip through the queue. False is
  // always safe (the default).
  virtual bool NextToRunHere() const { return false; }
  // Task runs: on a queue that supports them, a task may run the work of
  // several tasks its thread would add together (consecutive in the
  // queue), one part after another, as the executor does with the tasks of
  // other streams. Between two parts it asks ContinueRun(): false when the
  // queue would not run the next part now, on this thread, were it a task
  // of its own (an Await whose values are all available returns first, or
  // work another thread added runs first); the task then hands the rest
  // back with AddTaskAhead, which queues it where that next part's task
  // would be: ahead of whatever the parts that ran added. The same work in
  // the same order as separate tasks, without a trip through the queue per
  // part. A queue of several threads runs separate tasks side by side, so
  // it offers no runs (the defaults).
  virtual bool SupportsTaskRuns() const { return false; }
  virtual bool ContinueRun() const { return false; }
  virtual void AddTaskAhead(TaskFunction task) { AddTask(std::move(task)); }
};

// The cores this process may run on, at least 1: the CPUs of its affinity
// mask (taskset, a cpuset), fewer when its cgroup's CPU quota allows less
// (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`,
// rounded up: a container limited to 1.5 CPUs gets 2). What a thread pool
// sized "one per core" should use: std::thread::hardware_concurrency counts
// the machine's CPUs, which a container or a pinned process may not have.
int UsableCores();

std::unique_ptr<ConcurrentWorkQueue> CreateSingleThreadedWorkQueue();
// REQUIRES: compute_threads >= 1, blocking_threads >= 1. Fails when no
// arena source is registered (the message names what to link).
// `budget_threads`: threads of the process's budget (below) the queue gives
// back when it is destroyed (CreateWorkQueue's queues hold their compute +
// blocking threads; 0 for queues made outside the budget).
absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> CreateMultiThreadedWorkQueue(
    int compute_threads, int blocking_threads, int64_t budget_threads = 0);

// One thread budget per process: every `mstd` queue CreateWorkQueue makes
// holds its compute + blocking threads of what the process may have (the
// least of RLIMIT_NPROC, threads-max, pids.max and kMaxWorkQueueThreads)
// while it lives, so queues together never ask for more than that: a queue
// that does not fit is refused at creation, with the limit and what other
// queues hold named (a thread the system refuses later would end the
// process in oneTBB). An `mstd` spec without a blocking count shrinks its
// blocking pool to what is left.
//
// The spelling of a spec that names the same queue as every other spelling
// of it ("mstd:2", "mstd:02", " mstd:2 " are "mstd:2"; "mstd:2,8"; "s";
// "mstd"): hosts keyed by it are shared by equal specs. INVALID_ARGUMENT
// ("couldn't create work queue type ...") for what is no spec.
absl::StatusOr<std::string> CanonicalWorkQueueSpec(std::string_view spec);

namespace internal {
// Gives `threads` back to the process's budget (a queue being destroyed).
void ReturnThreadBudget(int64_t threads);
// The CPUs the CPU quota of the cgroups listed in `process_cgroups` (the
// format of /proc/self/cgroup) allows, rounded up; none without a quota.
// `cgroup_root`: where the cgroup file systems are mounted (UsableCores:
// /proc/self/cgroup and /sys/fs/cgroup; tests: files of their own).
std::optional<int64_t> CgroupCpuLimit(const std::string& process_cgroups,
                                      const std::string& cgroup_root);
}  // namespace internal

// Where `mstd` queues get their oneTBB task arena: a function returning the
// arena's C table (lib/host/tbb_arena.h), called when a queue runs its first
// compute task (it may load a library then; null means it could not, and
// the queue then runs compute tasks on its blocking threads and logs why).
//
// Linking //lib/host:tbb_arena registers oneTBB itself: that is what tests,
// benchmarks, bef_serve and embedders link, and the runtime behaves the same
// in all of them. A binary may register another source instead (the last
// registration wins); bef_executor registers one that loads oneTBB as a
// plugin on first use, so a run that never enqueues work never loads libtbb
// (tools/tbb_arena_plugin.cc). Without any source, CreateWorkQueue("mstd...")
// fails and says what to link.
using TbbArenaSource = const ::BefTbbArenaApi* (*)();
void RegisterTbbArenaSource(TbbArenaSource source);

// In a process forked from one that used oneTBB (Python's os.fork()):
// oneTBB does not survive a fork (its workers are the parent's, and it does
// not know they are gone), so from now on `mstd` queues get an arena of
// plain threads instead (a FIFO pool, bef/support/fifo_thread_pool.h).
// Queues made before the fork are unusable in the child either way.
void UsePlainThreadArenas();

// Parses a --work_queue_type spec ("name[:args]", split at the first ':').
// Bad arguments are logged as TFRT does ("Invalid argument for s work queue:
// ARG", "Invalid argument for mstd work queue: ARG"); any failure is
// InvalidArgument and the driver prints "couldn't create work queue type
// SPEC". Unlike TFRT, non-numeric and zero thread counts are rejected instead
// of crashing.
absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> CreateWorkQueue(
    std::string_view spec);

}  // namespace bef

#endif  // BEF_HOST_WORK_QUEUE_H_
