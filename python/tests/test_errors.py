"""Errors are exceptions with the runtime's message and the kernel's location."""

import os

import pytest

import bef


def test_runtime_error_carries_the_location(program):
    with pytest.raises(bef.RuntimeError) as raised:
        program.run("fail", 1)
    error = raised.value
    assert error.message == "something bad happened"
    assert error.code == "INTERNAL"
    assert error.function == "fail"
    assert error.result == 0
    assert error.location.endswith("python_test.mlir:63:8"), error.location
    assert str(error) == f"fail: something bad happened (at {error.location})"
    assert isinstance(error, RuntimeError)  # also the built-in one


def test_unknown_function_and_wrong_argument_count(program):
    with pytest.raises(bef.ArgumentError, match="no function named 'nope'"):
        program.run("nope")
    with pytest.raises(bef.ArgumentError, match=r"'add' takes 2 arguments \(i32, i32\), 1 given"):
        program.run("add", 1)
    with pytest.raises(bef.ArgumentError, match="timeout"):
        program.run("add", 1, 2, timeout=-1)


def test_load_errors(tmp_path, bef_path):
    with pytest.raises(bef.LoadError) as missing:
        bef.load(tmp_path / "missing.bef")
    assert "missing.bef" in str(missing.value)
    with pytest.raises(bef.LoadError):
        bef.load(b"not a BEF file")
    data = open(bef_path, "rb").read()
    with pytest.raises(bef.LoadError):
        bef.load(data[: len(data) // 2])  # truncated: a clear error, never a crash
    with pytest.raises(bef.ArgumentError):
        bef.load(42)
    with pytest.raises(bef.ArgumentError, match="work_queue"):
        bef.load(bef_path, work_queue="bogus")


def test_every_corruption_of_one_byte_is_an_error_or_a_program(bef_path):
    data = bytearray(open(bef_path, "rb").read())
    for offset in range(0, len(data), max(1, len(data) // 200)):
        corrupted = bytearray(data)
        corrupted[offset] ^= 0xA5
        try:
            bef.load(bytes(corrupted))
        except bef.LoadError:
            pass


def test_load_from_path_like_and_bytes(bef_path):
    from_path = bef.load(os.fsencode(bef_path).decode())
    from_bytes = bef.load(memoryview(open(bef_path, "rb").read()))
    assert from_path.run("add", 1, 2) == from_bytes.run("add", 1, 2) == 3
    assert from_bytes.name == "<bytes>"


def test_errors_share_a_base_class():
    for error in (bef.LoadError, bef.ArgumentError, bef.RuntimeError, bef.CancelledError,
                  bef.DeadlineExceededError, bef.ConverterError):
        assert issubclass(error, bef.Error)
    assert issubclass(bef.DeadlineExceededError, bef.CancelledError)
    assert issubclass(bef.DeadlineExceededError, TimeoutError)


def test_errors_pickle_with_their_details(program):
    import pickle
    with pytest.raises(bef.RuntimeError) as raised:
        program.run("fail", 1)
    copy = pickle.loads(pickle.dumps(raised.value))
    assert type(copy) is bef.RuntimeError
    assert (copy.message, copy.code, copy.location, copy.function, copy.result) == \
        (raised.value.message, raised.value.code, raised.value.location, raised.value.function,
         raised.value.result)
    assert str(copy) == str(raised.value)


ONCE_ITSELF = """
func.func @itself() -> i32 {
  %x = tfrt.once @itself() : () -> (i32)
  tfrt.return %x : i32
}
"""


@pytest.mark.parametrize("work_queue", ["s", "mstd:2"])
def test_a_tfrt_once_that_calls_itself_is_an_error(work_queue):
    # issue #51 row 2: the run never ended (timeout=, Ctrl-C and
    # future.cancel() did nothing). Re-entry is an error at its location,
    # every time, in run and run_async alike.
    program = bef.load(bef.mlir_to_bef(ONCE_ITSELF), work_queue=work_queue)
    for _ in range(2):
        with pytest.raises(bef.RuntimeError, match="tfrt.once of @itself re-entered") as raised:
            program.run("itself", timeout=30)
        assert raised.value.location.endswith(":3:8"), raised.value.location
        future = program.run_async("itself", timeout=30)
        assert isinstance(future.exception(timeout=30), bef.RuntimeError)
