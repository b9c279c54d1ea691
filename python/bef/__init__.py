"""Load, inspect and run BEF programs from Python (docs/python.md).

    import numpy as np, bef
    program = bef.load("model.bef", work_queue="mstd:2")
    program.functions["main"]       # Signature(name, kind, arguments, results)
    out = program.run("main", np.arange(6, dtype=np.float32).reshape(2, 3), 7)
    future = program.run_async("main", ...)     # a concurrent.futures.Future
    program = bef.load(bef.mlir_to_bef(open("m.mlir").read()))

Values: bool/int/float/str (or bytes) for scalars, range-checked against the
BEF type; NumPy arrays for tensors (borrowed without a copy when contiguous
and aligned; results share the tensor's buffer); `!tfrt.chain` arguments
and results are handled here (left out of calls and results); anything else
comes back as a `bef.Value` that can be passed back in.

The GIL is released while a program runs: many threads may run one program
at once. `timeout=` (seconds) cancels a run with DeadlineExceededError;
Ctrl-C cancels a blocking run() and raises KeyboardInterrupt.

The converter (MLIR) is a separate extension, loaded on first use of
`mlir_to_bef`/`bef_to_mlir`: `import bef` stays light.
"""

import atexit as _atexit
import collections as _collections
import concurrent.futures as _futures
import itertools as _itertools
import os as _os
import threading as _threading

from bef._errors import (ArgumentError, CancelledError, ConverterError,
                         DeadlineExceededError, Error, LoadError, RuntimeError)
from bef import _runtime

__all__ = [
    "load", "Program", "Signature", "Section", "Value", "RunFuture",
    "mlir_to_bef", "bef_to_mlir", "onnx_to_bef",
    "Error", "LoadError", "ArgumentError", "RuntimeError", "CancelledError",
    "DeadlineExceededError", "ConverterError",
]

__version__ = "0.1.0"

Program = _runtime.Program
Value = _runtime.Value
TensorBuffer = _runtime.TensorBuffer

# A function's interface in BEF type names; `kind` is "bef", "sync" (called
# by kernels only) or "native".
Signature = _collections.namedtuple("Signature", "name kind arguments results")
# One section of the file, as `bef-dump --summary` lists it: `offset` of
# the body in the file, `length` of the body.
Section = _collections.namedtuple("Section", "id name offset length alignment")

DEFAULT_WORK_QUEUE = "mstd"


def load(source, work_queue=DEFAULT_WORK_QUEUE):
    """Loads and verifies a BEF program.

    source: a path (str or os.PathLike) or the file's bytes (bytes,
        bytearray, memoryview).
    work_queue: where the program's kernels run: "mstd" (a thread per core),
        "mstd:N" or "mstd:N,BLOCKING" (N compute threads), or "s" (the
        calling thread). Programs loaded with the same spec share one host.

    A path names a regular file: FIFOs, devices and sockets are refused
    (LoadError) without blocking, and "-" is the file named "-". To load
    standard input, pass its bytes: bef.load(sys.stdin.buffer.read()).

    Raises LoadError (unreadable or malformed file, unknown kernels) or
    ArgumentError (bad work_queue, a path with a null byte).
    """
    if not isinstance(work_queue, str):
        raise ArgumentError(
            f"bef.load: work_queue must be a str such as 'mstd' or 's', not "
            f"{type(work_queue).__name__}")
    if not work_queue.isascii():
        raise ArgumentError(
            f"bef.load: work_queue {work_queue.encode('utf-8', 'backslashreplace').decode()!r} "
            f"is no work queue (such as 'mstd' or 's')")
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _runtime._load(source, work_queue)
    if isinstance(source, (str, _os.PathLike)):
        path = _os.fspath(source)
        if isinstance(path, bytes):
            path = _os.fsdecode(path)
        if "\0" in path:
            raise ArgumentError("embedded null byte")  # as open() says
        return _runtime._load(path, work_queue)
    raise ArgumentError(
        f"bef.load: source must be a path or bytes, not {type(source).__name__}")


def _functions(program):
    return {entry[0]: Signature(*entry) for entry in program._signatures()}


def _sections(program):
    return [Section(*entry) for entry in program._sections()]


def _summary(program):
    """The section table and totals, as `bef-dump --summary` prints them."""
    return program.dump(summary=True)


def _repr(program):
    return f"<bef.Program {program.name!r} work_queue={program.work_queue!r}>"


Program.functions = property(
    _functions, doc="{name: Signature} of the program's named functions.")
Program.sections = property(_sections, doc="[Section] in file order, unknown ids included.")
Program.summary = _summary
Program.__repr__ = _repr


# --- run_async: runs whose completion the runtime reports on a queue that one
# dispatcher thread drains into concurrent.futures.Future objects.

class _CallbackThreads:
    """Runs futures' done-callbacks, never on the dispatcher thread (a
    callback that waits for another future would stop every future from
    completing): daemon threads, one more started whenever a callback comes
    and none is idle (a callback that blocks holds only its own), at most
    _MOST; they live as long as the process."""

    _MOST = 64

    def __init__(self):
        self._lock = _threading.Lock()
        self._work = _threading.Condition(self._lock)
        self._queue = _collections.deque()
        self._idle = 0
        self._threads = 0

    def submit(self, callback):
        with self._lock:
            self._queue.append(callback)
            if self._idle > len(self._queue) - 1:
                self._work.notify()
                return
            if self._threads >= self._MOST:
                return  # the busy threads take it in turn
            self._threads += 1
        _threading.Thread(target=self._run, name="bef-callbacks", daemon=True).start()

    def _run(self):
        while True:
            with self._lock:
                self._idle += 1
                while not self._queue:
                    self._work.wait()
                self._idle -= 1
                callback = self._queue.popleft()
            callback()
            del callback

    def after_fork_in_child(self):
        self.__init__()  # the parent's threads are not in this process


_callback_threads = _CallbackThreads()


class RunFuture(_futures.Future):
    """The Future of Program.run_async. cancel() also cancels the run in the
    runtime (its kernels stop at the next cancellation check). Done-callbacks
    run on threads of their own, never on the thread that completes futures:
    a callback may wait for another future."""

    def __init__(self):
        super().__init__()
        self._call = None

    def _invoke_callbacks(self):
        if self._done_callbacks:
            _callback_threads.submit(super()._invoke_callbacks)

    def cancel(self):
        call = self._call
        if call is not None:
            call.cancel()
        return super().cancel()


class _Dispatcher:
    def __init__(self):
        self._lock = _threading.Lock()
        self._futures = {}
        self._tokens = _itertools.count(1)
        self._thread = None

    def submit(self, program, name, args, timeout):
        future = RunFuture()
        token = next(self._tokens)
        with self._lock:
            self._futures[token] = future
            if self._thread is None:
                _runtime._reopen_completions()
                self._thread = _threading.Thread(
                    target=self._loop, name="bef-completions", daemon=True)
                self._thread.start()
        try:
            future._call = program._start(name, args, timeout, token)
        except BaseException:
            with self._lock:
                self._futures.pop(token, None)
            raise
        return future

    def _loop(self):
        while True:
            call = _runtime._next_completion()
            if call is None:
                return
            with self._lock:
                future = self._futures.pop(call.token, None)
            if future is None or future.cancelled():
                del call, future  # nothing to deliver: hold no results
                continue
            try:
                result = call.result()
            except BaseException as error:  # delivered through the future
                self._settle(future, future.set_exception, error)
            else:
                self._settle(future, future.set_result, result)
                del result  # held only by the future from here on
            del call, future

    @staticmethod
    def _settle(future, setter, value):
        try:
            setter(value)
        except _futures.InvalidStateError:
            pass  # cancelled meanwhile

    def after_fork_in_child(self):
        # The dispatcher thread and the parent's runs are not in this process.
        self._lock = _threading.Lock()
        self._futures = {}
        self._thread = None

    def close(self):
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            _runtime._close_completions()
            thread.join(timeout=5)


_dispatcher = _Dispatcher()
_atexit.register(_dispatcher.close)
_os.register_at_fork(after_in_child=_dispatcher.after_fork_in_child)
_os.register_at_fork(after_in_child=_callback_threads.after_fork_in_child)


def _run_async(program, name, *args, timeout=None):
    """Starts a run and returns a RunFuture of its result (what run() would
    return or raise). Argument errors are raised here, before anything runs."""
    if not isinstance(name, str):
        raise ArgumentError(f"the function name must be a str, not {type(name).__name__}")
    return _dispatcher.submit(program, name, args, timeout)


Program.run_async = _run_async


# --- The converter: a separate extension linking MLIR, imported on first use.

def mlir_to_bef(text, *, optional_sections=True):
    """MLIR text of a host program -> BEF bytes (as the mlir-to-bef tool).
    Raises ConverterError with MLIR's diagnostics."""
    from bef import converter
    return converter.mlir_to_bef(text, optional_sections=optional_sections)


def onnx_to_bef(model, *, repository, name, version=1, batch=None, entry_function="main"):
    """Converts an ONNX model (a path, bytes or onnx.ModelProto) into a
    bef_serve repository version: `repository`/`name`/config.json and
    `repository`/`name`/`version`/model.bef (docs/onnx.md). `batch` fixes
    dynamic input dimensions. Returns the version's directory; raises
    bef.onnx_converter.ConversionError naming the node it cannot convert.
    Needs python3-onnx."""
    from bef import onnx_converter
    return onnx_converter.onnx_to_bef(model, repository=repository, name=name, version=version,
                                      batch=batch, entry_function=entry_function)


def bef_to_mlir(data):
    """BEF bytes -> MLIR text (as the bef-to-mlir tool)."""
    from bef import converter
    return converter.bef_to_mlir(data)
