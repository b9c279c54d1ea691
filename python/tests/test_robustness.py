"""What a careless or hostile caller can do never crashes the process and
never makes the runtime guess (the Python package's robustness issue)."""

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
