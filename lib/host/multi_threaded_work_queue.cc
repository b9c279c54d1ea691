// The `mstd` work queue: compute tasks on a oneTBB arena, blocking tasks on
// a pool of threads created on demand.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bef/host/work_queue.h"
#include "oneapi/tbb/global_control.h"
#include "oneapi/tbb/task_arena.h"

namespace bef {
namespace {

class MultiThreadedWorkQueue;
thread_local const MultiThreadedWorkQueue* current_queue = nullptr;

class MultiThreadedWorkQueue : public ConcurrentWorkQueue {
 public:
  MultiThreadedWorkQueue(int compute_threads, int blocking_threads)
      : compute_threads_(compute_threads),
        blocking_threads_(blocking_threads),
        // All slots for workers: the host thread never joins the arena.
        arena_(compute_threads, /*reserved_for_masters=*/0) {
    // TBB's market allows max_concurrency() - 1 worker threads by default
    // (one slot is the application thread's); this arena wants N workers.
    int default_workers = tbb::this_task_arena::max_concurrency() - 1;
    if (compute_threads > default_workers) {
      parallelism_ = std::make_unique<tbb::global_control>(
          tbb::global_control::max_allowed_parallelism, compute_threads + 1);
    }
  }

  ~MultiThreadedWorkQueue() override {
    Quiesce();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    blocking_work_.notify_all();
    for (std::thread& thread : threads_) thread.join();
    arena_.terminate();
  }

  std::string name() const override {
    return absl::StrCat("Multi-threaded C++ work queue (", compute_threads_,
                        " threads, ", blocking_threads_, " blocking threads)");
  }

  void AddTask(TaskFunction task) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++pending_;
    }
    AnnotateHandoff();
    arena_.enqueue(Runner{this, std::move(task)});
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
  // TBB calls tasks through a const call operator.
  struct Runner {
    MultiThreadedWorkQueue* queue;
    mutable TaskFunction task;
    void operator()() const {
      queue->AnnotateReceive();
      const MultiThreadedWorkQueue* previous = current_queue;
      current_queue = queue;
      task();
      task.reset();
      current_queue = previous;
      queue->Finished();
    }
  };

  // TBB's enqueue orders the caller's writes before the task, but Debian's
  // libtbb is not instrumented, so ThreadSanitizer cannot see it; under TSan
  // a release/acquire pair on `handoff_` makes the ordering visible.
  // (Compiled out otherwise.)
  void AnnotateHandoff() {
#if defined(__SANITIZE_THREAD__)
    handoff_.fetch_add(1, std::memory_order_release);
#endif
  }
  void AnnotateReceive() const {
#if defined(__SANITIZE_THREAD__)
    handoff_.load(std::memory_order_acquire);
#endif
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
  std::unique_ptr<tbb::global_control> parallelism_;
  tbb::task_arena arena_;

#if defined(__SANITIZE_THREAD__)
  mutable std::atomic<uint64_t> handoff_{0};
#endif
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

std::unique_ptr<ConcurrentWorkQueue> CreateMultiThreadedWorkQueue(
    int compute_threads, int blocking_threads) {
  return std::make_unique<MultiThreadedWorkQueue>(compute_threads,
                                                  blocking_threads);
}

}  // namespace bef
