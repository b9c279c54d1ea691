#include "python/src/signals_and_fork.h"

#include <Python.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "absl/status/status.h"
#include "python/src/released_gil.h"

namespace bef::python {
namespace {

std::atomic<uint64_t> process_generation{0};

void AfterForkInChild() {
  process_generation.fetch_add(1, std::memory_order_relaxed);
  main_thread_ident = PyThread_get_thread_ident();  // the forking thread is the child's only one
  InterruptWatcher::Get().AfterForkInChild();
}

}  // namespace

bool IsMainThread() { return PyThread_get_thread_ident() == main_thread_ident; }

uint64_t ProcessGeneration() { return process_generation.load(std::memory_order_relaxed); }

void PrepareForForks() { pthread_atfork(nullptr, nullptr, &AfterForkInChild); }

InterruptWatcher& InterruptWatcher::Get() {
  static auto* watcher = new InterruptWatcher();
  return *watcher;
}

InterruptWatcher::InterruptWatcher() { Start(ProcessGeneration()); }

void InterruptWatcher::Enter(const RCReference<RequestContext>& request) {
  uint64_t generation = ProcessGeneration();
  if (generation != generation_) Start(generation);  // forked: no watcher thread here
  if (!started_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_check_ > std::chrono::milliseconds(100)) {
    last_check_ = now;
    struct sigaction current;
    if (sigaction(SIGINT, nullptr, &current) == 0 && current.sa_sigaction != &Handle) {
      Chain(current);
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  active_ = request.CopyRef();
  active_run_.store(++runs_, std::memory_order_release);
}

void InterruptWatcher::Leave() {
  std::lock_guard<std::mutex> lock(mutex_);
  active_.reset();
  active_run_.store(0, std::memory_order_release);
}

void InterruptWatcher::AfterForkInChild() {
  if (pipe_[0] >= 0) {
    close(pipe_[0]);
    close(pipe_[1]);
  }
  write_fd_.store(-1, std::memory_order_relaxed);
  pipe_[0] = pipe_[1] = -1;
  started_ = false;
  active_run_.store(0, std::memory_order_relaxed);
  new (&mutex_) std::mutex();  // possibly held by a thread the child does not have
  (void)active_.release();     // the parent's request: leaked, not ours to drop
}

void InterruptWatcher::Start(uint64_t generation) {
  generation_ = generation;
  started_ = false;
  if (pipe_[0] >= 0) {
    close(pipe_[0]);
    close(pipe_[1]);
    pipe_[0] = pipe_[1] = -1;
  }
  write_fd_.store(-1, std::memory_order_relaxed);
  if (pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0) return;
  int flags = fcntl(pipe_[0], F_GETFL);
  fcntl(pipe_[0], F_SETFL, flags & ~O_NONBLOCK);  // the watcher blocks
  std::thread([this, fd = pipe_[0]] { Loop(fd); }).detach();
  write_fd_.store(pipe_[1], std::memory_order_release);
  started_ = true;
}

void InterruptWatcher::Chain(const struct sigaction& current) {
  bool is_function = (current.sa_flags & SA_SIGINFO)
                         ? current.sa_sigaction != nullptr
                         : current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN;
  if (!is_function) return;
  previous_ = current;
  struct sigaction ours = current;
  ours.sa_sigaction = &Handle;
  ours.sa_flags = (current.sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
  sigaction(SIGINT, &ours, nullptr);
}

void InterruptWatcher::Handle(int signal, siginfo_t* info, void* context) {
  InterruptWatcher& watcher = Get();
  int saved_errno = errno;
  // Which run the signal interrupts: the watcher may read it only after
  // that run ended and another began, which must not be cancelled.
  uint64_t run = watcher.active_run_.load(std::memory_order_acquire);
  int fd = watcher.write_fd_.load(std::memory_order_acquire);
  if (fd >= 0) {
    [[maybe_unused]] ssize_t written = write(fd, &run, sizeof(run));
  }
  errno = saved_errno;
  const struct sigaction& previous = watcher.previous_;
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(signal, info, context);
  } else {
    previous.sa_handler(signal);
  }
}

void InterruptWatcher::Loop(int fd) {
  uint64_t run;
  while (true) {
    ssize_t got = read(fd, &run, sizeof(run));  // whole: pipe writes this small are atomic
    if (got < 0 && errno == EINTR) continue;
    if (got != sizeof(run)) return;
    // Cancelled without the lock: the cancellation runs the waiters of the
    // run's end (FunctionRun::Done), which must not wait for Enter/Leave.
    RCReference<RequestContext> interrupted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (run != 0 && run == active_run_.load(std::memory_order_relaxed)) {
        interrupted = active_.CopyRef();
      }
    }
    if (interrupted) interrupted->Cancel(absl::CancelledError("Interrupted (KeyboardInterrupt)"));
  }
}

}  // namespace bef::python
