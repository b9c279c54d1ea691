// The `s` work queue: a FIFO run by the host thread in Await and Quiesce.
//
// Tasks added by a thread that is draining the queue (inside its Await or
// Quiesce: a task enqueuing the next one, the common case of async kernels)
// go to that thread's own list, with no lock, no condition variable and no
// wake-up; tasks from any other thread go to the shared list under the
// mutex and wake the drainer. A draining thread runs the shared list first
// (so one thread's tasks keep their FIFO order: it added the shared ones
// before it started draining), then its own. Whatever is left in its own
// list when its outermost drain returns moves to the shared list, so no
// task is stranded with a thread.
//
// Synchronization uses std::mutex (pthreads), not absl::Mutex: Debian's
// Abseil is not built for ThreadSanitizer, which then cannot see absl::Mutex
// ordering.
#include <atomic>
#include <condition_variable>
#include <new>
#include <optional>
#include <utility>
#include <memory>
#include <mutex>

#include "bef/host/work_queue.h"

namespace bef {
namespace {

// Set while a task of some single-threaded queue runs on this thread.
thread_local int running_tasks = 0;

// A FIFO of tasks in one ring of slots that doubles when full: a push is
// one move into a slot (a deque allocates a block every few tasks, and an
// async kernel enqueues a task each).
class TaskRing {
 public:
  TaskRing() = default;
  TaskRing(const TaskRing&) = delete;
  TaskRing& operator=(const TaskRing&) = delete;
  ~TaskRing() {
    while (!empty()) pop_front();
    ::operator delete(slots_);
  }
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  void push_back(TaskFunction&& task) {
    if (size() == capacity_) [[unlikely]] Grow();
    ::new (&slots_[tail_++ & (capacity_ - 1)]) TaskFunction(std::move(task));
  }
  // (Positions wrap below zero like above it: slots are positions mod a
  // power of two.)
  void push_front(TaskFunction&& task) {
    if (size() == capacity_) [[unlikely]] Grow();
    ::new (&slots_[--head_ & (capacity_ - 1)]) TaskFunction(std::move(task));
  }
  TaskFunction& front() { return slots_[head_ & (capacity_ - 1)]; }
  // Destroys the front task (moved from, or run).
  void pop_front() {
    front().~TaskFunction();
    ++head_;
  }
  void swap(TaskRing& other) {
    std::swap(slots_, other.slots_);
    std::swap(capacity_, other.capacity_);
    std::swap(head_, other.head_);
    std::swap(tail_, other.tail_);
  }
  // Moves every task to the back of `other`, in order.
  void MoveTo(TaskRing& other) {
    while (!empty()) {
      other.push_back(std::move(front()));
      pop_front();
    }
  }

 private:
  void Grow() {
    size_t capacity = capacity_ == 0 ? 64 : capacity_ * 2;
    auto* slots = static_cast<TaskFunction*>(::operator new(sizeof(TaskFunction) * capacity));
    size_t count = size();
    for (size_t i = 0; i < count; ++i) {
      ::new (&slots[i]) TaskFunction(std::move(front()));
      pop_front();
    }
    ::operator delete(slots_);
    slots_ = slots;
    capacity_ = capacity;
    head_ = 0;
    tail_ = count;
  }
  TaskFunction* slots_ = nullptr;
  size_t capacity_ = 0;  // a power of two (or 0)
  size_t head_ = 0;      // positions grow without bound; slot = position mod capacity
  size_t tail_ = 0;
};

struct State {
  std::mutex mutex;
  std::condition_variable changed;
  TaskRing tasks;  // shared: added by other threads
  // tasks.size(), readable without the mutex (a drainer looks before it
  // runs its own list).
  std::atomic<size_t> shared_count{0};
};

// Where the task a drain runs came from (a task run's rest goes back there:
// AddTaskAhead).
enum class TaskSource : uint8_t { kShared, kOwn, kTaken };

// The queue a thread is draining and the tasks it added meanwhile; on the
// draining thread's stack, linked to the drain it interrupted (of another
// queue).
struct OwnTasks {
  OwnTasks(State* state, OwnTasks* interrupted) : state(state), interrupted(interrupted) {}
  State* state;
  TaskRing tasks;
  OwnTasks* interrupted;
  // Tasks Quiesce took from the shared list and runs before `tasks`.
  TaskRing* taken = nullptr;
  // Where the task running now came from.
  TaskSource running_from = TaskSource::kShared;
  // The innermost drain's count of values it awaits (null: Quiesce, which
  // runs until nothing is queued): at zero it returns before the next task.
  const std::atomic<int>* awaiting = nullptr;
};
thread_local OwnTasks* own_tasks = nullptr;

// Makes this thread a drainer of `state` for its lifetime (unless it is
// one already: a nested drain of the same queue shares the outer list).
class Draining {
 public:
  // `awaiting`: what this drain waits for (see OwnTasks::awaiting).
  Draining(State* state, const std::atomic<int>* awaiting) {
    if (own_tasks != nullptr && own_tasks->state == state) {
      tasks_ = own_tasks;
    } else {
      frame_.emplace(state, own_tasks);
      tasks_ = &*frame_;
      own_tasks = tasks_;
    }
    outer_awaiting_ = std::exchange(tasks_->awaiting, awaiting);
  }
  ~Draining() {
    tasks_->awaiting = outer_awaiting_;
    if (!frame_) return;
    own_tasks = frame_->interrupted;
    if (frame_->tasks.empty()) return;
    State* state = frame_->state;
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      frame_->tasks.MoveTo(state->tasks);
      state->shared_count.store(state->tasks.size(), std::memory_order_relaxed);
    }
    state->changed.notify_all();
  }
  TaskRing& tasks() { return tasks_->tasks; }

 private:
  std::optional<OwnTasks> frame_;
  OwnTasks* tasks_;
  const std::atomic<int>* outer_awaiting_ = nullptr;
};

class SingleThreadedWorkQueue : public ConcurrentWorkQueue {
 public:
  std::string name() const override { return "single-threaded"; }

  void AddTask(TaskFunction task) override {
    if (own_tasks != nullptr && own_tasks->state == state_.get()) [[likely]] {
      own_tasks->tasks.push_back(std::move(task));
      return;
    }
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->tasks.push_back(std::move(task));
      state_->shared_count.store(state_->tasks.size(), std::memory_order_relaxed);
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
    auto waiting = std::make_shared<std::atomic<int>>(0);
    for (AsyncValue* value : values) {
      if (value->IsAvailable()) continue;
      waiting->fetch_add(1, std::memory_order_relaxed);
      value->AndThen([state = state_, waiting] {
        {
          std::lock_guard<std::mutex> lock(state->mutex);
          waiting->fetch_sub(1, std::memory_order_release);
        }
        state->changed.notify_all();
      });
    }
    Draining draining(state_.get(), waiting.get());
    TaskRing& own = draining.tasks();
    while (waiting->load(std::memory_order_acquire) != 0) {
      if (!own.empty() && state_->shared_count.load(std::memory_order_relaxed) == 0) {
        RunFront(own, TaskSource::kOwn);
        continue;
      }
      std::unique_lock<std::mutex> lock(state_->mutex);
      state_->changed.wait(lock, [&] {
        return waiting->load(std::memory_order_acquire) == 0 || !state_->tasks.empty() ||
               !own.empty();
      });
      if (waiting->load(std::memory_order_acquire) == 0) return;
      if (state_->tasks.empty()) continue;  // own tasks: run without the lock
      TaskFunction task = std::move(state_->tasks.front());
      state_->tasks.pop_front();
      state_->shared_count.store(state_->tasks.size(), std::memory_order_relaxed);
      lock.unlock();
      Run(task, TaskSource::kShared);
    }
  }

  void Quiesce() override {
    Draining draining(state_.get(), nullptr);
    TaskRing& own = draining.tasks();
    while (true) {
      TaskRing batch;
      {
        std::lock_guard<std::mutex> lock(state_->mutex);
        batch.swap(state_->tasks);
        state_->shared_count.store(0, std::memory_order_relaxed);
      }
      if (batch.empty() && own.empty()) return;
      TaskRing* outer = std::exchange(own_tasks->taken, &batch);
      while (!batch.empty()) RunFront(batch, TaskSource::kTaken);
      own_tasks->taken = outer;
      while (!own.empty() && state_->shared_count.load(std::memory_order_relaxed) == 0) {
        RunFront(own, TaskSource::kOwn);
      }
    }
  }

  bool NextToRunHere() const override {
    // The drainer runs the shared list first, then a batch Quiesce took,
    // then its own list; an Await whose values are all available returns
    // before running another task.
    return own_tasks != nullptr && own_tasks->state == state_.get() && own_tasks->tasks.empty() &&
           (own_tasks->taken == nullptr || own_tasks->taken->empty()) &&
           (own_tasks->awaiting == nullptr ||
            own_tasks->awaiting->load(std::memory_order_acquire) != 0) &&
           state_->shared_count.load(std::memory_order_relaxed) == 0;
  }

  bool SupportsTaskRuns() const override { return true; }
  bool ContinueRun() const override {
    const OwnTasks* own = own_tasks;
    if (own == nullptr || own->state != state_.get()) return false;  // not one of its tasks
    if (own->awaiting != nullptr && own->awaiting->load(std::memory_order_acquire) == 0) {
      return false;  // the Await returns before its next task
    }
    // The next part would be first in the list the run came from; the
    // shared list goes before the thread's own (a batch Quiesce took runs
    // to its end first).
    return own->running_from != TaskSource::kOwn ||
           state_->shared_count.load(std::memory_order_relaxed) == 0;
  }
  void AddTaskAhead(TaskFunction task) override {
    OwnTasks* own = own_tasks;
    if (own == nullptr || own->state != state_.get()) {
      AddTask(std::move(task));
      return;
    }
    switch (own->running_from) {
      case TaskSource::kOwn:
        own->tasks.push_front(std::move(task));
        return;
      case TaskSource::kTaken:
        own->taken->push_front(std::move(task));
        return;
      case TaskSource::kShared:
        break;
    }
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->tasks.push_front(std::move(task));
      state_->shared_count.store(state_->tasks.size(), std::memory_order_relaxed);
    }
    state_->changed.notify_all();
  }

  int GetParallelismLevel() const override { return 1; }
  bool HasComputeThreads() const override { return false; }
  bool IsInWorkerThread() const override { return running_tasks > 0; }

 private:
  // Inside a drain (own_tasks is the drain's).
  static void Run(TaskFunction& task, TaskSource source) {
    OwnTasks* own = own_tasks;
    const TaskSource outer = std::exchange(own->running_from, source);
    ++running_tasks;
    task();
    task.reset();
    --running_tasks;
    own->running_from = outer;
  }
  static void RunFront(TaskRing& tasks, TaskSource source) {
    TaskFunction task = std::move(tasks.front());
    tasks.pop_front();
    Run(task, source);
  }

  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace

std::unique_ptr<ConcurrentWorkQueue> CreateSingleThreadedWorkQueue() {
  return std::make_unique<SingleThreadedWorkQueue>();
}

}  // namespace bef
