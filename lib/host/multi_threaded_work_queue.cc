// The `mstd` work queue: compute tasks on a oneTBB arena, blocking tasks on
// a pool of threads created on demand. The arena comes from the source the
// binary registered (RegisterTbbArenaSource, work_queue.h), through the C
// table of lib/host/tbb_arena.h.
//
// Compute tasks wait in one FIFO (a spin lock held for a push or a pop);
// up to as many *runners* as the arena has threads, each one oneTBB task,
// drain it. A thread enqueuing many tasks (an invocation starting 10,000
// async kernels) so pays one push per task, not one arena hand-off and
// worker wake-up each.
//
// A compute task that adds a compute task keeps the newest in its thread's
// *next slot* (as Go's scheduler does) and runs it when it returns, instead
// of queuing it: a chain of tasks, each enqueuing the next (async
// kernels feeding each other), stays on one thread with no arena hand-off
// and no wake-up. A task already in the slot goes to the FIFO when a newer
// one takes its place, so a task that fans out still spreads its work; the
// slot is also emptied into the FIFO after kMaxSlotRuns tasks in a row
// (fairness), and before the thread blocks in Await or Quiesce (the task it
// waits for may be the one in the slot).
//
// A runner takes tasks from the FIFO a *batch* at a time: a share of what
// waits (1 / (2 x threads), up to kMaxBatch; one task when fewer than
// 4 x threads wait, so batches form only under a backlog, where the other
// runners find work in the FIFO too), under one hold of the lock, and
// counts them finished with one update of the pending count. Tasks made
// by one thread one after another (an invocation starting async kernels) so run on one runner in
// order: their results and the users they release share cache lines, which
// two threads taking alternate tasks would pass back and forth for every
// task. What is left of
// a batch goes back to the FIFO before the thread blocks, as the slot does.
//
// While kernels split their work (a parallel task offered in the last
// kSplitPhase), a runner that finds the FIFO empty *stays* up to
// kSplitPhase past the last offer, spinning on the FIFO's count, instead of
// leaving the arena: the next kernel's share (the next layer of a model,
// the next run's first layer) then starts within a microsecond on a thread
// that is awake. A runner that left the arena is started again through
// oneTBB, which on this project's VMs took 2-4 us and often 50 us or more
// (waking an idle vCPU), while the caller had its own share done in 10. A
// staying runner counts as one for the next task: Enqueue starts another
// only for tasks beyond those the staying runners will take. Outside a
// split phase (async kernels, stream tasks) runners leave at once, as
// before, and burn nothing.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bef/host/work_queue.h"
#include "bef/support/fifo_thread_pool.h"
#include "bef/support/logging.h"
#include "bef/support/spin_lock.h"
#include "lib/host/tbb_arena.h"

namespace bef {
namespace {

std::atomic<TbbArenaSource> registered_arena_source{nullptr};

class MultiThreadedWorkQueue;
thread_local const MultiThreadedWorkQueue* current_queue = nullptr;

constexpr int kMaxSlotRuns = 64;
constexpr int kMaxBatch = 32;
// How long after the last parallel task an idle runner stays (see above).
constexpr std::chrono::nanoseconds kSplitPhase = std::chrono::microseconds(100);

int64_t NowNanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The next slot of a runner and the rest of its batch (see above), on the
// runner's stack.
struct NextSlot {
  MultiThreadedWorkQueue* queue = nullptr;
  TaskFunction task;
  TaskFunction batch[kMaxBatch];  // batch[batch_next, batch_end) not yet run
  int batch_next = 0;
  int batch_end = 0;
};
// The slot of the runner on this thread (null: none). A plain pointer, so
// reading it costs no thread-local initialisation check (a thread_local
// NextSlot, with its destructor, went through __tls_init at every task a
// runner added); a runner nested in a task (TBB may nest) points it at its
// own slot and gives the interrupted one back when it returns.
constinit thread_local NextSlot* next_slot = nullptr;
// The slot of this thread's runner of `queue`, or null.
inline NextSlot* SlotOf(const MultiThreadedWorkQueue* queue) {
  NextSlot* slot = next_slot;
  return slot != nullptr && slot->queue == queue ? slot : nullptr;
}

class MultiThreadedWorkQueue : public ConcurrentWorkQueue {
 public:
  MultiThreadedWorkQueue(TbbArenaSource source, int compute_threads,
                         int blocking_threads, int64_t budget_threads)
      : compute_threads_(compute_threads),
        blocking_threads_(blocking_threads),
        budget_threads_(budget_threads),
        source_(source) {}

  ~MultiThreadedWorkQueue() override {
    Quiesce();
    // Runners and Finished calls may still be on their way out.
    while (finishing_.load(std::memory_order_acquire) != 0 ||
           runners_alive_.load(std::memory_order_acquire) != 0) {
      std::this_thread::yield();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    blocking_work_.notify_all();
    for (std::thread& thread : threads_) thread.join();
    if (arena_ != nullptr) tbb_->destroy(arena_);
    if (budget_threads_ > 0) internal::ReturnThreadBudget(budget_threads_);
  }

  std::string name() const override {
    return absl::StrCat("Multi-threaded C++ work queue (", compute_threads_,
                        " threads, ", blocking_threads_, " blocking threads)");
  }

  void AddTask(TaskFunction task) override {
    pending_.fetch_add(1, std::memory_order_relaxed);
    if (NextSlot* slot = SlotOf(this); slot != nullptr) [[likely]] {
      // From one of this queue's compute tasks: the newest waits in the slot.
      if (slot->task) Enqueue(std::move(slot->task));
      slot->task = std::move(task);
      return;
    }
    Enqueue(std::move(task));
  }

  bool NextToRunHere() const override {
    // One of this queue's compute tasks, its slot and batch empty, and no
    // other task pending anywhere (the running one is the 1).
    const NextSlot* slot = SlotOf(this);
    return slot != nullptr && !slot->task && slot->batch_next == slot->batch_end &&
           pending_.load(std::memory_order_acquire) == 1;
  }

  void AddParallelTask(TaskFunction task) override {
    pending_.fetch_add(1, std::memory_order_relaxed);
    last_parallel_task_.store(NowNanoseconds(), std::memory_order_relaxed);
    Enqueue(std::move(task));
  }

  std::optional<TaskFunction> AddBlockingTask(TaskFunction task,
                                              bool allow_queuing) override {
    std::unique_lock<std::mutex> lock(mutex_);
    bool thread_free = idle_threads_ > static_cast<int>(blocking_tasks_.size()) ||
                       static_cast<int>(threads_.size()) < blocking_threads_;
    if (!thread_free && !allow_queuing) return std::move(task);
    pending_.fetch_add(1, std::memory_order_relaxed);
    PushBlocking(std::move(task), lock);
    return std::nullopt;
  }

  void Await(std::span<AsyncValue* const> values) override {
    FlushNextSlot();
    struct Waiting {
      std::mutex mutex;
      std::condition_variable done;
      int remaining = 0;
    };
    auto waiting = std::make_shared<Waiting>();
    for (AsyncValue* value : values) {
      if (value->IsAvailable()) continue;
      {
        std::lock_guard<std::mutex> lock(waiting->mutex);
        ++waiting->remaining;
      }
      value->AndThen([waiting] {
        {
          std::lock_guard<std::mutex> lock(waiting->mutex);
          --waiting->remaining;
        }
        waiting->done.notify_all();
      });
    }
    std::unique_lock<std::mutex> lock(waiting->mutex);
    waiting->done.wait(lock, [&] { return waiting->remaining == 0; });
  }

  void Quiesce() override {
    FlushNextSlot();
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
  }

  bool RunPendingTask() override {
    if (SlotOf(this) != nullptr) return false;  // a runner: its own loop does
    TaskFunction task;
    {
      SpinLock lock(compute_lock_);
      if (compute_tasks_.empty()) return false;
      task = std::move(compute_tasks_.front());
      compute_tasks_.pop_front();
      waiting_.store(compute_tasks_.size(), std::memory_order_relaxed);
    }
    task();
    task.reset();
    Finished(1);
    return true;
  }

  int GetParallelismLevel() const override { return compute_threads_; }
  bool IsInWorkerThread() const override { return current_queue == this; }

 private:
  // A runner: one arena task that runs compute tasks from compute_tasks_
  // until it is empty (at most compute_threads_ runners at a time).
  static void RunCompute(void* argument) {
    AnnotateReceive();  // before reading the queue's hand-off
    auto* queue = static_cast<MultiThreadedWorkQueue*>(argument);
    const MultiThreadedWorkQueue* previous = current_queue;
    current_queue = queue;
    // A runner inside a task (TBB may nest): the interrupted runner's slot
    // and batch wait in its own frame.
    NextSlot slot;
    slot.queue = queue;
    NextSlot* const interrupted = std::exchange(next_slot, &slot);
    while (true) {
      {
        SpinLock lock(queue->compute_lock_);
        const size_t waiting = queue->compute_tasks_.size();
        if (waiting == 0) {
          if (queue->StayForTheNextShare()) continue;
          --queue->runners_;  // a push from now on starts another
          break;
        }
        const int take = static_cast<int>(std::clamp<size_t>(
            waiting / (2 * static_cast<size_t>(queue->compute_threads_)), 1, kMaxBatch));
        for (int i = 0; i < take; ++i) {
          slot.batch[i] = std::move(queue->compute_tasks_.front());
          queue->compute_tasks_.pop_front();
        }
        queue->waiting_.store(queue->compute_tasks_.size(), std::memory_order_relaxed);
        slot.batch_next = 0;
        slot.batch_end = take;
      }
      int finished = 0;
      while (slot.batch_next < slot.batch_end) {
        TaskFunction task = std::move(slot.batch[slot.batch_next]);
        slot.batch[slot.batch_next++] = nullptr;
        finished += queue->RunWithSlot(slot, std::move(task));
      }
      queue->Finished(finished);
    }
    next_slot = interrupted;
    current_queue = previous;
    // The last touch of the queue: the destructor waits for it.
    queue->runners_alive_.fetch_sub(1, std::memory_order_release);
  }

  // Runs `task`, then the tasks it leaves in the slot, each possibly
  // leaving the next; after kMaxSlotRuns the one left goes to the FIFO
  // (counted already). Returns how many tasks ran, for Finished.
  int RunWithSlot(NextSlot& slot, TaskFunction task) {
    task();
    task.reset();
    int runs = 1;
    for (; slot.task && runs <= kMaxSlotRuns; ++runs) {
      TaskFunction next = std::move(slot.task);
      slot.task = nullptr;
      next();
    }
    if (slot.task) {
      TaskFunction next = std::move(slot.task);
      slot.task = nullptr;
      Enqueue(std::move(next));
    }
    return runs;
  }

  // A runner that found the FIFO empty: in a split phase, waits with
  // compute_lock_ released until a task is queued (true: take it) or the
  // phase is over (false: leave). REQUIRES: compute_lock_ held; it is held
  // again on return.
  bool StayForTheNextShare() {
    const int64_t last = last_parallel_task_.load(std::memory_order_relaxed);
    if (last == 0 || NowNanoseconds() - last >= kSplitPhase.count()) return false;
    ++staying_runners_;
    SpinLock::Release(compute_lock_);
    bool task_queued = false;
    for (int spins = 1;; ++spins) {
      if (waiting_.load(std::memory_order_relaxed) != 0) {
        task_queued = true;
        break;
      }
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      if (spins % 256 == 0) {
        if (NowNanoseconds() - last_parallel_task_.load(std::memory_order_relaxed) >=
            kSplitPhase.count()) {
          break;
        }
        if (spins % 1024 == 0) std::this_thread::yield();  // a thread waiting for this core
      }
    }
    SpinLock::Acquire(compute_lock_);
    --staying_runners_;
    return task_queued || !compute_tasks_.empty();
  }

  // Hands `task` (counted in pending_) to the compute FIFO, starting a
  // runner on the arena when fewer than compute_threads_ run.
  void Enqueue(TaskFunction task) {
    void* arena = Arena();
    if (arena == nullptr) [[unlikely]] {
      // A compute task on the blocking threads (counted already).
      std::unique_lock<std::mutex> lock(mutex_);
      PushBlocking(std::move(task), lock);
      return;
    }
    bool start_runner = false;
    {
      SpinLock lock(compute_lock_);
      compute_tasks_.push_back(std::move(task));
      waiting_.store(compute_tasks_.size(), std::memory_order_relaxed);
      // Staying runners take the first tasks; more start a runner.
      if (runners_ < compute_threads_ &&
          compute_tasks_.size() > static_cast<size_t>(staying_runners_)) {
        ++runners_;
        runners_alive_.fetch_add(1, std::memory_order_relaxed);
        start_runner = true;
      }
    }
    if (start_runner) {
      AnnotateHandoff();
      tbb_->enqueue(arena, &RunCompute, this);
    }
  }

  // Empties this thread's next slot and the rest of its batch into the
  // FIFO (before blocking: the task waited for may be among them).
  void FlushNextSlot() {
    NextSlot* const slot = SlotOf(this);
    if (slot == nullptr) return;
    if (slot->task) {
      TaskFunction task = std::move(slot->task);
      slot->task = nullptr;
      Enqueue(std::move(task));
    }
    while (slot->batch_next < slot->batch_end) {
      TaskFunction task = std::move(slot->batch[slot->batch_next]);
      slot->batch[slot->batch_next++] = nullptr;
      Enqueue(std::move(task));
    }
  }

  // TBB's enqueue orders the caller's writes before the task, but Debian's
  // libtbb is not instrumented, so ThreadSanitizer cannot see it; under TSan
  // a release/acquire pair on one process-wide counter makes the ordering
  // visible. (Compiled out otherwise.)
#if defined(__SANITIZE_THREAD__)
  static std::atomic<uint64_t>& Handoff() {
    static std::atomic<uint64_t> handoff{0};
    return handoff;
  }
#endif
  static void AnnotateHandoff() {
#if defined(__SANITIZE_THREAD__)
    Handoff().fetch_add(1, std::memory_order_release);
#endif
  }
  static void AnnotateReceive() {
#if defined(__SANITIZE_THREAD__)
    Handoff().load(std::memory_order_acquire);
#endif
  }

  // The arena, created by the first task; null when oneTBB could not be
  // loaded after all (the plugin found at creation fails to load): compute
  // tasks then run on the blocking threads, and an error says so once.
  void* Arena() {
    std::call_once(arena_once_, [this] {
      const BefTbbArenaApi* tbb = source_();
      std::string failure;
      if (tbb == nullptr) failure = "the registered oneTBB arena source failed";
      void* arena = tbb != nullptr ? tbb->create(compute_threads_) : nullptr;
      if (tbb != nullptr && arena == nullptr) {
        failure = absl::StrCat("oneTBB could not create an arena of ", compute_threads_,
                               " threads");
      }
      if (arena == nullptr) {
        LogLine(LogSeverity::kError, "multi_threaded_work_queue.cc", __LINE__,
                absl::StrCat("mstd work queue: ", failure,
                             "; compute tasks run on the blocking threads"));
        return;
      }
      tbb_ = tbb;
      arena_ = arena;
    });
    return arena_;
  }

  // The last task notifies under the lock; the destructor waits for every
  // Finished call to be over (finishing_), since Quiesce may see pending_
  // reach zero before the notification and the queue then be destroyed.
  void Finished(int tasks = 1) {
    finishing_.fetch_add(1, std::memory_order_acq_rel);
    if (pending_.fetch_sub(tasks, std::memory_order_acq_rel) == tasks) {
      std::lock_guard<std::mutex> lock(mutex_);
      idle_.notify_all();
    }
    finishing_.fetch_sub(1, std::memory_order_release);
  }

  void BlockingThread() {
    current_queue = this;
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      ++idle_threads_;
      blocking_work_.wait(lock,
                          [this] { return stopping_ || !blocking_tasks_.empty(); });
      --idle_threads_;
      if (blocking_tasks_.empty()) return;  // stopping
      TaskFunction task = std::move(blocking_tasks_.front());
      blocking_tasks_.pop_front();
      lock.unlock();
      task();
      task.reset();
      Finished();
      lock.lock();
    }
  }

  // Queues a blocking task (counted in pending_) and starts a thread for
  // it when none is idle and the pool may grow; releases `lock` (on
  // mutex_) and wakes a thread.
  void PushBlocking(TaskFunction task, std::unique_lock<std::mutex>& lock) {
    blocking_tasks_.push_back(std::move(task));
    if (idle_threads_ < static_cast<int>(blocking_tasks_.size()) &&
        static_cast<int>(threads_.size()) < blocking_threads_) {
      threads_.emplace_back([this] { BlockingThread(); });
    }
    lock.unlock();
    blocking_work_.notify_one();
  }

  const int compute_threads_;
  const int blocking_threads_;
  const int64_t budget_threads_;  // of the process's budget, given back when destroyed
  const TbbArenaSource source_;
  std::once_flag arena_once_;
  const BefTbbArenaApi* tbb_ = nullptr;  // set with arena_
  void* arena_ = nullptr;

  std::mutex mutex_;
  std::condition_variable idle_;
  std::condition_variable blocking_work_;
  std::atomic<bool> compute_lock_{false};
  std::deque<TaskFunction> compute_tasks_;  // the compute FIFO
  int runners_ = 0;  // runners draining the FIFO (under compute_lock_)
  int staying_runners_ = 0;         // of those, staying for the next share (under compute_lock_)
  std::atomic<size_t> waiting_{0};  // compute_tasks_.size(), for staying runners to watch
  std::atomic<int64_t> last_parallel_task_{0};  // when one was last offered (steady clock, ns)
  std::atomic<int> runners_alive_{0};  // runners started and not returned
  std::atomic<int> pending_{0};    // queued or running tasks of both kinds
  std::atomic<int> finishing_{0};  // Finished calls under way
  std::deque<TaskFunction> blocking_tasks_;
  std::vector<std::thread> threads_;
  int idle_threads_ = 0;
  bool stopping_ = false;
};

}  // namespace

void RegisterTbbArenaSource(TbbArenaSource source) {
  registered_arena_source.store(source, std::memory_order_release);
}

namespace {

void* CreatePlainThreadArena(int compute_threads) { return new FifoThreadPool(compute_threads); }
void EnqueueOnPlainThreadArena(void* arena, void (*run)(void*), void* argument) {
  static_cast<FifoThreadPool*>(arena)->Add([run, argument] { run(argument); });
}
void DestroyPlainThreadArena(void* arena) {
  delete static_cast<FifoThreadPool*>(arena);  // runs what is queued, joins
}
constexpr BefTbbArenaApi kPlainThreadArena = {&CreatePlainThreadArena, &EnqueueOnPlainThreadArena,
                                              &DestroyPlainThreadArena};
const BefTbbArenaApi* PlainThreadArenaSource() { return &kPlainThreadArena; }

}  // namespace

void UsePlainThreadArenas() { RegisterTbbArenaSource(&PlainThreadArenaSource); }

absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> CreateMultiThreadedWorkQueue(
    int compute_threads, int blocking_threads, int64_t budget_threads) {
  TbbArenaSource source = registered_arena_source.load(std::memory_order_acquire);
  if (source == nullptr) {
    return absl::FailedPreconditionError(
        "the mstd work queue needs a oneTBB arena: link //lib/host:tbb_arena "
        "(or register another source with bef::RegisterTbbArenaSource)");
  }
  return std::make_unique<MultiThreadedWorkQueue>(source, compute_threads, blocking_threads,
                                                  budget_threads);
}

}  // namespace bef
