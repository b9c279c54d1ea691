// The runs of run_async that finished, in the order they finished; the
// package's dispatcher thread takes them one by one (_next_completion).
#ifndef BEF_PYTHON_SRC_COMPLETION_QUEUE_H_
#define BEF_PYTHON_SRC_COMPLETION_QUEUE_H_

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

namespace bef::python {

class RunCall;  // runtime_module.cc

class CompletionQueue {
 public:
  static CompletionQueue& Get() {
    static auto* queue = new CompletionQueue();
    return *queue;
  }
  void Push(std::shared_ptr<RunCall> call) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      calls_.push_back(std::move(call));
    }
    ready_.notify_one();
  }
  // Null once closed. REQUIRES: the GIL is released.
  std::shared_ptr<RunCall> Pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !calls_.empty(); });
    if (calls_.empty()) return nullptr;
    std::shared_ptr<RunCall> call = std::move(calls_.front());
    calls_.pop_front();
    return call;
  }
  void Close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }
  void Reopen() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = false;
  }
  // Around os.fork(): the queue is not in use while a fork copies it; the
  // child drops (leaks) the parent's finished runs, whose futures are not
  // in the child's dispatcher. Registers the handlers (the module's init,
  // once).
  static void PrepareForForks();

 private:
  void LockForFork() { mutex_.lock(); }
  void UnlockInParent() { mutex_.unlock(); }
  void ResetInChild() {
    new std::deque<std::shared_ptr<RunCall>>(std::move(calls_));
    calls_.clear();
    closed_ = false;
    mutex_.unlock();
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<RunCall>> calls_;
  bool closed_ = false;
};

inline void CompletionQueue::PrepareForForks() {
  pthread_atfork([] { Get().LockForFork(); }, [] { Get().UnlockInParent(); },
                 [] { Get().ResetInChild(); });
}

}  // namespace bef::python

#endif  // BEF_PYTHON_SRC_COMPLETION_QUEUE_H_
