// Signals and forks for the runtime extension: Ctrl-C during a run on the
// main thread, and the process generation os.fork() starts.
//
// Ctrl-C: runs the executor runs inline on the main thread do not return
// to Python (whose SIGINT handler only sets a flag checked between
// bytecodes) until they end. While such a run is in progress, a SIGINT
// handler of ours, chained in front of the interpreter's, wakes a watcher
// thread (through a pipe: all a signal handler may safely do), which
// cancels the run's request; the interpreter's handler still runs, so the
// run returns to a pending KeyboardInterrupt. When something
// (signal.signal) replaced the handler, the next run puts it back in front
// (runs check at most every 100 ms: a sigaction call costs more than the
// rest of a small run).
//
// Forks: a child has only the forking thread, which becomes its main
// thread; each child starts a new process generation (ProcessGeneration):
// what belongs to an earlier one (hosts, programs, the watcher's pipe) is
// not used there. Each room of the extension registers its own fork
// handlers (PrepareForForks here, hosts.h, completion_queue.h).
#ifndef BEF_PYTHON_SRC_SIGNALS_AND_FORK_H_
#define BEF_PYTHON_SRC_SIGNALS_AND_FORK_H_

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "bef/async/rc_reference.h"
#include "bef/host/execution_context.h"

namespace bef::python {

// Whether the calling thread is the interpreter's main thread
// (released_gil.h's main_thread_ident; in a forked child, the forking one).
bool IsMainThread();

// 0 in the process Python started; one more in each child of a fork.
uint64_t ProcessGeneration();

// Registers the fork handlers of the generation, the main thread and the
// watcher (the module's init, once).
void PrepareForForks();

class InterruptWatcher {
 public:
  static InterruptWatcher& Get();

  // `request` is the main thread's run until Leave: a Ctrl-C cancels it.
  // REQUIRES: the main thread.
  void Enter(const RCReference<RequestContext>& request);
  void Leave();
  // In a forked child (which has only the forking thread): the inherited
  // pipe is the parent's watcher's, so a SIGINT to the child must not write
  // to it (the parent would cancel its run); the run the fork copied is not
  // running here. The child's first inline run starts its own watcher.
  void AfterForkInChild();

 private:
  InterruptWatcher();
  // A pipe and the thread reading it; in a forked child, new ones (the
  // parent's pipe would be shared with the parent's watcher).
  void Start(uint64_t generation);
  // Puts Handle in front of `current` when `current` is a handler (not
  // SIG_DFL or SIG_IGN: then Ctrl-C is not Python's to turn into an error).
  void Chain(const struct sigaction& current);
  static void Handle(int signal, siginfo_t* info, void* context);
  void Loop(int fd);

  int pipe_[2] = {-1, -1};
  std::atomic<int> write_fd_{-1};  // pipe_[1] once the watcher runs (read by Handle)
  bool started_ = false;
  uint64_t generation_ = 0;
  std::chrono::steady_clock::time_point last_check_;
  struct sigaction previous_ = {};
  std::mutex mutex_;
  RCReference<RequestContext> active_;
  uint64_t runs_ = 0;                    // main-thread runs so far
  std::atomic<uint64_t> active_run_{0};  // the one in progress, 0 for none
  static_assert(std::atomic<uint64_t>::is_always_lock_free, "read in a signal handler");
};

}  // namespace bef::python

#endif  // BEF_PYTHON_SRC_SIGNALS_AND_FORK_H_
