// The `s` work queue: a FIFO run by the host thread in Await and Quiesce.
//
// Synchronization uses std::mutex (pthreads), not absl::Mutex: Debian's
// Abseil is not built for ThreadSanitizer, which then cannot see absl::Mutex
// ordering.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

#include "bef/host/work_queue.h"

namespace bef {
namespace {

// Set while a task of some single-threaded queue runs on this thread.
thread_local int running_tasks = 0;

class SingleThreadedWorkQueue : public ConcurrentWorkQueue {
 public:
  std::string name() const override { return "single-threaded"; }

  void AddTask(TaskFunction task) override {
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->tasks.push_back(std::move(task));
    }
    state_->changed.notify_all();
  }

  std::optional<TaskFunction> AddBlockingTask(TaskFunction task,
                                              bool allow_queuing) override {
    if (!allow_queuing) return std::move(task);
    AddTask(std::move(task));
    return std::nullopt;
  }

  void Await(std::span<AsyncValue* const> values) override {
    // Values may become available on other threads: their callbacks count
    // down under the queue's mutex and wake this thread. The state is shared
    // so a late callback never touches a destroyed queue.
    auto waiting = std::make_shared<int>(0);
    for (AsyncValue* value : values) {
      if (value->IsAvailable()) continue;
      {
        std::lock_guard<std::mutex> lock(state_->mutex);
        ++*waiting;
      }
      value->AndThen([state = state_, waiting] {
        {
          std::lock_guard<std::mutex> lock(state->mutex);
          --*waiting;
        }
        state->changed.notify_all();
      });
    }
    while (true) {
      TaskFunction task;
      {
        std::unique_lock<std::mutex> lock(state_->mutex);
        state_->changed.wait(lock, [&] {
          return *waiting == 0 || !state_->tasks.empty();
        });
        if (*waiting == 0) return;
        task = std::move(state_->tasks.front());
        state_->tasks.pop_front();
      }
      Run(task);
    }
  }

  void Quiesce() override {
    while (true) {
      std::deque<TaskFunction> batch;
      {
        std::lock_guard<std::mutex> lock(state_->mutex);
        if (state_->tasks.empty()) return;
        batch.swap(state_->tasks);
      }
      for (TaskFunction& task : batch) Run(task);
    }
  }

  int GetParallelismLevel() const override { return 1; }
  bool IsInWorkerThread() const override { return running_tasks > 0; }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<TaskFunction> tasks;
  };

  static void Run(TaskFunction& task) {
    ++running_tasks;
    task();
    task.reset();
    --running_tasks;
  }

  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace

std::unique_ptr<ConcurrentWorkQueue> CreateSingleThreadedWorkQueue() {
  return std::make_unique<SingleThreadedWorkQueue>();
}

}  // namespace bef
