// The `mstd` work queue: compute tasks on a oneTBB arena, blocking tasks on
// a pool of threads created on demand. The arena is reached through
// lib/host/tbb_arena.h: linked in, or loaded from libbef_tbb_arena.so.
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bef/host/work_queue.h"
#include "bef/support/logging.h"
#include "lib/host/tbb_arena.h"

// Defined when the binary links //lib/host:tbb_arena; null otherwise.
extern "C" __attribute__((weak)) const BefTbbArenaApi* BefTbbArenaApiV1();

namespace bef {
namespace {

constexpr char kPluginName[] = "libbef_tbb_arena.so";

// Where libbef_tbb_arena.so may be, in order: $BEF_TBB_ARENA_LIBRARY; beside
// the executable (an installed tool); in the executable's Bazel runfiles;
// in bazel-bin's lib/host beside the executable's package; the dynamic
// loader's search path.
std::vector<std::string> PluginCandidates() {
  std::vector<std::string> candidates;
  if (const char* path = getenv("BEF_TBB_ARENA_LIBRARY"); path && *path) {
    candidates.push_back(path);
    return candidates;
  }
  char executable[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", executable, sizeof(executable) - 1);
  if (length > 0) {
    std::string exe(executable, static_cast<size_t>(length));
    std::string directory = exe.substr(0, exe.rfind('/'));
    candidates.push_back(absl::StrCat(directory, "/", kPluginName));
    candidates.push_back(
        absl::StrCat(exe, ".runfiles/bef_runtime/lib/host/", kPluginName));
    candidates.push_back(absl::StrCat(directory, "/../lib/host/", kPluginName));
  }
  for (const char* variable : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* runfiles = getenv(variable); runfiles && *runfiles) {
      candidates.push_back(
          absl::StrCat(runfiles, "/bef_runtime/lib/host/", kPluginName));
    }
  }
  candidates.push_back(kPluginName);
  return candidates;
}

// dlopen and look up the table (the library stays loaded for the process;
// loading it again is a reference count).
absl::StatusOr<const BefTbbArenaApi*> LoadPlugin(const std::string& path) {
  void* library = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    return absl::FailedPreconditionError(error ? error : path);
  }
  using Entry = const BefTbbArenaApi* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(library, "BefTbbArenaApiV1"));
  if (entry == nullptr) {
    dlclose(library);
    return absl::FailedPreconditionError(absl::StrCat(path, ": no BefTbbArenaApiV1"));
  }
  return entry();
}

// Where a queue's arena comes from: the table linked into the binary, or a
// plugin file, loaded when the queue runs its first task (dlopen of libtbb
// and the shared libstdc++ costs about a millisecond, which a program that
// never enqueues work does not pay).
struct ArenaSource {
  const BefTbbArenaApi* linked = nullptr;
  std::string plugin;
};

// Cheap: looks for the plugin file, does not load it (except from the
// loader's search path, where only dlopen can find it).
absl::StatusOr<ArenaSource> FindTbbArena() {
  if (BefTbbArenaApiV1 != nullptr) return ArenaSource{BefTbbArenaApiV1(), ""};
  std::vector<std::string> failures;
  for (std::string& candidate : PluginCandidates()) {
    if (candidate.find('/') == std::string::npos) {
      absl::StatusOr<const BefTbbArenaApi*> loaded = LoadPlugin(candidate);
      if (loaded.ok()) return ArenaSource{*loaded, ""};
      failures.emplace_back(loaded.status().message());
    } else if (access(candidate.c_str(), R_OK) == 0) {
      return ArenaSource{nullptr, std::move(candidate)};
    } else {
      failures.push_back(absl::StrCat(candidate, ": ", std::strerror(errno)));
    }
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "the mstd work queue needs oneTBB through ", kPluginName,
      " (or a binary linking //lib/host:tbb_arena); set BEF_TBB_ARENA_LIBRARY "
      "to its path. Tried: ",
      absl::StrJoin(failures, "; ")));
}

class MultiThreadedWorkQueue;
thread_local const MultiThreadedWorkQueue* current_queue = nullptr;

class MultiThreadedWorkQueue : public ConcurrentWorkQueue {
 public:
  MultiThreadedWorkQueue(ArenaSource source, int compute_threads, int blocking_threads)
      : compute_threads_(compute_threads),
        blocking_threads_(blocking_threads),
        source_(std::move(source)) {}

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
      const BefTbbArenaApi* tbb = source_.linked;
      std::string failure;
      if (tbb == nullptr) {
        absl::StatusOr<const BefTbbArenaApi*> loaded = LoadPlugin(source_.plugin);
        if (loaded.ok()) {
          tbb = *loaded;
        } else {
          failure = std::string(loaded.status().message());
        }
      }
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
  const ArenaSource source_;
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

absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> CreateMultiThreadedWorkQueue(
    int compute_threads, int blocking_threads) {
  absl::StatusOr<ArenaSource> source = FindTbbArena();
  if (!source.ok()) return source.status();
  return std::make_unique<MultiThreadedWorkQueue>(*std::move(source), compute_threads,
                                                  blocking_threads);
}

}  // namespace bef
