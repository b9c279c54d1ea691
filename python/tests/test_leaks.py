"""Reference counts and memory: 100k runs must not grow the process."""

import gc
import os
import sys
import time

import numpy as np
import pytest

import bef


def rss_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def run_mix(program, count, array):
    for i in range(count):
        program.run("add", i, 1)
        program.run("echo_tensor", array)
        program.run("new_tensor")
        program.run("echo_tensor", np.arange(8, dtype=np.int32))
        if i % 10 == 0:
            program.run("string_tensor")
            try:
                program.run("fail", 1)
            except bef.RuntimeError:
                pass
            try:
                program.run("add", "x", 1)
            except bef.ArgumentError:
                pass


def test_borrowed_arrays_are_released(program):
    array = np.zeros(1024, np.float32)
    baseline = sys.getrefcount(array)
    for _ in range(1000):
        result = program.run("echo_tensor", array)
    assert sys.getrefcount(array) == baseline + 1  # held by the last result only
    del result
    assert sys.getrefcount(array) == baseline


def test_arrays_released_by_runtime_threads_are_released(program):
    # run_async runs on the work queue: a worker may drop the last reference
    # to a borrowed array, without the GIL; the package releases it later,
    # on a thread that holds the GIL.
    array = np.zeros(1024, np.float32)
    baseline = sys.getrefcount(array)
    futures = [program.run_async("echo_tensor", array) for _ in range(500)]
    for future in futures:
        assert future.result(timeout=30).ctypes.data == array.ctypes.data
    del futures, future
    deadline = time.monotonic() + 10
    while sys.getrefcount(array) != baseline and time.monotonic() < deadline:
        time.sleep(0.001)
    assert sys.getrefcount(array) == baseline


def test_result_arrays_release_their_buffers(program):
    results = [program.run("new_tensor") for _ in range(1000)]
    bases = {id(result.base) for result in results}
    assert len(bases) == 1000
    del results
    gc.collect()


@pytest.mark.skipif(bool(os.environ.get("BEF_SANITIZER")),
                    reason="ASan's quarantine keeps freed memory (measured in the normal pass)")
def test_100k_runs_do_not_grow_rss(program):
    array = np.ones((64, 64), np.float32)
    run_mix(program, 10_000, array)  # warm up: allocator pools, caches
    gc.collect()
    before = rss_bytes()
    run_mix(program, 100_000, array)
    gc.collect()
    growth = rss_bytes() - before
    assert growth < 4 * 1024 * 1024, f"RSS grew by {growth} bytes over 100k runs"
