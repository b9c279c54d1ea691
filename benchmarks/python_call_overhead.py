"""Call overhead of the `bef` Python package against the C++ embedding API
(docs/performance.md, "Python"). Run by scripts/python-benchmarks.sh with
the installed wheel:

    python python_call_overhead.py --cpp EMBEDDING_CALL_OVERHEAD --bef CALL_OVERHEAD_BEF

Each round runs the C++ binary (a fresh process: its own warm-up, then
CALLS calls per case) and then the same cases from Python in this process,
so the two alternate through the machine's slow and fast minutes. Prints
the median ns per call of each side over the rounds, the spread (min-max)
and the difference (what Python adds per call).

Cases: `empty` (the empty function), `add` (i32 + i32), `tensor_1mb` (a
1 MiB float32 array in, the same tensor out as an array: no copy either
way, on either side).

Then, from Python only, parallel runs: `spin` (a tfrt.repeat.i32 loop of
200,000 iterations, ~1.5 ms) run 32 times by one thread, and 32 times by
each of 1..N threads at once (N = the number of cores); the speedup is
how many more runs per second the threads complete (the GIL is released
while a program runs, so up to N).
"""

import argparse
import os
import statistics
import subprocess
import threading
import time

import numpy as np

import bef

CASES = ["empty", "add", "tensor_1mb"]


def nanos_per_call(calls, call):
    for _ in range(calls // 10 + 1):  # warm-up
        call()
    start = time.perf_counter_ns()
    for _ in range(calls):
        call()
    return (time.perf_counter_ns() - start) / calls


def python_round(program, calls):
    array = np.ones((1 << 20) // 4, np.float32)
    run = program.run

    # No copy either way (checked once, outside the timed loop: .ctypes
    # costs more than the call).
    assert run("echo_tensor", array).ctypes.data == array.ctypes.data
    return {
        "empty": nanos_per_call(calls, lambda: run("empty")),
        "add": nanos_per_call(calls, lambda: run("add", 1, 2)),
        "tensor_1mb": nanos_per_call(calls, lambda: run("echo_tensor", array)),
    }


def parallel_speedup(program, threads, runs=32, iterations=200_000):
    """Runs per second of `threads` threads running `spin` at once, over
    one thread's."""
    for _ in range(5):
        program.run("spin", 1000)  # warm-up (the executor's inline path)

    def work():
        for _ in range(runs):
            program.run("spin", iterations)

    start = time.perf_counter()
    work()
    alone = time.perf_counter() - start
    workers = [threading.Thread(target=work) for _ in range(threads)]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    together = time.perf_counter() - start
    return threads * alone / together


def cpp_round(binary, bef_path, calls, work_queue):
    output = subprocess.run([binary, bef_path, str(calls), work_queue], check=True,
                            capture_output=True, text=True).stdout
    return {name: float(value) for name, value in (line.split() for line in output.splitlines())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpp", required=True, help="the embedding_call_overhead binary")
    parser.add_argument("--bef", required=True, help="call_overhead.bef")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=50000)
    parser.add_argument("--work_queue", default="mstd:2")
    options = parser.parse_args()

    program = bef.load(options.bef, work_queue=options.work_queue)
    cpp = {name: [] for name in CASES}
    python = {name: [] for name in CASES}
    for _ in range(options.rounds):
        for name, value in cpp_round(options.cpp, options.bef, options.calls,
                                     options.work_queue).items():
            cpp[name].append(value)
        for name, value in python_round(program, options.calls).items():
            python[name].append(value)

    def cell(values):
        return f"{statistics.median(values):,.0f} ({min(values):,.0f}-{max(values):,.0f})"

    print(f"{options.rounds} rounds x {options.calls} calls, work queue {options.work_queue}; "
          "ns per call, median (min-max)")
    print("| case | C++ embedding API | Python `program.run` | Python adds |")
    print("|---|---:|---:|---:|")
    for name in CASES:
        added = statistics.median(python[name]) - statistics.median(cpp[name])
        print(f"| {name} | {cell(cpp[name])} | {cell(python[name])} | {added:,.0f} |")

    cores = len(os.sched_getaffinity(0))
    speedups = [parallel_speedup(program, cores) for _ in range(options.rounds)]
    print()
    print(f"parallel runs of spin(200000) from {cores} Python threads: "
          f"{statistics.median(speedups):.2f}x one thread's runs per second "
          f"(min {min(speedups):.2f}, max {max(speedups):.2f}, {options.rounds} rounds)")


if __name__ == "__main__":
    main()
