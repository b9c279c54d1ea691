// bef._runtime: the runtime half of the `bef` Python package (the package's
// Python code, python/bef/, is its manual and public face).
//
//   load(path_or_bytes, work_queue) -> Program      verified load
//   Program.run(name, *args, timeout=None)           runs with the GIL released
//   Program._start(name, args, timeout, token)       a run whose completion
//                                                    _next_completion() reports
//
// The extension's rooms: hosts.h (a host per work-queue spec), signals_and
// _fork.h (Ctrl-C during a run, process generations), completion_queue.h
// (run_async's finished runs), python_values.h (values both ways); this
// file: programs, runs and the module.
//
// Lifetime: a Program owns its loaded file through a shared ProgramState;
// every run's RequestContext holds that state too, so a program dropped (or
// a run abandoned by Ctrl-C or a timeout) stays loaded until its last
// kernel has run.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bef/async/async_value_ref.h"
#include "bef/async/location.h"
#include "bef/executor/bef_program.h"
#include "bef/format/section_reader.h"
#include "bef/host/execution_context.h"
#include "bef/host/function_run.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/native_function.h"
#include "bef/host/work_queue.h"
#include "bef/loader/bef_dump.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "python/src/completion_queue.h"
#include "python/src/hosts.h"
#include "python/src/python_values.h"
#include "python/src/released_gil.h"
#include "python/src/signals_and_fork.h"

namespace bef::python {

using namespace pybind11::literals;

struct ProgramState {
  ~ProgramState() {
    resources.reset();  // values of tfrt.once may refer to the program
    program.reset();
  }

  HostContext* host = nullptr;
  std::string work_queue;
  bool single_threaded = false;
  uint64_t generation = 0;  // the process generation it was loaded in
  std::unique_ptr<BefProgram> program;
  std::unique_ptr<ResourceContext> resources = std::make_unique<ResourceContext>();
  std::atomic<int64_t> next_request_id{1};
};

// One execution of a function: its request, its results and its completion
// (the class completion_queue.h holds; the rest of this file is private to
// it).
class RunCall : public std::enable_shared_from_this<RunCall> {
 public:
  RunCall(std::shared_ptr<ProgramState> state, const Function* function, int64_t token)
      : state_(std::move(state)), function_(function), token_(token) {}

  int64_t token() const { return token_; }

  // Converts the arguments (GIL held), then executes with the GIL released.
  // When `notify` is true, the finished run is pushed on the completion
  // queue. Throws bef.ArgumentError before anything runs.
  void Start(std::span<PyObject* const> arguments, std::optional<double> timeout, bool notify) {
    const std::vector<std::string_view>& types = function_->argument_types();
    const size_t expected = FunctionRun::NumInputs(*function_);
    if (arguments.size() != expected) {
      std::string list;
      for (std::string_view type : types) {
        if (type == kChainTypeName) continue;
        list += (list.empty() ? "" : ", ") + std::string(type);
      }
      ThrowArgumentError("'" + std::string(function_->name()) + "' takes " +
                         std::to_string(expected) + " argument" + (expected == 1 ? "" : "s") +
                         " (" + list + "), " + std::to_string(arguments.size()) + " given");
    }

    HostContext* host = state_->host;
    std::vector<RCReference<AsyncValue>> inputs;
    inputs.reserve(expected);
    for (std::string_view type : types) {
      if (type == kChainTypeName) continue;
      const size_t next = inputs.size();
      inputs.push_back(ValueFromPython(type, arguments[next], host->allocator(),
                                       ArgumentName{next, function_->name()}));
    }
    // The run's request holds the program until its last kernel has run.
    run_.emplace(*function_, host, state_->resources.get(), std::move(inputs), state_,
                 state_->next_request_id.fetch_add(1, std::memory_order_relaxed));
    if (timeout) run_->request().SetDeadline(absl::Now() + absl::Seconds(*timeout));
    notify_ = notify;
    if (notify && !state_->single_threaded) {
      // run_async never runs the program on the caller: the executor may
      // run a whole function inline (its straight-line fast path).
      host->EnqueueWork([call = shared_from_this()] { call->Execute(); });
      return;
    }
    bool watched = IsMainThread();
    {
      bef::python::ReleasedGil release;
      // On the main thread Ctrl-C must reach a run the executor runs
      // inline, which never returns to Python until it ends.
      if (watched) InterruptWatcher::Get().Enter(FormRef(&run_->request()));
      Execute();
      // Help while the run's work (or anyone's) waits for a compute
      // thread: kernels the executor queued while the compute threads
      // sleep go on here at once, not after a wake-up (as bef_serve's
      // request threads help, tools/serving/run_limits.h).
      while (!done() && host->work_queue().RunPendingTask()) {
      }
      if (watched) InterruptWatcher::Get().Leave();
    }
  }

  bool done() const { return done_.load(std::memory_order_acquire); }

  // Waits with the GIL released, waking to let Python handle signals: on
  // Ctrl-C (KeyboardInterrupt) the run is cancelled and the exception
  // propagates at once.
  void Wait() {
    while (true) {
      bool finished;
      {
        bef::python::ReleasedGil release;
        waiters_.fetch_add(1);
        std::unique_lock<std::mutex> lock(mutex_);
        finished = finished_.wait_for(lock, std::chrono::milliseconds(20), [&] { return done(); });
        waiters_.fetch_sub(1);
      }
      if (finished) break;
      if (PyErr_CheckSignals() != 0) {
        run_->request().Cancel(absl::CancelledError("Interrupted (KeyboardInterrupt)"));
        throw py::error_already_set();
      }
    }
  }

  void Cancel() {
    if (run_) run_->request().Cancel();
  }

  // The Python form of the results: None, the only non-chain result, or a
  // tuple; raises the first error result as bef.RuntimeError,
  // bef.CancelledError or bef.DeadlineExceededError. REQUIRES: done().
  py::object Result() {
    run_->ReleaseArguments();  // with the GIL: borrowed arrays are released at once
    ReleaseDeferredObjects();
    std::span<RCReference<AsyncValue>> results = run_->results();
    if (int i = run_->FirstErrorResult(); i >= 0) {
      const ErrorInfo& error = results[i]->GetErrorInfo();
      absl::StatusCode code = error.status.code();
      const char* type = code == absl::StatusCode::kDeadlineExceeded ? "DeadlineExceededError"
                         : code == absl::StatusCode::kCancelled      ? "CancelledError"
                                                                     : "RuntimeError";
      std::string location = LocationText(error.location);
      py::dict details("code"_a = absl::StatusCodeToString(code), "function"_a = Text(function_->name()),
                       "result"_a = i);
      details["location"] = location.empty() ? py::object(py::none()) : Text(location);
      ThrowError(type, std::string(error.status.message()), details);
    }
    // A result value something else still holds is copied into its array
    // (python_values.cc, TensorToPython): a tfrt.once cache, another
    // result. The executor lets go of the values a run returned an instant
    // after they became available; wait that instant (bounded) so that a
    // result only the run returned is viewed, not copied.
    bool shared = false;
    for (const RCReference<AsyncValue>& result : results) {
      shared |= result->IsType<DenseHostTensor>() &&
                !result->get<DenseHostTensor>().read_only() && !result->IsUnique();
    }
    if (shared && run_->request().NumRef() > 1) {
      bef::python::ReleasedGil release;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
      while (run_->request().NumRef() > 1 && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::yield();
      }
    }
    const std::vector<std::string_view>& types = function_->result_types();
    std::vector<py::object> outputs;
    for (size_t i = 0; i < results.size(); ++i) {
      if (types[i] == kChainTypeName) continue;
      outputs.push_back(ValueToPython(types[i], results[i].get()));
    }
    if (outputs.empty()) return py::none();
    if (outputs.size() == 1) return std::move(outputs[0]);
    py::tuple tuple(outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) tuple[i] = std::move(outputs[i]);
    return std::move(tuple);
  }

 private:
  // Runs the function on this thread (GIL released), then watches its
  // results. The arguments stay referenced until the results are taken.
  void Execute() {
    // The single-threaded queue ("s") runs its work in the Await of one
    // caller at a time: runs from several Python threads take turns. A run
    // waiting for its turn still ends at its deadline or cancellation
    // (timeout=, Ctrl-C through the interrupt watcher, future.cancel()):
    // it never started, and every result is that error.
    // (A flag under a plain mutex, not std::timed_mutex: ThreadSanitizer
    // does not see the timed lock's pthread_mutex_clocklock.)
    static std::mutex turn_mutex;
    static std::condition_variable turn_free;
    static bool turn_taken = false;  // guarded by turn_mutex
    struct Turn {
      bool held = false;
      ~Turn() {
        if (!held) return;
        {
          std::lock_guard<std::mutex> lock(turn_mutex);
          turn_taken = false;
        }
        turn_free.notify_one();
      }
    } turn;
    if (state_->single_threaded) {
      std::unique_lock<std::mutex> lock(turn_mutex);
      while (turn_taken) {
        if (AsyncValue* cancelled = run_->request().GetCancelAsyncValue()) {
          lock.unlock();
          // It never started: every result is the error.
          for (RCReference<AsyncValue>& result : run_->results()) result = FormRef(cancelled);
          Finish();
          return;
        }
        turn_free.wait_for(lock, std::chrono::milliseconds(5));
      }
      turn_taken = true;
      turn.held = true;
    }
    run_->Execute();
    // The run ends when its results are available or its request is
    // cancelled (timeout=, Ctrl-C, future.cancel()), whichever is first,
    // even when a kernel of it never completes a result: what is still
    // pending is then the cancellation's error (FunctionRun::Done).
    RCReference<AsyncValue> done = run_->Done();
    if (state_->single_threaded) {
      // The single-threaded queue runs queued work only in Await.
      state_->host->Await({&done, 1});
    }
    done->AndThen([call = shared_from_this()] {
      call->run_->Settle();
      call->Finish();
    });
  }

  void Finish() {
    // Waiters (Wait) register before they look at done_: either they see it
    // set, or this sees them and wakes them under the mutex.
    done_.store(true);
    if (waiters_.load() > 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      finished_.notify_all();
    }
    if (notify_) CompletionQueue::Get().Push(shared_from_this());
  }

  std::shared_ptr<ProgramState> state_;
  const Function* function_;
  int64_t token_;
  std::optional<FunctionRun> run_;  // set by Start
  bool notify_ = false;
  std::mutex mutex_;
  std::condition_variable finished_;
  std::atomic<int> waiters_{0};
  std::atomic<bool> done_{false};
};

namespace {

// `timeout=`: None, or seconds (>= 0) as an int or a float.
std::optional<double> Seconds(const py::object& timeout) {
  if (timeout.is_none()) return std::nullopt;
  double seconds = PyFloat_AsDouble(timeout.ptr());
  if (seconds == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    ThrowArgumentError("timeout must be None or a number of seconds, not " +
                       std::string(Py_TYPE(timeout.ptr())->tp_name));
  }
  if (!(seconds >= 0)) ThrowArgumentError("timeout must be a number of seconds >= 0");
  return seconds;
}

class Program {
 public:
  static Program Load(py::object source, const std::string& work_queue) {
    auto state = std::make_shared<ProgramState>();
    state->host = HostFor(work_queue);
    state->work_queue = work_queue;
    // Its queued work runs only inside an Await (work_queue.h).
    state->single_threaded = !state->host->work_queue().HasComputeThreads();
    state->generation = ProcessGeneration();
    absl::StatusOr<std::unique_ptr<BefProgram>> program;
    if (PyBytes_Check(source.ptr()) || PyByteArray_Check(source.ptr()) ||
        PyMemoryView_Check(source.ptr())) {
      py::buffer_info bytes = py::reinterpret_borrow<py::buffer>(source).request();
      if (bytes.ndim != 1 || bytes.itemsize != 1 || bytes.strides[0] != 1) {
        ThrowArgumentError("bef.load: a buffer of BEF bytes must be contiguous bytes");
      }
      std::span<const uint8_t> span(static_cast<const uint8_t*>(bytes.ptr),
                                    static_cast<size_t>(bytes.size));
      bef::python::ReleasedGil release;
      program = BefProgram::FromBuffer(state->host, span, "<bytes>");
    } else {
      // The file system's bytes of the name (surrogate escapes from
      // os.listdir become their bytes again), not its UTF-8.
      py::object encoded =
          py::reinterpret_steal<py::object>(PyUnicode_EncodeFSDefault(source.ptr()));
      if (!encoded) {
        PyErr_Clear();
        ThrowArgumentError("bef.load: the path cannot be a file name (it has a lone surrogate)");
      }
      std::string path(PyBytes_AS_STRING(encoded.ptr()),
                       static_cast<size_t>(PyBytes_GET_SIZE(encoded.ptr())));
      // "-" is the file of that name, not standard input (bef.load's
      // callers pass stdin's bytes); what is not a regular file is refused
      // without blocking on it (a FIFO whose writer stalls, a device).
      if (path == "-") path = "./-";
      bef::python::ReleasedGil release;
      program = BefProgram::Open(state->host, path, {.regular_files_only = true});
    }
    if (!program.ok()) {
      ThrowError("LoadError", std::string(program.status().message()),
                 py::dict("code"_a = absl::StatusCodeToString(program.status().code())));
    }
    state->program = std::move(*program);
    return Program(std::move(state));
  }

  std::string name() const { return state_->program->file().name(); }
  py::str python_name() const { return Text(name()); }
  const std::string& work_queue() const { return state_->work_queue; }

  // The function named by the str `name`: the last name looked up is
  // remembered by identity (a loop calling one function passes the same str
  // object), so most calls skip hashing the name. REQUIRES: the GIL.
  const Function* FunctionNamed(PyObject* name) const {
    if (name == last_name_.ptr()) return last_function_;
    if (!PyUnicode_Check(name)) {
      ThrowArgumentError(std::string("the function name must be a str, not ") + Py_TYPE(name)->tp_name);
    }
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(name, &size);
    if (data == nullptr) {
      PyErr_Clear();  // a lone surrogate: no BEF name is one
      ThrowArgumentError("the function name is not valid Unicode text (it has a lone surrogate)");
    }
    const Function* function = Find(std::string_view(data, static_cast<size_t>(size)));
    // The name and its function change together; the name remembered before
    // is released only after (its __del__, if it is a str subclass's, may
    // run another call, which updates the cache in turn).
    py::object previous = std::move(last_name_);
    last_name_ = py::reinterpret_borrow<py::object>(name);
    last_function_ = function;
    previous = py::object();
    return function;
  }

  std::shared_ptr<RunCall> Start(PyObject* name, std::span<PyObject* const> arguments,
                                 std::optional<double> timeout, int64_t token, bool notify) const {
    if (state_->generation != ProcessGeneration()) {
      ThrowError("RuntimeError",
                 "this program was loaded before os.fork(): the runtime's threads do not exist "
                 "in this process; load it again here (or start processes with 'spawn')",
                 py::dict("code"_a = "FAILED_PRECONDITION"));
    }
    auto call = std::make_shared<RunCall>(state_, FunctionNamed(name), token);
    call->Start(arguments, timeout, notify);
    return call;
  }

  py::object Run(PyObject* name, std::span<PyObject* const> arguments,
                 std::optional<double> timeout) const {
    std::shared_ptr<RunCall> call = Start(name, arguments, timeout, 0, false);
    if (!call->done()) call->Wait();
    // A Ctrl-C during an inline run: KeyboardInterrupt before its results.
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    return call->Result();
  }

  // (name, kind, argument types, result types) of every named function.
  std::vector<py::tuple> Signatures() const {
    std::vector<py::tuple> signatures;
    const BefProgram& program = *state_->program;
    for (size_t i = 0; i < program.num_functions(); ++i) {
      const Function* function = program.GetFunction(static_cast<uint32_t>(i));
      if (function == nullptr || function->name().empty()) continue;
      const char* kind = function->kind() == FunctionKind::kSyncBefFunction ? "sync"
                         : function->kind() == FunctionKind::kNativeFunction ? "native"
                                                                             : "bef";
      py::list arguments, results;
      for (std::string_view type : function->argument_types()) arguments.append(Text(type));
      for (std::string_view type : function->result_types()) results.append(Text(type));
      signatures.push_back(py::make_tuple(Text(function->name()), kind, arguments, results));
    }
    return signatures;
  }

  // (id, name, offset, length, alignment) of every section, unknown ones
  // included, in file order: bef-dump --summary's table.
  std::vector<py::tuple> Sections() const {
    std::vector<py::tuple> sections;
    SectionReader reader(state_->program->file().image());
    if (!reader.ReadHeader().ok()) return sections;  // verified at load
    while (!reader.done()) {
      absl::StatusOr<Section> section = reader.Next();
      if (!section.ok()) break;
      sections.push_back(py::make_tuple(section->id, std::string(SectionName(section->id)),
                                        section->body_offset, section->body.size(),
                                        section->alignment));
    }
    return sections;
  }

  py::str Dump(bool summary) const {
    return Text(DumpBefFile(state_->program->file(), {.summary = summary}));
  }

 private:
  explicit Program(std::shared_ptr<ProgramState> state) : state_(std::move(state)) {}

  const Function* Find(std::string_view name) const {
    const Function* function = state_->program->GetFunction(name);
    if (function == nullptr) {
      ThrowArgumentError("no function named '" + std::string(name) + "' in " + this->name());
    }
    if (function->kind() == FunctionKind::kSyncBefFunction) {
      ThrowArgumentError("'" + std::string(name) +
                         "' is a sync function: kernels call it, run() cannot");
    }
    return function;
  }

  std::shared_ptr<ProgramState> state_;
  mutable py::object last_name_;
  mutable const Function* last_function_ = nullptr;
};

// Program.run(name, *args, timeout=None), as a METH_FASTCALL method:
// pybind11's general dispatcher (argument tuples, overload matching) costs
// more than a small run itself.
PyObject* ProgramRun(PyObject* self, PyObject* const* arguments, Py_ssize_t count,
                     PyObject* keywords) {
  try {
    // The method's descriptor admits only Program instances; a class with
    // one C++ type keeps its value pointer in the instance itself.
    auto* instance = reinterpret_cast<py::detail::instance*>(self);
    const Program& program = *static_cast<const Program*>(
        instance->simple_layout ? instance->simple_value_holder[0]
                                : instance->get_value_and_holder().value_ptr());
    if (count < 1) {
      PyErr_SetString(PyExc_TypeError, "run() needs the name of the function to run");
      return nullptr;
    }
    py::object timeout = py::none();
    Py_ssize_t keyword_count = keywords == nullptr ? 0 : PyTuple_GET_SIZE(keywords);
    for (Py_ssize_t i = 0; i < keyword_count; ++i) {
      PyObject* keyword = PyTuple_GET_ITEM(keywords, i);
      if (PyUnicode_CompareWithASCIIString(keyword, "timeout") != 0) {
        PyErr_Format(PyExc_TypeError, "run() got an unexpected keyword argument '%U'", keyword);
        return nullptr;
      }
      timeout = py::reinterpret_borrow<py::object>(arguments[count + i]);
    }
    return program
        .Run(arguments[0], std::span<PyObject* const>(arguments + 1, static_cast<size_t>(count - 1)),
             Seconds(timeout))
        .release()
        .ptr();
  } catch (py::error_already_set& error) {
    error.restore();
  } catch (const py::builtin_exception& error) {
    error.set_error();
  } catch (const std::exception& error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
  }
  return nullptr;
}

PyMethodDef program_run = {
    "run", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&ProgramRun)),
    METH_FASTCALL | METH_KEYWORDS,
    "run($self, name, /, *args, timeout=None)\n--\n\n"
    "Runs the function `name` on `args` (chain arguments left out) and returns its\n"
    "non-chain results: None, the one value, or a tuple. `timeout` (seconds) is the\n"
    "run's deadline. Raises bef.ArgumentError (before anything runs), bef.RuntimeError,\n"
    "bef.CancelledError, bef.DeadlineExceededError; Ctrl-C cancels the run."};

// The `__new__` of the types only the runtime makes (Program by bef.load,
// Value and _RunCall as results of runs): pybind11's own would make an
// instance whose C++ object was never constructed, which every method then
// reads (a crash). Subclasses inherit it; pybind11 makes its own instances
// without calling `__new__`.
void MakeOnlyByTheRuntime(py::handle type) {
  py::setattr(type, "__new__",
              py::staticmethod(py::cpp_function(
                  [](py::handle cls, const py::args&, const py::kwargs&) -> py::object {
                    throw py::type_error(
                        "cannot create '" + py::str(cls.attr("__qualname__")).cast<std::string>() +
                        "' instances: the runtime makes them (bef.load makes a Program; runs "
                        "return Values)");
                  })));
}

}  // namespace
}  // namespace bef::python

PYBIND11_MODULE(_runtime, module) {
  using namespace bef::python;
  module.doc() = "The BEF runtime (use the `bef` package, not this module).";
  bef::python::RememberMainThread();
  PrepareForForks();
  PrepareHostsForForks();
  CompletionQueue::PrepareForForks();

  py::class_<OpaqueValue>(module, "Value",
                          "A runtime value Python has no form for; pass it back to a function "
                          "argument of the same BEF type.")
      .def_property_readonly("type", [](const OpaqueValue& value) { return value.type; })
      .def("__repr__", [](const OpaqueValue& value) { return "bef.Value(" + value.type + ")"; });

  module.attr("TensorBuffer") = InitializeValues();

  py::class_<RunCall, std::shared_ptr<RunCall>>(module, "_RunCall")
      .def_property_readonly("token", &RunCall::token)
      .def("done", &RunCall::done)
      .def("cancel", &RunCall::Cancel)
      .def("result", &RunCall::Result);

  py::class_<Program> program(module, "Program",
                              "A loaded, verified BEF program (made by bef.load).");
  program.def_property_readonly("name", &Program::python_name, "The path, or '<bytes>'.")
      .def_property_readonly("work_queue", &Program::work_queue,
                             "The work-queue spec the program was loaded with.")
      .def("_start", [](const Program& program, const py::str& name, const py::tuple& arguments,
                        const py::object& timeout, int64_t token) {
        std::span<PyObject* const> items(&PyTuple_GET_ITEM(arguments.ptr(), 0),
                                         static_cast<size_t>(PyTuple_GET_SIZE(arguments.ptr())));
        return program.Start(name.ptr(), items, Seconds(timeout), token, true);
      })
      .def("_signatures", &Program::Signatures)
      .def("_sections", &Program::Sections)
      .def("dump", &Program::Dump, py::arg("summary") = false,
           "bef-dump's listing of the file (summary=True: the section table only).");

  MakeOnlyByTheRuntime(module.attr("Value"));
  MakeOnlyByTheRuntime(module.attr("_RunCall"));
  MakeOnlyByTheRuntime(program);

  py::object run = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(program.ptr()), &program_run));
  if (!run) throw py::error_already_set();
  program.attr("run") = run;

  module.def("_load", &Program::Load, py::arg("source"), py::arg("work_queue"));
  module.def("_next_completion", []() -> std::shared_ptr<RunCall> {
    bef::python::ReleasedGil release;
    return CompletionQueue::Get().Pop();
  });
  module.def("_close_completions", [] { CompletionQueue::Get().Close(); });
  module.def("_reopen_completions", [] { CompletionQueue::Get().Reopen(); });
}
