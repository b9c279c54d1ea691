// HostContext: the runtime's per-host state, shared by every program and
// request that runs on it: the host allocator, the work queue, the kernel and
// native-function registries, shared contexts, the timer queue and the
// diagnostic handler.
//
//   HostContext host(PrintDiagnostic, CreateMallocAllocator(),
//                    CreateSingleThreadedWorkQueue());
//   RegisterStaticKernels(&host.kernel_registry());
//
// Destruction quiesces the work queue, then releases shared contexts, the
// work queue and the timer queue, and the allocator last (so a leak-checking
// allocator sees everything that was released).
//
// Thread safety: all members may be used from any thread, except that
// registries must be filled before programs are loaded.
#ifndef BEF_HOST_HOST_CONTEXT_H_
#define BEF_HOST_HOST_CONTEXT_H_

#include <array>
#include <atomic>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>
#include <span>

#include <mutex>
#include "bef/async/async_value.h"
#include "bef/async/async_value_ref.h"
#include "bef/async/location.h"
#include "bef/host/diagnostic.h"
#include "bef/host/host_allocator.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/native_function.h"
#include "bef/host/timer_queue.h"
#include "bef/host/tracing.h"
#include "bef/host/work_queue.h"

namespace bef {

class HostContext;

// Per-host state of a library, created on first use by
// GetOrCreateSharedContext<T>() with T(HostContext*).
class SharedContext {
 public:
  virtual ~SharedContext() = default;
};

namespace internal {
// What a kernel hands the work queue while the executor calls it as an
// async call step of a segment (lib/executor, execution_plan.h "Async call
// steps"). The executor allocates one per such call from the value free
// lists (AllocateValueMemory), points `captured_work` at it for the call
// (for kernels of `host` only), and afterwards runs what the kernel left
// where the kernel's own task would have run, with the kernel's users
// after it:
//   - the first EnqueueWork(context, work) of a result that fits a payload
//     register (async_dispatch.h) is kept inline: `work` holds the work,
//     `value` the ConcreteAsyncValue EnqueueWork returned (unconstructed,
//     two references: the kernel's and the executor's). When the kernel
//     hands that value back untouched as its result, the executor runs the
//     work straight into the result's register: no value is ever
//     published, no task or heap block is made (`run`). Otherwise the work
//     completes the value from a task, as EnqueueWork always would
//     (`complete`); the block is then the value's own memory (it sits at
//     offset 0) and is freed with it.
//     A work small and trivially copyable enough (`work_fits_register`)
//     waits in the result's register itself until it runs (the block is
//     then free for the next call: the executor keeps one per processing
//     loop and resets it with Reuse()).
//   - tasks HostContext::EnqueueWork receives are kept in order
//     (`first_task`, then `more_tasks`).
// Null whenever no such call is running on the thread.
struct CapturedWork {
  static constexpr size_t kValueSize = 48;
  static constexpr size_t kWorkSize = 64;
  // Runs the work, writes its result's payload to `payload` (a register of
  // kDirectResultSize bytes), destroys the work; an error comes back on the
  // heap (null: none). `work` may be `payload` (work_fits_register).
  using Run = absl::Status* (*)(void* work, void* payload);
  // Runs the work into `value` (emplace, or SetError at `location`) and
  // destroys the work.
  using Complete = void (*)(void* work, AsyncValue* value, Location location);
  using Destroy = void (*)(void* work);

  CapturedWork(HostContext* host, Location location) : host(host), location(location) {}
  ~CapturedWork() { delete more_tasks; }
  CapturedWork(const CapturedWork&) = delete;
  CapturedWork& operator=(const CapturedWork&) = delete;

  AsyncValue* Value() { return reinterpret_cast<AsyncValue*>(value); }
  bool HasWork() const { return run != nullptr; }
  // For the next call, after one whose work was moved out of the block
  // (its value never published, no task kept: nothing to destroy).
  void Reuse(HostContext* call_host, Location call_location) {
    host = call_host;
    location = call_location;
    run = nullptr;
  }
  // Keeps the first task (none kept yet), made in place from `task`.
  template <typename F>
  void KeepFirstTask(F&& task) {
    // first_task is empty: nothing to destroy.
    first_task.~TaskFunction();
    ::new (static_cast<void*>(&first_task)) TaskFunction(std::forward<F>(task));
    num_tasks = 1;
  }

  // First: the value's own block when it outlives the call.
  alignas(16) unsigned char value[kValueSize];
  // Set by the executor.
  HostContext* host;
  Location location;  // the kernel's: where work errors are reported
  // Set by EnqueueWork; run is null when no work was kept.
  Run run = nullptr;
  Complete complete = nullptr;
  Destroy destroy = nullptr;
  uint32_t tasks_before_work = 0;  // tasks enqueued before the work
  // Whether the work (trivially copyable) fits a payload register: `run`
  // may then be given the register holding its bytes as both arguments.
  bool work_fits_register = false;
  uint32_t num_tasks = 0;
  alignas(16) unsigned char work[kWorkSize];
  // Set by HostContext::EnqueueWork.
  TaskFunction first_task;
  std::vector<TaskFunction>* more_tasks = nullptr;
  // The executor's: the result value a kernel gave with its one task.
  AsyncValue* task_result = nullptr;
};
extern constinit thread_local CapturedWork* captured_work;
// The capture of `host`'s work running on this thread (an async call step
// of `host`'s executor), or null.
inline CapturedWork* CaptureOf(const HostContext* host) {
  CapturedWork* captured = captured_work;
  return captured != nullptr && captured->host == host ? captured : nullptr;
}
inline constexpr int kMaxSharedContexts = 256;
int NextSharedContextId();
template <typename T>
int SharedContextId() {
  static const int id = NextSharedContextId();
  return id;
}
}  // namespace internal

class HostContext {
 public:
  HostContext(DiagnosticHandler diagnostic_handler,
              std::unique_ptr<HostAllocator> allocator,
              std::unique_ptr<ConcurrentWorkQueue> work_queue);
  HostContext(const HostContext&) = delete;
  HostContext& operator=(const HostContext&) = delete;
  ~HostContext();

  HostAllocator* allocator() const { return allocator_.get(); }
  ConcurrentWorkQueue& work_queue() const { return *work_queue_; }
  KernelRegistry& kernel_registry() { return kernel_registry_; }
  const KernelRegistry& kernel_registry() const { return kernel_registry_; }
  NativeFunctionRegistry& native_functions() { return native_functions_; }
  const NativeFunctionRegistry& native_functions() const {
    return native_functions_;
  }
  TimerQueue& timer_queue() { return timer_queue_; }

  // Delivers a kernel or loader error to the embedder's handler.
  void EmitError(const DecodedDiagnostic& diagnostic) const;

  // Work-queue tasks are traced (tracing.h) when tracing is on.
  void EnqueueWork(TaskFunction task) {
    if (internal::CapturedWork* captured = internal::CaptureOf(this); captured != nullptr)
        [[unlikely]] {
      Capture(*captured, std::move(task));
      return;
    }
    work_queue_->AddTask(MaybeTraced(std::move(task), "task"));
  }
  // The same for a callable (a kernel's lambda): where an async call step
  // keeps its first task, the task is made in place from it, with no
  // TaskFunction moved on the way.
  template <typename F>
    requires(!std::is_same_v<std::decay_t<F>, TaskFunction>)
  void EnqueueWork(F&& task) {
    if (internal::CapturedWork* captured = internal::CaptureOf(this);
        captured != nullptr && captured->num_tasks == 0) [[unlikely]] {
      captured->KeepFirstTask(std::forward<F>(task));
      return;
    }
    EnqueueWork(TaskFunction(std::forward<F>(task)));
  }
  // The rest of a task run, where its next part's task would be
  // (ConcurrentWorkQueue::AddTaskAhead).
  void EnqueueWorkAhead(TaskFunction task) {
    work_queue_->AddTaskAhead(MaybeTraced(std::move(task), "task"));
  }
  // Work meant to run alongside the caller (ConcurrentWorkQueue::
  // AddParallelTask).
  void EnqueueParallelWork(TaskFunction task) {
    work_queue_->AddParallelTask(MaybeTraced(std::move(task), "task"));
  }
  // Queued if no thread is free; false only for queues that refuse blocking
  // work.
  bool EnqueueBlockingWork(TaskFunction task) {
    return !work_queue_->AddBlockingTask(MaybeTraced(std::move(task), "blocking task"), true)
                .has_value();
  }
  // Started now or refused (false).
  bool RunBlockingWork(TaskFunction task) {
    return !work_queue_->AddBlockingTask(MaybeTraced(std::move(task), "blocking task"), false)
                .has_value();
  }
  void Await(std::span<AsyncValue* const> values) { work_queue_->Await(values); }
  void Await(std::span<const RCReference<AsyncValue>> values);
  void Quiesce() { work_queue_->Quiesce(); }
  int GetNumWorkerThreads() const { return work_queue_->GetParallelismLevel(); }
  bool IsInWorkerThread() const { return work_queue_->IsInWorkerThread(); }

  // Kernels splitting their work over the queue's threads right now
  // (ParallelFor, parallel_for.h): a split takes only its share of the
  // threads. BeginSplit returns how many others were splitting when it
  // began; every BeginSplit has its EndSplit.
  int BeginSplit() { return splitting_kernels_.fetch_add(1, std::memory_order_acq_rel); }
  void EndSplit() { splitting_kernels_.fetch_sub(1, std::memory_order_release); }

  // The name of the host device (tfrt.get_device).
  std::string_view host_device_name() const { return "CPU:0"; }

  template <typename T>
  T& GetOrCreateSharedContext() {
    static_assert(std::is_base_of_v<SharedContext, T>);
    int id = internal::SharedContextId<T>();
    SharedContext* context = shared_contexts_[id].load(std::memory_order_acquire);
    if (context == nullptr) {
      std::lock_guard<std::mutex> lock(shared_context_mutex_);
      context = shared_contexts_[id].load(std::memory_order_relaxed);
      if (context == nullptr) {
        context = new T(this);
        shared_contexts_[id].store(context, std::memory_order_release);
      }
    }
    return *static_cast<T*>(context);
  }

 private:
  static void Capture(internal::CapturedWork& captured, TaskFunction task);
  // `task` itself (moved once, into the queue's parameter), or wrapped in a
  // trace span when tracing is on.
  static TaskFunction&& MaybeTraced(TaskFunction&& task, const char* name) {
    if (IsTracing()) [[unlikely]] {
      task = [task = std::move(task), name]() mutable {
        TraceSpan span("task", name);
        task();
      };
    }
    return std::move(task);
  }

  // Destroyed last: sees every deallocation.
  std::unique_ptr<HostAllocator> allocator_;
  DiagnosticHandler diagnostic_handler_;
  KernelRegistry kernel_registry_;
  NativeFunctionRegistry native_functions_;
  TimerQueue timer_queue_;
  std::unique_ptr<ConcurrentWorkQueue> work_queue_;
  std::mutex shared_context_mutex_;
  std::array<std::atomic<SharedContext*>, internal::kMaxSharedContexts>
      shared_contexts_{};
  // Written by every split's start and end: 64 bytes of padding on each
  // side keep it off the cache lines of the fields above, read on every
  // task, and of whatever follows the object (padding, not `alignas`: a
  // host may sit in storage aligned to 16 bytes only).
  unsigned char before_splitting_kernels_[64];
  std::atomic<int> splitting_kernels_{0};
  unsigned char after_splitting_kernels_[64];
};

}  // namespace bef

#endif  // BEF_HOST_HOST_CONTEXT_H_
