// The `mstd` work queue: compute tasks on a oneTBB arena, blocking tasks on
// a pool of threads created on demand. The arena comes from the source the
// binary registered (RegisterTbbArenaSource, work_queue.h), through the C
// table of lib/host/tbb_arena.h.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bef/host/work_queue.h"
#include "bef/support/logging.h"
#include "lib/host/tbb_arena.h"

namespace bef {
namespace {

std::atomic<TbbArenaSource> registered_arena_source{nullptr};

class MultiThreadedWorkQueue;
thread_local const MultiThreadedWorkQueue* current_queue = nullptr;

class MultiThreadedWorkQueue : public ConcurrentWorkQueue {
 public:
  MultiThreadedWorkQueue(TbbArenaSource source, int compute_threads,
                         int blocking_threads)
      : compute_threads_(compute_threads),
        blocking_threads_(blocking_threads),
        source_(source) {}

  ~MultiThreadedWorkQueue() override {
    Quiesce();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    blocking_work_.notify_all();
    for (std::thread& thread : threads_) thread.join();
    if (arena_ != nullptr) tbb_->destroy(arena_);
  }

  std::string name() const override {
    return absl::StrCat("Multi-threaded C++ work queue (", compute_threads_,
                        " threads, ", blocking_threads_, " blocking threads)");
  }

  void AddTask(TaskFunction task) override {
    void* arena = Arena();
    if (arena == nullptr) [[unlikely]] {
      AddBlockingTask(std::move(task), /*allow_queuing=*/true);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++pending_;
    }
    auto* runner = new Runner{this, std::move(task)};
    AnnotateHandoff();  // after the runner is written
    tbb_->enqueue(arena, &Runner::Run, runner);
  }

  std::optional<TaskFunction> AddBlockingTask(TaskFunction task,
                                              bool allow_queuing) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      int queued = static_cast<int>(blocking_tasks_.size());
      bool thread_free = idle_threads_ > queued ||
                         static_cast<int>(threads_.size()) < blocking_threads_;
      if (!thread_free && !allow_queuing) return std::move(task);
      ++pending_;
      blocking_tasks_.push_back(std::move(task));
      if (idle_threads_ <= queued &&
          static_cast<int>(threads_.size()) < blocking_threads_) {
        threads_.emplace_back([this] { BlockingThread(); });
      }
    }
    blocking_work_.notify_one();
    return std::nullopt;
  }

  void Await(std::span<AsyncValue* const> values) override {
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
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return pending_ == 0; });
  }

  int GetParallelismLevel() const override { return compute_threads_; }
  bool IsInWorkerThread() const override { return current_queue == this; }

 private:
  // One enqueued task; deleted by the arena thread that runs it.
  struct Runner {
    MultiThreadedWorkQueue* queue;
    TaskFunction task;
    static void Run(void* argument) {
      AnnotateReceive();  // before reading the runner
      std::unique_ptr<Runner> runner(static_cast<Runner*>(argument));
      MultiThreadedWorkQueue* queue = runner->queue;
      const MultiThreadedWorkQueue* previous = current_queue;
      current_queue = queue;
      runner->task();
      runner.reset();
      current_queue = previous;
      queue->Finished();
    }
  };

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

  // Notifies under the lock: Quiesce may return and the queue be destroyed
  // as soon as pending_ reaches zero.
  void Finished() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--pending_ == 0) idle_.notify_all();
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
      lock.lock();
      if (--pending_ == 0) idle_.notify_all();
    }
  }

  const int compute_threads_;
  const int blocking_threads_;
  const TbbArenaSource source_;
  std::once_flag arena_once_;
  const BefTbbArenaApi* tbb_ = nullptr;  // set with arena_
  void* arena_ = nullptr;

  std::mutex mutex_;
  std::condition_variable idle_;
  std::condition_variable blocking_work_;
  int pending_ = 0;  // queued or running tasks of both kinds
  std::deque<TaskFunction> blocking_tasks_;
  std::vector<std::thread> threads_;
  int idle_threads_ = 0;
  bool stopping_ = false;
};

}  // namespace

void RegisterTbbArenaSource(TbbArenaSource source) {
  registered_arena_source.store(source, std::memory_order_release);
}

absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> CreateMultiThreadedWorkQueue(
    int compute_threads, int blocking_threads) {
  TbbArenaSource source = registered_arena_source.load(std::memory_order_acquire);
  if (source == nullptr) {
    return absl::FailedPreconditionError(
        "the mstd work queue needs a oneTBB arena: link //lib/host:tbb_arena "
        "(or register another source with bef::RegisterTbbArenaSource)");
  }
  return std::make_unique<MultiThreadedWorkQueue>(source, compute_threads,
                                                  blocking_threads);
}

}  // namespace bef
