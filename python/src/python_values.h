// Python values <-> runtime values, for the `bef` package's extension
// (python/src/runtime_module.cc). Everything here runs with the GIL held.
//
//   BEF type              Python argument                 Python result
//   i1                    bool, numpy.bool_               bool
//   i8 i32 i64 ui8..ui64  int, numpy integer (checked)    int
//   f32 f64               float, int, numpy floating      float
//   !tfrt.string          str (UTF-8) or bytes            str (bytes when not UTF-8)
//   !tfrt.chain           supplied by the package         left out
//   !tfrt_tensor.tensor   numpy.ndarray (or array-like)   numpy.ndarray
//   anything else         bef.Value of that type          bef.Value
//
// Dense tensors are never copied when they need not be: a C-contiguous,
// aligned, native-endian array becomes a tensor that views the array's
// buffer read-only and keeps the array alive (a kernel that writes it
// copies first: the caller's array never changes), and a result tensor
// becomes an array over the tensor's buffer, whose base (a TensorBuffer)
// keeps the buffer alive.
//
// Python objects held by runtime values (a borrowed array) may be released
// on a runtime thread that does not hold the GIL: ReleasePythonObject
// defers the decrement to the interpreter then (see python_values.cc).
#ifndef BEF_PYTHON_SRC_PYTHON_VALUES_H_
#define BEF_PYTHON_SRC_PYTHON_VALUES_H_

#include <memory>
#include <string>
#include <string_view>

#include "bef/async/async_value.h"
#include "bef/async/rc_reference.h"
#include "bef/host/host_allocator.h"
#include "bef/tensor/dense_host_tensor.h"
#include "pybind11/pybind11.h"

namespace bef::python {

namespace py = pybind11;

// A runtime value Python has no form for (a shape, a COO tensor, a buffer,
// a dense tensor of a dtype NumPy lacks): handed out as `bef.Value` and
// accepted back as an argument of the same BEF type.
struct OpaqueValue {
  std::string type;
  RCReference<AsyncValue> value;
};

// Imports the NumPy types and the package's exception classes (bef._errors)
// and makes the type bef.TensorBuffer (the base object of every result
// array: owns a reference to the tensor's buffer; its `address` lets
// callers and tests see that an array shares it), which it returns.
// Called once when the extension is imported, after bef.Value
// (OpaqueValue) is registered with pybind11.
py::object InitializeValues();

// Raises bef.ArgumentError (or the named class of bef._errors) with
// `message`: throws py::error_already_set.
[[noreturn]] void ThrowError(const char* error_class, const std::string& message,
                             py::dict details = py::dict());
[[noreturn]] void ThrowArgumentError(const std::string& message);

// Text from the runtime (messages, names, paths) as a str: bytes that are
// not UTF-8 appear as backslash escapes, never as a decoding error.
py::str Text(std::string_view text);

// Names an argument in errors ("argument 1 of 'main'"), built only when
// an error is raised.
struct ArgumentName {
  size_t index;
  std::string_view function;
  std::string Text() const {
    return "argument " + std::to_string(index) + " of '" + std::string(function) + "'";
  }
};

// The runtime value of BEF type `type` for `object`. Throws
// bef.ArgumentError when the object does not fit the type.
RCReference<AsyncValue> ValueFromPython(std::string_view type, py::handle object,
                                        HostAllocator* allocator, const ArgumentName& what);

// The Python form of the available, non-error `value` (of BEF type `type`).
py::object ValueToPython(std::string_view type, AsyncValue* value);

// Keeps `object` alive until the returned owner is released (from any
// thread, with or without the GIL).
std::shared_ptr<const void> PythonOwner(py::object object);

// Releases now the objects runtime threads released while Python held the
// GIL elsewhere. REQUIRES: the GIL.
void ReleaseDeferredObjects();

}  // namespace bef::python

#endif  // BEF_PYTHON_SRC_PYTHON_VALUES_H_
