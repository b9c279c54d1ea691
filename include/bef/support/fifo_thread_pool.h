// FifoThreadPool: a fixed set of plain threads running tasks in the order
// they were added. The one worker pool of the project's front ends: the
// HTTP server's workers (tools/serving/http_server.cc) and the thread arena
// the Python package gives a forked child's work queues, where oneTBB's
// workers are gone (python/src/runtime_module.cc). The executor's own work
// queues are lib/host's (work_queue.h); this is for whole requests and
// tasks that may block.
//
// Thread-safety: Add from any thread; Stop and Abandon from one thread,
// after which nothing is added.
#ifndef BEF_SUPPORT_FIFO_THREAD_POOL_H_
#define BEF_SUPPORT_FIFO_THREAD_POOL_H_

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "bef/support/unique_function.h"

namespace bef {

class FifoThreadPool {
 public:
  explicit FifoThreadPool(int threads) {
    threads_.reserve(threads);
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
  }
  // Stop(): every task added runs before the threads end.
  ~FifoThreadPool() { Stop(); }
  FifoThreadPool(const FifoThreadPool&) = delete;
  FifoThreadPool& operator=(const FifoThreadPool&) = delete;

  void Add(UniqueFunction<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    wake_.notify_one();
  }

  // Runs the tasks still queued, then joins the threads.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
  }

  // For a process that exits with tasks still running: the threads are
  // left to the exit.
  void Abandon() {
    for (std::thread& thread : threads_) {
      if (thread.joinable()) thread.detach();
    }
  }

 private:
  void Work() {
    while (true) {
      UniqueFunction<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;  // stopping, every task run
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<UniqueFunction<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace bef

#endif  // BEF_SUPPORT_FIFO_THREAD_POOL_H_
