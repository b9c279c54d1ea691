"""What a careless or hostile caller can do never crashes the process and
never makes the runtime guess (the Python package's robustness issue)."""

import os

import numpy as np
import pytest

import bef
from bef import _runtime


# ---- Objects made without their initializer.

RUNTIME_MADE = [bef.Program, bef.Value, _runtime._RunCall]


@pytest.mark.parametrize("cls", RUNTIME_MADE, ids=lambda cls: cls.__name__)
def test_runtime_made_types_cannot_be_made_by_new(cls):
    with pytest.raises(TypeError, match="cannot create"):
        cls.__new__(cls)
    with pytest.raises(TypeError):
        cls()

    class Subclass(cls):
        def __init__(self):  # skips the base's initializer
            pass

    with pytest.raises(TypeError, match="cannot create"):
        Subclass()


def test_every_method_of_every_type_on_a_new_made_object():
    """Every class of the package and its extension, made by __new__ where
    Python allows it, and then every public method and property called:
    exceptions are fine, a crash or a hang is not."""
    classes = [
        value
        for module in (bef, _runtime)
        for value in vars(module).values()
        if isinstance(value, type) and not issubclass(value, BaseException)
    ]
    assert bef.Program in classes and bef.TensorBuffer in classes
    for cls in classes:
        try:
            instance = cls.__new__(cls)
        except TypeError:
            continue  # cannot be made uninitialized: what we want
        for name in dir(cls):
            if name.startswith("_") or name in ("result", "exception"):
                # Private (the dispatcher's loop waits for runs by design)
                # or Future's blocking calls: no run behind them.
                continue
            try:
                attribute = getattr(instance, name)
                if callable(attribute):
                    attribute()
            except Exception:  # noqa: BLE001 - any exception is an answer
                pass


def test_runtime_made_objects_still_work(program):
    assert isinstance(program, bef.Program)
    future = program.run_async("add", 1, 2)
    assert future.result(timeout=30) == 3


# ---- Tensor kernels check the dtype of the tensors they read.


def test_a_float64_array_into_a_float32_kernel_is_an_error(program):
    with pytest.raises(bef.RuntimeError) as raised:
        program.run("eq_f32", np.array([1.0, 2.0]), np.array([1 + 1e-12, 5.0]))
    error = raised.value
    assert error.message == "tfrt_dht.tensor_equal: the tensor's dtype is f64, the kernel takes f32"
    assert error.code == "INVALID_ARGUMENT"
    assert error.location.endswith("python_test.mlir:81:14"), error.location
    # The right dtype compares as before.
    a = np.array([1.0, 2.0], np.float32)
    assert program.run("eq_f32", a, a.copy()) is True
    assert program.run("eq_f32", a, np.array([1.0, 5.0], np.float32)) is False


def test_an_int32_array_into_the_float32_fill_is_an_error(program):
    array = np.zeros(4, np.int32)
    with pytest.raises(bef.RuntimeError, match="the tensor's dtype is i32, the kernel takes f32"):
        program.run("fill", array)
    np.testing.assert_array_equal(array, np.zeros(4, np.int32))


# ---- Work-queue specs the machine cannot give.


def test_a_work_queue_of_more_threads_than_the_process_may_have_is_refused(bef_path):
    with pytest.raises(bef.ArgumentError, match="more than this process may have"):
        bef.load(bef_path, work_queue="mstd:100000")
    with pytest.raises(bef.ArgumentError, match="2 compute and 50000 blocking threads"):
        bef.load(bef_path, work_queue="mstd:2,50000")
    with pytest.raises(bef.ArgumentError, match="not a work queue"):
        bef.load(bef_path, work_queue="mstd:0")
    assert bef.load(bef_path, work_queue="mstd:2").run_async("add", 1, 2).result(timeout=30) == 3


# ---- Paths: a regular file, exactly the one named.


def test_a_path_with_a_null_byte_is_refused(bef_path):
    with pytest.raises(ValueError, match="embedded null byte") as raised:
        bef.load(bef_path + "\0junk")
    assert isinstance(raised.value, bef.ArgumentError)


def test_what_is_not_a_regular_file_is_refused_without_blocking(tmp_path):
    import os

    fifo = tmp_path / "stalled.bef"
    os.mkfifo(fifo)
    # A writer that sends a little and then stalls: the load must not wait.
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    try:
        os.write(writer, b"\x0b\xef" + b"\0" * 98)
        with pytest.raises(bef.LoadError, match="is a FIFO, not a regular file"):
            bef.load(fifo)
    finally:
        os.close(writer)
    with pytest.raises(bef.LoadError, match="is a character device, not a regular file"):
        bef.load("/dev/zero")


def test_dash_is_the_file_named_dash(tmp_path, monkeypatch, bef_path):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(bef.LoadError):
        bef.load("-")  # no such file here (standard input is never read)
    (tmp_path / "-").write_bytes(open(bef_path, "rb").read())
    assert bef.load("-").run("add", 2, 3) == 5


def test_bad_call_arguments_are_argument_errors(program, bef_path):
    with pytest.raises(bef.ArgumentError, match="work_queue must be a str"):
        bef.load(bef_path, work_queue=None)
    with pytest.raises(bef.ArgumentError, match="the function name must be a str, not int"):
        program.run_async(123, 1, 2)
    with pytest.raises(bef.ArgumentError, match="the function name must be a str, not int"):
        program.run(123, 1, 2)


# ---- Values that would lose something are refused.


SCALARS = [True, 1, 1, 1, 1, 1, 1, 1.0, 1.0, "s"]


@pytest.mark.parametrize(
    "index, value",
    [(8, np.complex128(1 + 2j)), (8, 1 + 2j), (7, np.complex64(1)), (8, np.array(1 + 0j))],
    ids=["complex128", "complex", "complex64 for f32", "0-d complex array"])
def test_complex_numbers_are_not_floats(program, index, value):
    arguments = list(SCALARS)
    arguments[index] = value
    with pytest.raises(bef.ArgumentError, match="must be a float"):
        program.run("scalars", *arguments)
    arguments[index] = np.float64(2.5)
    assert program.run("scalars", *arguments)[index] == 2.5


def test_a_masked_array_is_refused(program):
    masked = np.ma.masked_array([1, 2, 3], mask=[0, 1, 0], dtype=np.int32)
    with pytest.raises(bef.ArgumentError, match="masked array"):
        program.run("echo_tensor", masked)
    np.testing.assert_array_equal(program.run("echo_tensor", masked.filled(0)), [1, 0, 3])


# ---- The converter: ConverterError for every bad input, bounded messages.


def test_converter_inputs_that_are_not_text():
    import bef.converter

    with pytest.raises(bef.ConverterError, match=r"not UTF-8 \(byte 0xff at offset 0\)"):
        bef.converter.mlir_to_bef(b"\xff")
    with pytest.raises(bef.ConverterError, match="cannot be UTF-8"):
        bef.converter.mlir_to_bef("func.func @f() { \ud800 }")


def test_converter_messages_are_bounded():
    import bef.converter

    line = "  %x = tfrt.constant.i32 1 " + "x" * 20_000_000
    with pytest.raises(bef.ConverterError) as raised:
        bef.converter.mlir_to_bef("func.func @main() {\n" + line + "\n  tfrt.return\n}\n")
    message = str(raised.value)
    assert len(message) < 4096, len(message)
    lines = message.splitlines()
    assert lines[0].startswith("<string>:2:28: error: custom op")
    assert "more bytes" in lines[0]
    # The source line is cut around the column; the caret still points at it.
    assert lines[1].startswith("  %x = tfrt.constant.i32 1 xxx") and lines[1].endswith("...")
    assert lines[2].index("^") == 27


def test_bef_to_mlir_of_corrupted_bytes_is_a_converter_error(bef_path):
    import bef.converter

    data = bytearray(open(bef_path, "rb").read())
    for offset in range(4, len(data), max(1, len(data) // 200)):
        corrupted = bytearray(data)
        corrupted[offset] ^= 0xFF
        try:
            text = bef.converter.bef_to_mlir(bytes(corrupted))
        except bef.ConverterError:
            continue
        assert isinstance(text, str)


# ---- A forked child's Ctrl-C is the child's.


@pytest.mark.skipif(__import__("os").environ.get("BEF_SANITIZER") in ("tsan", "asan"),
                    reason="a child of a multi-threaded fork may hang in the sanitizer's own "
                           "allocator (test_cancellation.py, test_fork_child_loads_again); "
                           "the normal pass runs it")
def test_sigint_to_a_child_forked_during_an_inline_run_leaves_the_parent_alone(bef_path):
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(f"""
        import os, signal, sys, threading, time, bef
        # "s": the parent's run is surely inline on its main thread (the
        # case the interrupt watcher serves).
        program = bef.load({bef_path!r}, work_queue="s")
        for _ in range(3):
            program.run("spin", 1000)
        start = time.monotonic()
        program.run("spin", 10_000_000)
        per_iteration = (time.monotonic() - start) / 10_000_000
        iterations = int(min(2.0 / per_iteration, 2_000_000_000))
        status = []

        def fork_and_interrupt_the_child():
            time.sleep(0.3)  # the main thread is inside its run
            pid = os.fork()
            if pid == 0:
                try:
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(0.2)
                except BaseException:
                    pass
                os._exit(0)
            status.append(os.waitpid(pid, 0)[1])

        thread = threading.Thread(target=fork_and_interrupt_the_child)
        thread.start()
        result = program.run("spin", iterations)
        thread.join()
        print("parent", result == iterations, "child", status, flush=True)
    """)
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert output.returncode == 0, output.stderr
    assert output.stdout.startswith("parent True child ["), (output.stdout, output.stderr)


def test_a_location_naming_a_non_utf8_file_is_a_bef_error():
    # issue #51 row 6: the location's file name is not UTF-8.
    text = ('func.func @fail() -> i32 {\n'
            '  %y = "tfrt_test.fail"() : () -> i32 loc("bad\\FFname.mlir":3:4)\n'
            '  tfrt.return %y : i32\n'
            '}\n')
    program = bef.load(bef.mlir_to_bef(text), work_queue="s")
    with pytest.raises(bef.RuntimeError) as caught:
        program.run("fail")
    assert caught.value.location == "bad\\xffname.mlir:3:4"


def test_file_names_that_are_not_utf8(tmp_path, bef_path):
    # issue #51 row 7: names as os.listdir returns them (surrogate escapes).
    import bef.converter
    directory = os.fsencode(str(tmp_path))
    with open(bef_path, "rb") as source:
        data = source.read()
    with open(os.path.join(directory, b"\xffprogram.bef"), "wb") as out:
        out.write(data)
    with open(os.path.join(directory, b"\xfeprogram.mlir"), "wb") as out:
        out.write(b"func.func @seven() -> i32 {\n  %c = tfrt.constant.i32 7\n"
                  b"  tfrt.return %c : i32\n}\n")
    names = sorted(os.listdir(str(tmp_path)))
    assert all("\udcff" in n or "\udcfe" in n for n in names)
    bef_name = os.path.join(str(tmp_path), next(n for n in names if n.endswith(".bef")))
    mlir_name = os.path.join(str(tmp_path), next(n for n in names if n.endswith(".mlir")))
    assert bef.load(bef_name).run("add", 40, 2) == 42
    # (bytes given to bef.load are the file's content, not a path: documented)
    assert bef.load(bef.converter.mlir_file_to_bef(mlir_name)).run("seven") == 7
    assert bef.load(bef.converter.mlir_file_to_bef(os.fsencode(mlir_name))).run("seven") == 7
    with pytest.raises(bef.ConverterError) as caught:
        bef.converter.mlir_to_bef("func.func @f() { %x = tfrt.bogus }", name="\ud800x")
    assert "\\ud800x" in str(caught.value)


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, SystemExit])
def test_interrupts_while_converting_arguments_pass_through(program, interrupt):
    # issue #51 row 9: Ctrl-C in __index__, __float__ or __array__ is not the
    # argument's fault and must not become bef.ArgumentError.
    class Index:
        def __index__(self):
            raise interrupt()

    class Float:
        def __float__(self):
            raise interrupt()

    class Array:
        def __array__(self, dtype=None, copy=None):
            raise interrupt()

    with pytest.raises(interrupt):
        program.run("add", Index(), 2)
    with pytest.raises(interrupt):
        program.run("scalars", True, 1, 2, 3, 4, 5, 6, Float(), 1.0, "s")
    with pytest.raises(interrupt):
        program.run("echo_tensor", Array())
    # An ordinary exception there is still the argument's error.
    class Bad:
        def __index__(self):
            raise ValueError("no")
    with pytest.raises(bef.ArgumentError):
        program.run("add", Bad(), 2)


def test_a_name_whose_del_runs_another_function_keeps_the_cache_true(program):
    # issue #51 row 10: the name remembered last is released while a new
    # one is remembered; its __del__ calling run() must not leave one name
    # mapped to another function.
    class Name(str):
        def __del__(self):
            program.run("add", 1, 2)

    name = Name("with_chains")
    assert program.run(name, 5) == 5
    del name
    assert program.run("scalars", True, 1, 2, 3, 4, 5, 6, 1.5, 2.5, "s")[0] is True
    # The __del__ ran "add" while "scalars" was being remembered.
    assert program.run("add", 40, 2) == 42
    for _ in range(3):
        assert program.run("with_chains", 5) == 5
        assert program.run("add", 40, 2) == 42
    with pytest.raises(bef.ArgumentError, match="lone surrogate"):
        program.run("\ud800")


def test_odd_inputs_are_bef_errors(program, bef_path):
    # issue #51 row 11.
    with pytest.raises(bef.ArgumentError):
        bef.load(bef_path, work_queue="mstd\ud800")
    if not os.environ.get("BEF_SANITIZER"):
        # (A sanitizer's allocator ends the process on a 32 TiB request
        # instead of NumPy's MemoryError.)
        huge = np.broadcast_to(np.ones(1, np.float32), (1 << 22, 1 << 22))
        with pytest.raises(bef.ArgumentError, match="cannot be copied"):
            program.run("echo_tensor", huge[:, ::2])  # 32 TiB to copy

    class Liar(np.ndarray):
        def ravel(self, *args, **kwargs):
            return np.asarray(["only one"], dtype=object)

    strings = np.array([["a", "b"], ["c", "d"]], dtype=object).view(Liar)
    result = program.run("echo_tensor", strings)
    assert result.shape == (2, 2) and list(result.ravel()) == ["a", "b", "c", "d"]


def test_one_thread_budget_per_process(bef_path):
    # issue #51 row 3: spellings of one spec made hosts of their own, and the
    # thread limit was checked per spec: three hosts under `ulimit -u 400`
    # aborted in oneTBB.
    import subprocess
    import sys
    import textwrap
    script = textwrap.dedent(f"""
        import resource, bef
        resource.setrlimit(resource.RLIMIT_NPROC, (400, 400))
        programs = [bef.load({bef_path!r}, work_queue=spec)
                    for spec in ("mstd:2", "mstd:02", " mstd:2 ", "mstd:3")]
        print("ran", [p.run("add", 40, 2) for p in programs], flush=True)
        try:
            bef.load({bef_path!r}, work_queue="mstd:4")
        except bef.ArgumentError as error:
            print("refused:", error, flush=True)
        print("after", programs[0].run("spin", 100000), flush=True)
    """)
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           timeout=120)
    assert child.returncode == 0, (child.returncode, child.stderr[-2000:])
    assert "ran [42, 42, 42, 42]" in child.stdout
    assert "refused:" in child.stdout and "RLIMIT_NPROC" in child.stdout, child.stdout
    assert "other work queues hold 400" in child.stdout, child.stdout
    assert "after 100000" in child.stdout
