#include "python/src/python_values.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "bef/async/async_value_ref.h"
#include "bef/format/bef_encoding.h"
#include "bef/host/kernel_utils.h"
#include "bef/tensor/dense_host_tensor.h"
#include "bef/tensor/sparse_and_string_tensors.h"
#include "pybind11/numpy.h"

namespace bef::python {
namespace {

using namespace pybind11::literals;

// What the conversions look up once. Never destroyed: static destructors
// run after the interpreter is gone.
struct Globals {
  py::object errors;        // the module bef._errors
  py::object numpy_bool;    // numpy.bool_
  py::object numpy_complex;  // numpy.complexfloating
  py::object masked_array;  // numpy.ma.MaskedArray
  py::object asarray;       // numpy.asarray
  py::object ascontiguous;  // numpy.ascontiguousarray
  py::object object_array;  // numpy.array(list, dtype=object)
  py::object object_dtype;
  py::object ndarray_ravel;   // numpy.ndarray.ravel (not a subclass's)
  py::object ndarray_tolist;  // numpy.ndarray.tolist
  // The NumPy dtype of each DType, None where NumPy has none.
  std::array<py::object, kNumDTypes> dtypes;
};
Globals* globals = nullptr;

// bef.TensorBuffer, the base object of every result array: a plain C type
// (one per result array, so it must cost little) holding one reference to
// the tensor's buffer.
struct TensorBufferObject {
  PyObject_HEAD
  HostBuffer* buffer;
};

PyTypeObject* tensor_buffer_type = nullptr;
PyTypeObject* opaque_value_type = nullptr;

HostBuffer* BufferOf(PyObject* self) { return reinterpret_cast<TensorBufferObject*>(self)->buffer; }

void TensorBufferDealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  if (HostBuffer* buffer = BufferOf(self)) buffer->DropRef();
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject* TensorBufferAddress(PyObject* self, void*) {
  return PyLong_FromUnsignedLongLong(reinterpret_cast<uintptr_t>(BufferOf(self)->data()));
}
PyObject* TensorBufferSize(PyObject* self, void*) { return PyLong_FromSize_t(BufferOf(self)->size()); }
PyObject* TensorBufferReadOnly(PyObject* self, void*) {
  return PyBool_FromLong(BufferOf(self)->read_only());
}

PyGetSetDef tensor_buffer_getset[] = {
    {"address", &TensorBufferAddress, nullptr, "The address of the buffer's first byte.", nullptr},
    {"size", &TensorBufferSize, nullptr, "The buffer's size in bytes.", nullptr},
    {"read_only", &TensorBufferReadOnly, nullptr,
     "Whether the runtime may not write it (a borrowed array, a view of the BEF file).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot tensor_buffer_slots[] = {
    {Py_tp_dealloc, reinterpret_cast<void*>(&TensorBufferDealloc)},
    {Py_tp_getset, tensor_buffer_getset},
    {Py_tp_doc, const_cast<char*>("The base of a result array: holds the tensor's buffer.")},
    {0, nullptr},
};

PyType_Spec tensor_buffer_spec = {
    "bef.TensorBuffer", sizeof(TensorBufferObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, tensor_buffer_slots};

py::object NewTensorBuffer(const RCReference<HostBuffer>& buffer) {
  PyObject* self = tensor_buffer_type->tp_alloc(tensor_buffer_type, 0);
  if (self == nullptr) throw py::error_already_set();
  buffer->AddRef();
  reinterpret_cast<TensorBufferObject*>(self)->buffer = buffer.get();
  return py::reinterpret_steal<py::object>(self);
}

// Objects released by threads that did not hold the GIL, waiting for it.
std::mutex deferred_mutex;
std::vector<PyObject*>* deferred_objects = new std::vector<PyObject*>();
std::atomic<bool> has_deferred_objects{false};

int ReleaseDeferredObjectsCall(void*) {
  ReleaseDeferredObjects();
  return 0;
}

void ReleasePythonObject(PyObject* object) {
  // A value released by a runtime thread while (or after) the interpreter
  // shuts down: the process is exiting, the object is left as it is.
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
  if (PyGILState_Check()) {
    Py_DECREF(object);
    return;
  }
  // A runtime thread dropped the last reference to a value holding the
  // object (a kernel finishing after the caller gave up on the run): the
  // interpreter releases it at its next pending-call check (or the next
  // run does, when the pending-call queue is full).
  bool first;
  {
    std::lock_guard<std::mutex> lock(deferred_mutex);
    first = deferred_objects->empty();
    deferred_objects->push_back(object);
    has_deferred_objects.store(true, std::memory_order_release);
  }
  if (first) Py_AddPendingCall(&ReleaseDeferredObjectsCall, nullptr);
}

std::string TypeName(py::handle object) { return Py_TYPE(object.ptr())->tp_name; }

std::string Repr(py::handle object) {
  std::string text = py::repr(object).cast<std::string>();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

bool IsBool(py::handle object) {
  return PyBool_Check(object.ptr()) ||
         PyObject_TypeCheck(object.ptr(), reinterpret_cast<PyTypeObject*>(globals->numpy_bool.ptr()));
}

template <typename T, typename... Args>
RCReference<AsyncValue> Available(Args&&... args) {
  return MakeAvailableAsyncValueRef<T>(std::forward<Args>(args)...).ReleaseRCRef();
}

// What a Python error raised while converting becomes: ArgumentError with
// `prefix` and the Python error's text.
// KeyboardInterrupt, SystemExit and the other BaseExceptions that are no
// Exception (Ctrl-C while __index__ or __array__ runs) pass through as they
// are: they are not the argument's fault.
[[noreturn]] void RethrowAsArgumentError(const std::string& prefix) {
  if (!PyErr_ExceptionMatches(PyExc_Exception)) throw py::error_already_set();
  py::error_already_set error;
  ThrowArgumentError(prefix + ": " + error.what());
}

template <typename T>
RCReference<AsyncValue> IntegerFrom(std::string_view type, py::handle object,
                                    const ArgumentName& what) {
  if (IsBool(object) || !PyIndex_Check(object.ptr())) {
    ThrowArgumentError(what.Text() + " (" + std::string(type) + ") must be an int, not " +
                       TypeName(object));
  }
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(object.ptr()));
  if (!index) RethrowAsArgumentError(what.Text());
  auto out_of_range = [&]() {
    ThrowArgumentError(what.Text() + " (" + std::string(type) + "): " + Repr(object) +
                       " is out of range [" + std::to_string(std::numeric_limits<T>::min()) +
                       ", " + std::to_string(std::numeric_limits<T>::max()) + "]");
  };
  if constexpr (std::is_signed_v<T>) {
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (value == -1 && PyErr_Occurred()) RethrowAsArgumentError(what.Text());
    if (overflow != 0 || value < std::numeric_limits<T>::min() ||
        value > std::numeric_limits<T>::max()) {
      out_of_range();
    }
    return Available<T>(static_cast<T>(value));
  } else {
    unsigned long long value = PyLong_AsUnsignedLongLong(index.ptr());
    if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();  // negative or too large
      out_of_range();
    }
    if (value > std::numeric_limits<T>::max()) out_of_range();
    return Available<T>(static_cast<T>(value));
  }
}

template <typename T>
RCReference<AsyncValue> FloatFrom(std::string_view type, py::handle object,
                                  const ArgumentName& what) {
  auto refuse = [&]() {
    ThrowArgumentError(what.Text() + " (" + std::string(type) + ") must be a float, not " +
                       TypeName(object));
  };
  if (IsBool(object) || PyUnicode_Check(object.ptr()) || PyBytes_Check(object.ptr())) refuse();
  // A complex number (Python's, NumPy's, a 0-d complex array) would lose
  // its imaginary part with only a warning: refused, as Python's float()
  // refuses `complex`.
  if (PyComplex_Check(object.ptr()) || py::isinstance(object, globals->numpy_complex) ||
      (py::isinstance<py::array>(object) &&
       py::detail::array_descriptor_proxy(
           py::reinterpret_borrow<py::array>(object).dtype().ptr())->kind == 'c')) {
    refuse();
  }
  double value = PyFloat_AsDouble(object.ptr());
  if (value == -1.0 && PyErr_Occurred()) {
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      refuse();
    }
    RethrowAsArgumentError(what.Text());  // OverflowError: an int too large for a double
  }
  if (std::is_same_v<T, float> && std::isfinite(value) &&
      std::fabs(value) > std::numeric_limits<float>::max()) {
    ThrowArgumentError(what.Text() + " (f32): " + Repr(object) + " is out of range for f32");
  }
  return Available<T>(static_cast<T>(value));
}

// The scalar payload types of arguments and results, named as BEF names
// them (BefTypeName, kernel_utils.h).
template <typename... Scalars>
struct ScalarTypeList {
  // The value of `object` as the scalar type named `type`; false when
  // `type` names none of them.
  static bool FromPython(std::string_view type, py::handle object, const ArgumentName& what,
                         RCReference<AsyncValue>* value) {
    return ((type == BefTypeName<Scalars>::value &&
             (*value = ScalarFrom<Scalars>(type, object, what), true)) ||
            ...);
  }
  // The Python form of `value` when it holds one of them.
  static bool ToPython(AsyncValue* value, py::object* out) {
    return ((value->IsType<Scalars>() && (*out = ScalarToPython(value->get<Scalars>()), true)) ||
            ...);
  }

  template <typename T>
  static RCReference<AsyncValue> ScalarFrom(std::string_view type, py::handle object,
                                            const ArgumentName& what) {
    if constexpr (std::is_same_v<T, bool>) {
      if (!IsBool(object)) ThrowArgumentError(what.Text() + " (i1) must be a bool, not " + TypeName(object));
      return Available<bool>(PyObject_IsTrue(object.ptr()) == 1);
    } else if constexpr (std::is_integral_v<T>) {
      return IntegerFrom<T>(type, object, what);
    } else {
      return FloatFrom<T>(type, object, what);
    }
  }
  template <typename T>
  static py::object ScalarToPython(T value) {
    if constexpr (std::is_same_v<T, bool>) {
      return py::bool_(value);
    } else if constexpr (std::is_integral_v<T>) {
      return py::int_(value);
    } else {
      return py::float_(value);
    }
  }
};
using ScalarTypes = ScalarTypeList<bool, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                                   uint32_t, uint64_t, float, double>;

// str as UTF-8, bytes as they are; false for anything else.
bool StringFrom(py::handle object, std::string* out, const ArgumentName& what) {
  if (PyUnicode_Check(object.ptr())) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(object.ptr(), &size);
    if (data == nullptr) RethrowAsArgumentError(what.Text());  // lone surrogates
    out->assign(data, static_cast<size_t>(size));
    return true;
  }
  if (PyBytes_Check(object.ptr())) {
    out->assign(PyBytes_AS_STRING(object.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(object.ptr())));
    return true;
  }
  return false;
}

py::object StringToPython(const std::string& value) {
  PyObject* text = PyUnicode_DecodeUTF8(value.data(), static_cast<Py_ssize_t>(value.size()), nullptr);
  if (text != nullptr) return py::reinterpret_steal<py::object>(text);
  PyErr_Clear();
  return py::bytes(value);
}

// The tensor dtypes NumPy has, by NumPy's name: the one table of the
// mapping (globals->dtypes and DTypeOfNumpy are made from it).
constexpr std::pair<DType, const char*> kNumpyDTypes[] = {
    {DType::kI1, "bool"},           {DType::kI8, "int8"},        {DType::kI16, "int16"},
    {DType::kI32, "int32"},         {DType::kI64, "int64"},      {DType::kUI8, "uint8"},
    {DType::kUI16, "uint16"},       {DType::kUI32, "uint32"},    {DType::kUI64, "uint64"},
    {DType::kF16, "float16"},       {DType::kF32, "float32"},    {DType::kF64, "float64"},
    {DType::kComplex64, "complex64"}, {DType::kComplex128, "complex128"},
};

// The dtype of NumPy's (kind, itemsize), Invalid when no tensor dtype is it.
DType DTypeOfNumpy(char kind, int itemsize) {
  for (const auto& [dtype, name] : kNumpyDTypes) {
    auto* descriptor =
        py::detail::array_descriptor_proxy(globals->dtypes[static_cast<size_t>(dtype)].ptr());
    if (descriptor->kind == kind && descriptor->elsize == itemsize) return dtype;
  }
  return DType::kInvalid;
}

RCReference<AsyncValue> StringTensorFrom(const py::array& array, TensorShape shape,
                                         const ArgumentName& what) {
  // NumPy's own ravel and tolist (a subclass's may answer anything), and the
  // count checked against the shape all the same.
  py::list items = globals->ndarray_tolist(globals->ndarray_ravel(array));
  if (static_cast<int64_t>(items.size()) != shape.NumElements()) {
    ThrowArgumentError(what.Text() + " (a string tensor) has " + std::to_string(items.size()) +
                       " elements for the shape " + shape.ToString());
  }
  std::vector<std::string> values(items.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (!StringFrom(items[i], &values[i], what)) {
      ThrowArgumentError(what.Text() + ": element " + std::to_string(i) +
                         " of a string tensor must be str or bytes, not " + TypeName(items[i]));
    }
  }
  return Available<StringHostTensor>(std::move(shape), std::move(values));
}

RCReference<AsyncValue> TensorFrom(py::handle object, const ArgumentName& what) {
  if (py::isinstance(object, globals->masked_array)) {
    ThrowArgumentError(what.Text() +
                       " (a tensor) is a masked array, whose mask a tensor cannot carry: pass "
                       "array.filled(value) or array.data");
  }
  py::array array;
  if (py::isinstance<py::array>(object)) {
    array = py::reinterpret_borrow<py::array>(object);
  } else {
    py::object converted;
    try {
      converted = globals->asarray(object);
    } catch (py::error_already_set& error) {
      if (!error.matches(PyExc_Exception)) throw;  // Ctrl-C, SystemExit: as they are
      ThrowArgumentError(what.Text() + " (a tensor) must be a NumPy array or convertible to one: " +
                         error.what());
    }
    array = py::reinterpret_borrow<py::array>(converted);
  }
  TensorShape shape(std::vector<int64_t>(array.shape(), array.shape() + array.ndim()));
  auto* descriptor = py::detail::array_descriptor_proxy(array.dtype().ptr());
  char kind = descriptor->kind;
  if (kind == 'U' || kind == 'S' || kind == 'O') return StringTensorFrom(array, std::move(shape), what);
  DType dtype = DTypeOfNumpy(kind, descriptor->elsize);
  if (dtype == DType::kInvalid) {
    ThrowArgumentError(what.Text() + " (a tensor) has dtype " + py::str(array.dtype()).cast<std::string>() +
                       ", which no tensor dtype matches (bool, int8/16/32/64, uint8/16/32/64, "
                       "float16/32/64, complex64/128, str, bytes)");
  }
  // Borrowed in place when the runtime can read it as it is; otherwise one
  // copy into a contiguous, aligned, native-endian array the tensor owns.
  bool native = descriptor->byteorder != '>';
  bool contiguous = (array.flags() & py::array::c_style) != 0;
  bool aligned = reinterpret_cast<uintptr_t>(array.data()) % DTypeAlignment(dtype) == 0;
  if (!native || !contiguous || !aligned) {
    try {
      array = py::reinterpret_borrow<py::array>(
          globals->ascontiguous(array, "dtype"_a = globals->dtypes[static_cast<size_t>(dtype)]));
    } catch (py::error_already_set& error) {
      if (!error.matches(PyExc_Exception)) throw;  // Ctrl-C, SystemExit: as they are
      // A view of a few bytes that copies into terabytes (np.broadcast_to).
      ThrowArgumentError(what.Text() + " (a tensor) cannot be copied into a contiguous array: " +
                         error.what());
    }
  }
  const void* data = array.data();
  size_t size = static_cast<size_t>(array.nbytes());
  // The shape's bytes, counted by the tensor layer's one rule, must be the
  // array's (a subclass can report a shape its buffer does not have).
  absl::StatusOr<size_t> needed = DenseHostTensor::DataSizeOf(dtype, shape);
  if (!needed.ok() || *needed != size) {
    ThrowArgumentError(what.Text() + " (a tensor) has shape " + shape.ToString() + " over " +
                       std::to_string(size) + " bytes of data, which do not agree");
  }
  RCReference<HostBuffer> buffer = HostBuffer::View(data, size, PythonOwner(std::move(array)));
  return Available<DenseHostTensor>(dtype, std::move(shape), std::move(buffer));
}

py::object TensorToPython(std::string_view type, AsyncValue* value) {
  const DenseHostTensor& tensor = value->get<DenseHostTensor>();
  const py::object& dtype = globals->dtypes[static_cast<size_t>(tensor.dtype())];
  if (dtype.is_none()) return py::cast(OpaqueValue{std::string(type), FormRef(value)});
  std::vector<py::ssize_t> shape;
  for (int64_t dim : tensor.shape().dims()) {
    if (dim < 0) {
      ThrowError("RuntimeError", "a result tensor has the negative dimension " +
                                     std::to_string(dim) + " (shape " +
                                     tensor.shape().ToString() + "), which NumPy cannot hold");
    }
    shape.push_back(static_cast<py::ssize_t>(dim));
  }
  py::dtype numpy_dtype = py::reinterpret_borrow<py::dtype>(dtype);
  if (tensor.buffer() == nullptr || tensor.DataSize() == 0) return py::array(numpy_dtype, shape);
  // A result the runtime may still read through another reference (a
  // tfrt.once cache, another result of the run, an earlier conversion of
  // this one) is copied, so that writing into the array never changes what
  // a later run reads; a read-only one (your array, the BEF file's
  // constant) is viewed read-only; any other is the array's own buffer.
  const bool shared =
      !tensor.read_only() && (!value->IsUnique() || tensor.buffer()->NumRef() > 1);
  py::array array;
  try {
    if (shared) {
      array = py::array(numpy_dtype, shape);
      std::memcpy(array.mutable_data(), tensor.data(),
                  std::min<size_t>(static_cast<size_t>(array.nbytes()), tensor.DataSize()));
    } else {
      array = py::array(numpy_dtype, shape, tensor.data(), NewTensorBuffer(tensor.buffer()));
    }
  } catch (py::error_already_set& error) {
    if (!error.matches(PyExc_Exception)) throw;
    // More dimensions than NumPy holds (32).
    ThrowError("RuntimeError", "a result tensor of shape " + tensor.shape().ToString() +
                                   " cannot be a NumPy array: " + error.what());
  }
  if (tensor.read_only()) {
    py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  }
  return std::move(array);
}

py::object StringTensorToPython(const StringHostTensor& tensor) {
  py::list items;
  for (const std::string& element : tensor.values()) items.append(StringToPython(element));
  py::object array = globals->object_array(items, "dtype"_a = globals->object_dtype);
  const std::vector<int64_t>& dims = tensor.shape().dims();
  py::tuple shape(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) shape[i] = py::int_(dims[i]);
  return array.attr("reshape")(shape);
}

}  // namespace

py::object InitializeValues() {
  globals = new Globals();
  opaque_value_type = reinterpret_cast<PyTypeObject*>(py::type::of<OpaqueValue>().ptr());
  tensor_buffer_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&tensor_buffer_spec));
  if (tensor_buffer_type == nullptr) throw py::error_already_set();
  globals->errors = py::module_::import("bef._errors");
  py::module_ numpy = py::module_::import("numpy");
  globals->numpy_bool = numpy.attr("bool_");
  globals->numpy_complex = numpy.attr("complexfloating");
  globals->masked_array = py::module_::import("numpy.ma").attr("MaskedArray");
  globals->asarray = numpy.attr("asarray");
  globals->ndarray_ravel = numpy.attr("ndarray").attr("ravel");
  globals->ndarray_tolist = numpy.attr("ndarray").attr("tolist");
  globals->ascontiguous = numpy.attr("ascontiguousarray");
  globals->object_array = numpy.attr("array");
  globals->object_dtype = numpy.attr("dtype")("O");
  for (py::object& dtype : globals->dtypes) dtype = py::none();
  for (const auto& [dtype, name] : kNumpyDTypes) {
    globals->dtypes[static_cast<size_t>(dtype)] = numpy.attr("dtype")(name);
  }
  return py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(tensor_buffer_type));
}

py::str Text(std::string_view text) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "backslashreplace"));
}

void ThrowError(const char* error_class, const std::string& message, py::dict details) {
  py::object type = globals->errors.attr(error_class);
  py::object error = type(Text(message), **details);
  PyErr_SetObject(type.ptr(), error.ptr());
  throw py::error_already_set();
}

void ThrowArgumentError(const std::string& message) { ThrowError("ArgumentError", message); }

RCReference<AsyncValue> ValueFromPython(std::string_view type, py::handle object,
                                        HostAllocator* allocator, const ArgumentName& what) {
  if (PyObject_TypeCheck(object.ptr(), opaque_value_type)) {
    const OpaqueValue& opaque = object.cast<const OpaqueValue&>();
    if (opaque.type != type) {
      ThrowArgumentError(what.Text() + " has type " + std::string(type) + ", not " + opaque.type);
    }
    return opaque.value;
  }
  RCReference<AsyncValue> scalar;
  if (ScalarTypes::FromPython(type, object, what, &scalar)) return scalar;
  if (type == "!tfrt.string") {
    std::string value;
    if (!StringFrom(object, &value, what)) {
      ThrowArgumentError(what.Text() + " (!tfrt.string) must be a str or bytes, not " + TypeName(object));
    }
    return Available<std::string>(std::move(value));
  }
  if (type == kDenseHostTensorTypeName) return TensorFrom(object, what);
  ThrowArgumentError(what.Text() + " has type " + std::string(type) +
                     ", which only a bef.Value of that type (a result of another run) can supply");
}

py::object ValueToPython(std::string_view type, AsyncValue* value) {
  if (py::object scalar; ScalarTypes::ToPython(value, &scalar)) return scalar;
  if (value->IsType<std::string>()) return StringToPython(value->get<std::string>());
  if (value->IsType<Chain>()) return py::none();
  if (value->IsType<DenseHostTensor>()) return TensorToPython(type, value);
  if (value->IsType<StringHostTensor>()) return StringTensorToPython(value->get<StringHostTensor>());
  return py::cast(OpaqueValue{std::string(type), FormRef(value)});
}

std::shared_ptr<const void> PythonOwner(py::object object) {
  PyObject* raw = object.release().ptr();
  return std::shared_ptr<const void>(raw, [](const void* pointer) {
    ReleasePythonObject(static_cast<PyObject*>(const_cast<void*>(pointer)));
  });
}

void ReleaseDeferredObjects() {
  if (!has_deferred_objects.load(std::memory_order_acquire)) return;
  std::vector<PyObject*> objects;
  {
    std::lock_guard<std::mutex> lock(deferred_mutex);
    objects.swap(*deferred_objects);
    has_deferred_objects.store(false, std::memory_order_relaxed);
  }
  for (PyObject* object : objects) Py_DECREF(object);
}

}  // namespace bef::python
