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
#include <unistd.h>

#include "pybind11/pybind11.h"

namespace bef::python {

// The interpreter's main thread (threading.main_thread()), which runs the
// finalization itself and so must always take the GIL back; set by each
// extension's module init (RememberMainThread).
inline unsigned long main_thread_ident = 0;
inline void RememberMainThread() {
  pybind11::object main = pybind11::module_::import("threading").attr("main_thread")();
  main_thread_ident = main.attr("ident").cast<unsigned long>();
}

class ReleasedGil {
 public:
  ReleasedGil() : state_(PyEval_SaveThread()) {}
  ~ReleasedGil() {
    if ((!Py_IsInitialized() || _Py_IsFinalizing()) &&
        PyThread_get_thread_ident() != main_thread_ident) {
      while (true) pause();  // the process is exiting: never back to Python
    }
    PyEval_RestoreThread(state_);
  }
  ReleasedGil(const ReleasedGil&) = delete;
  ReleasedGil& operator=(const ReleasedGil&) = delete;

 private:
  PyThreadState* state_;
};

}  // namespace bef::python

#endif  // BEF_PYTHON_SRC_RELEASED_GIL_H_
