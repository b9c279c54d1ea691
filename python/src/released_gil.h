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

namespace bef::python {

class ReleasedGil {
 public:
  ReleasedGil() : state_(PyEval_SaveThread()) {}
  ~ReleasedGil() {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) {
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
