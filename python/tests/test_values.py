"""Every value kind both ways, and zero copy checked by buffer addresses."""

import math

import numpy as np
import pytest

import bef

DENSE_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float16", "float32", "float64", "complex64", "complex128"]


def test_scalars_both_ways(program):
    arguments = (True, -128, -2**31, 2**63 - 1, 255, 2**32 - 1, 2**64 - 1, 3.5, 1e300, "héllo ✓")
    assert program.run("scalars", *arguments) == arguments
    results = program.run("scalars", False, 127, 2**31 - 1, -2**63, 0, 0, 0, -0.25, -1e-300, "")
    assert [type(value) for value in results] == [bool, int, int, int, int, int, int, float, float, str]


def test_scalars_accept_numpy_scalars(program):
    results = program.run("scalars", np.bool_(True), np.int8(-1), np.int32(7), np.int64(-9),
                          np.uint8(200), np.uint32(4000000000), np.uint64(2**64 - 1),
                          np.float32(1.5), np.float64(2.5), np.str_("s"))
    assert results == (True, -1, 7, -9, 200, 4000000000, 2**64 - 1, 1.5, 2.5, "s")


def test_f32_rounds_and_keeps_special_values(program):
    results = program.run("scalars", True, 0, 0, 0, 0, 0, 0, 0.1, math.inf, "")
    assert results[7] == float(np.float32(0.1))
    assert results[8] == math.inf
    nan = program.run("scalars", True, 0, 0, 0, 0, 0, 0, math.nan, math.nan, "")
    assert math.isnan(nan[7]) and math.isnan(nan[8])


def test_string_bytes_and_non_utf8(program):
    assert program.run("scalars", True, 0, 0, 0, 0, 0, 0, 0.0, 0.0, b"abc")[9] == "abc"
    assert program.run("scalars", True, 0, 0, 0, 0, 0, 0, 0.0, 0.0, b"\xff\x00")[9] == b"\xff\x00"


@pytest.mark.parametrize("index,value", [
    (1, 128), (1, -129), (2, 2**31), (3, 2**63), (4, -1), (4, 256), (5, 2**32), (6, -1),
    (6, 2**64), (7, 1e39), (7, -1e39),
])
def test_out_of_range_scalars_are_refused(program, index, value):
    arguments = [True, 0, 0, 0, 0, 0, 0, 0.0, 0.0, ""]
    arguments[index] = value
    with pytest.raises(bef.ArgumentError, match="out of range"):
        program.run("scalars", *arguments)


@pytest.mark.parametrize("index,value", [
    (0, 1), (0, None), (1, True), (2, 1.5), (2, "1"), (3, None), (7, "1.0"), (7, True),
    (8, 1j), (9, 1), (9, None),
])
def test_wrong_python_types_are_refused(program, index, value):
    arguments = [True, 0, 0, 0, 0, 0, 0, 0.0, 0.0, ""]
    arguments[index] = value
    with pytest.raises(bef.ArgumentError) as error:
        program.run("scalars", *arguments)
    assert f"argument {index} of 'scalars'" in str(error.value)
    assert isinstance(error.value, TypeError)


def test_ints_are_floats_where_a_float_is_expected(program):
    assert program.run("scalars", True, 0, 0, 0, 0, 0, 0, 3, 2**53, "")[7:9] == (3.0, 2.0**53)


def test_chains_are_handled_for_the_caller(program):
    assert program.functions["with_chains"].arguments == ["!tfrt.chain", "i32"]
    assert program.run("with_chains", 41) == 41
    assert program.run("empty") is None


@pytest.mark.parametrize("dtype", DENSE_DTYPES)
def test_dense_tensors_both_ways_without_a_copy(program, dtype):
    array = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
    result = program.run("echo_tensor", array)
    assert result.dtype == array.dtype and result.shape == array.shape
    np.testing.assert_array_equal(result, array)
    # The tensor borrowed the array's buffer and the result views it.
    assert result.ctypes.data == array.ctypes.data
    assert result.base.address == array.ctypes.data
    assert not result.flags.writeable  # a borrowed buffer is read-only to the runtime


def test_zero_dimensional_and_empty_tensors(program):
    scalar = program.run("echo_tensor", np.float64(2.5))
    assert scalar.shape == () and scalar == 2.5
    empty = program.run("echo_tensor", np.zeros((0, 3), np.int32))
    assert empty.shape == (0, 3) and empty.dtype == np.int32


def test_results_share_the_tensor_buffer(program):
    first = program.run("new_tensor")
    np.testing.assert_array_equal(first, np.full((2, 3), 1.5, np.float32))
    assert isinstance(first.base, bef.TensorBuffer)
    assert first.ctypes.data == first.base.address
    assert first.flags.writeable  # the runtime allocated it: the array may write it
    # Passed back in: still the same buffer, in and out.
    again = program.run("echo_tensor", first)
    assert again.ctypes.data == first.ctypes.data


def test_constant_tensor_views_the_file_read_only(program):
    constant = program.run("constant_tensor")
    np.testing.assert_array_equal(constant, [[1, 2], [3, 4]])
    assert constant.dtype == np.int32
    assert not constant.flags.writeable
    with pytest.raises(ValueError):
        constant[0, 0] = 7


def test_a_kernel_writing_a_borrowed_array_copies_it_first(program):
    array = np.zeros((2, 3), np.float32)
    result = program.run("fill", array)
    np.testing.assert_array_equal(result, np.full((2, 3), 2.5, np.float32))
    np.testing.assert_array_equal(array, np.zeros((2, 3), np.float32))
    assert result.ctypes.data != array.ctypes.data


def test_non_contiguous_misaligned_and_byteswapped_arrays_are_copied(program):
    strided = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    result = program.run("echo_tensor", strided)
    np.testing.assert_array_equal(result, strided)
    assert result.ctypes.data != strided.ctypes.data
    swapped = np.arange(4, dtype=">i4")
    result = program.run("echo_tensor", swapped)
    assert result.dtype == np.dtype("int32")
    np.testing.assert_array_equal(result, [0, 1, 2, 3])
    misaligned = np.frombuffer(bytes(33), dtype=np.float64, offset=1)
    assert misaligned.ctypes.data % 8 != 0
    np.testing.assert_array_equal(program.run("echo_tensor", misaligned), np.zeros(4))


def test_array_likes_become_tensors(program):
    np.testing.assert_array_equal(program.run("echo_tensor", [[1, 2], [3, 4]]), [[1, 2], [3, 4]])


def test_unsupported_dtypes_are_refused(program):
    with pytest.raises(bef.ArgumentError, match="no tensor dtype matches"):
        program.run("echo_tensor", np.array(["2020-01-01"], dtype="datetime64[D]"))


def test_string_tensors_both_ways(program):
    result = program.run("string_tensor")
    assert result.dtype == object and result.shape == (2, 2)
    assert result.tolist() == [["north", ""], ['a "quoted" word', "süd"]]
    for strings in (np.array(["a", "bb", "ccc"]), np.array([b"x", b"\xff"]),
                    np.array(["p", b"q"], dtype=object)):
        echoed = program.run("echo_tensor", strings)
        assert echoed.shape == strings.shape
        assert [s.encode() if isinstance(s, str) else s for s in echoed.tolist()] == \
            [s.encode() if isinstance(s, str) else s for s in strings.tolist()]
    with pytest.raises(bef.ArgumentError, match="str or bytes"):
        program.run("echo_tensor", np.array(["a", 1], dtype=object))


def test_opaque_values_round_trip(program):
    shape = program.run("shape_of", np.zeros((3, 4, 5)))
    assert isinstance(shape, bef.Value) and shape.type == "!ts.shape"
    assert program.run("num_elements", shape) == 60
    with pytest.raises(bef.ArgumentError, match="has type !tfrt_tensor.tensor, not !ts.shape"):
        program.run("echo_tensor", shape)
    with pytest.raises(bef.ArgumentError, match="bef.Value"):
        program.run("num_elements", (3, 4))


CACHED = """
func.func @filled() -> (!tfrt_tensor.tensor, !tfrt.chain) {
  %c = tfrt.new.chain
  %t = "tfrt_dht.create_uninitialized_tensor.f32.1"() {shape = [2 : i64]} : () -> !tfrt_tensor.tensor
  %c1 = "tfrt_dht.fill_tensor_with_constant.f32"(%t, %c) {value = 1.5 : f32} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return %t, %c1 : !tfrt_tensor.tensor, !tfrt.chain
}

func.func @cached() -> (!tfrt_tensor.tensor, !tfrt.chain) {
  %t, %c = tfrt.once @filled() : () -> (!tfrt_tensor.tensor, !tfrt.chain)
  tfrt.return %t, %c : !tfrt_tensor.tensor, !tfrt.chain
}

func.func @twice() -> (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) {
  %t, %c = tfrt.call @filled() : () -> (!tfrt_tensor.tensor, !tfrt.chain)
  tfrt.return %t, %t, %c : !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain
}
"""


@pytest.mark.parametrize("work_queue", ["s", "mstd:2"])
def test_results_never_alias_what_a_later_run_reads(work_queue):
    program = bef.load(bef.mlir_to_bef(CACHED), work_queue=work_queue)
    # A tfrt.once-cached tensor comes back as a copy: writing into it does
    # not change the cache.
    first = program.run("cached")
    assert first.flags.writeable
    first[:] = 99.0
    again = program.run("cached")
    np.testing.assert_array_equal(again, [1.5, 1.5])
    assert not np.shares_memory(first, again)
    # One tensor returned twice: two arrays that do not alias each other.
    a, b = program.run("twice")
    a[0] = 7.0
    np.testing.assert_array_equal(b, [1.5, 1.5])
    # A tensor only the result holds is the array's own buffer, writable
    # (on "s" the run's last kernel has let go of it when the run returns;
    # on threads it may still hold it an instant, and the array is a copy).
    tensor = program.run("filled")
    assert tensor.flags.writeable
    if work_queue == "s":
        assert isinstance(tensor.base, bef.TensorBuffer)
