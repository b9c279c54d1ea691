"""Many threads run one program at once; run_async returns futures."""

import concurrent.futures
import threading

import numpy as np

import bef


def test_eight_threads_run_one_program(program):
    errors = []

    def worker(seed):
        try:
            for i in range(2000):
                assert program.run("add", seed, i) == seed + i
                array = np.full(16, seed, np.int64)
                assert program.run("echo_tensor", array).ctypes.data == array.ctypes.data
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []


def test_the_gil_is_released_while_a_program_runs(program):
    # A long run on one thread must not stop another Python thread.
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set() and len(ticks) < 1000:
            ticks.append(1)
            done.wait(0.001)

    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        assert program.run("spin", 3_000_000) == 3_000_000
    finally:
        done.set()
        thread.join(timeout=10)
    assert len(ticks) > 1


def test_run_async_returns_futures(program):
    futures = [program.run_async("add", i, i) for i in range(500)]
    assert [future.result(timeout=30) for future in futures] == [2 * i for i in range(500)]
    assert all(isinstance(future, concurrent.futures.Future) for future in futures)


def test_run_async_delivers_errors_and_tensors(program):
    failing = program.run_async("fail", 1)
    assert isinstance(failing.exception(timeout=30), bef.RuntimeError)
    array = np.arange(10.0)
    echoed = program.run_async("echo_tensor", array).result(timeout=30)
    assert echoed.ctypes.data == array.ctypes.data


def test_run_async_from_eight_threads(program):
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        outer = [pool.submit(lambda i=i: program.run_async("add", i, 1).result(timeout=30))
                 for i in range(400)]
        assert sorted(f.result(timeout=60) for f in outer) == [i + 1 for i in range(400)]


def test_run_async_refuses_bad_arguments_at_once(program):
    try:
        program.run_async("add", "x", 1)
    except bef.ArgumentError:
        pass
    else:
        raise AssertionError("expected ArgumentError")


def test_single_threaded_queue_runs_on_the_caller(bef_path):
    program = bef.load(bef_path, work_queue="s")
    assert program.run("spin", 1000) == 1000
    assert program.run_async("add", 2, 3).result(timeout=30) == 5
    # Threads take turns on the one queue.
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        sums = list(pool.map(lambda i: program.run("add", i, 1), range(2000)))
    assert sums == [i + 1 for i in range(2000)]


def test_run_async_with_asyncio(program):
    import asyncio

    async def many():
        futures = [asyncio.wrap_future(program.run_async("add", i, 1)) for i in range(200)]
        return await asyncio.gather(*futures)

    assert asyncio.run(many()) == [i + 1 for i in range(200)]
