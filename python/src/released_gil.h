// ReleasedGil: pybind11's gil_scoped_release, safe at interpreter exit.
//
// A thread that comes back from the runtime or the converter while the
// interpreter finalizes (sys.exit with a daemon thread inside run() or
// mlir_to_bef) must not take the GIL again: Python 3.11 ends such a thread
// with pthread_exit from PyEval_RestoreThread, and pybind11 calls that from
// a destructor, where the forced unwinding is std::terminate ("terminate
// called without an active exception", SIGABRT). This class looks first: a
// thread that finds the interpreter finalizing never retakes the GIL and
// waits, holding nothing, for the process to end, as CPython's own daemon
// threads do.
#ifndef BEF_PYTHON_SRC_RELEASED_GIL_H_
#define BEF_PYTHON_SRC_RELEASED_GIL_H_

#include <Python.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>

#include "pybind11/pybind11.h"

namespace bef::python {

// The interpreter's main thread (threading.main_thread()), which runs the
// finalization itself and so must always take the GIL back; set by each
// extension's module init (RememberMainThread).
inline unsigned long main_thread_ident = 0;

// The exit gate. Looking at _Py_IsFinalizing() and then taking the GIL
// leaves a window: finalization may start in between, and the thread is
// then ended inside PyEval_RestoreThread anyway (seen 1 run in ~25 under
// load). So an atexit hook (CloseExitGate, which runs with the GIL held,
// before finalization starts) shuts the gate, and the two sides meet as in
// Dekker's algorithm, both with sequentially consistent atomics: a
// returning thread announces itself (`returning`) before it looks at
// `exit_gate_closed`; the hook closes the gate before it looks at
// `returning`, and lets every announced thread take the GIL (releasing it
// in short sleeps) before it returns. Either the thread sees the gate
// closed and never asks for the GIL, or the hook sees the thread and waits
// until it has the GIL back -- before finalization, where that is safe.
inline std::atomic<bool> exit_gate_closed{false};
inline std::atomic<int> returning{0};

inline void CloseExitGate() {
  exit_gate_closed.store(true);
  while (returning.load() > 0) {
    PyThreadState* state = PyEval_SaveThread();
    usleep(1000);
    PyEval_RestoreThread(state);
  }
}

// Called by each extension's module init (each has its own copy of these
// variables): remembers the main thread and registers CloseExitGate.
inline void RememberMainThread() {
  pybind11::object main = pybind11::module_::import("threading").attr("main_thread")();
  main_thread_ident = main.attr("ident").cast<unsigned long>();
  static bool registered = false;
  if (!registered) {
    registered = true;
    pybind11::module_::import("atexit").attr("register")(
        pybind11::cpp_function([] { CloseExitGate(); }));
    // A forked child has only the forking thread: none is returning there.
    pthread_atfork(nullptr, nullptr, [] { returning.store(0); });
  }
}

class ReleasedGil {
 public:
  ReleasedGil() : state_(PyEval_SaveThread()) {}
  ~ReleasedGil() {
    if (PyThread_get_thread_ident() == main_thread_ident) {
      PyEval_RestoreThread(state_);  // finalization runs on this thread
      return;
    }
    returning.fetch_add(1);
    if (exit_gate_closed.load() || !Py_IsInitialized() || _Py_IsFinalizing()) {
      returning.fetch_sub(1);
      while (true) pause();  // the process is exiting: never back to Python
    }
    PyEval_RestoreThread(state_);
    returning.fetch_sub(1);
  }
  ReleasedGil(const ReleasedGil&) = delete;
  ReleasedGil& operator=(const ReleasedGil&) = delete;

 private:
  PyThreadState* state_;
};

}  // namespace bef::python

#endif  // BEF_PYTHON_SRC_RELEASED_GIL_H_
