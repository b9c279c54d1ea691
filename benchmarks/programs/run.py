#!/usr/bin/env python3
"""The program benchmark table (docs/performance.md): each program of
generate.py written as MLIR text, converted by mlir-to-bef and run by
bef_executor on `s` and on `mstd:2`, ROUNDS times with the two queues and
all programs interleaved in every round (this VM's speed varies between
minutes). Prints per work item the median over rounds and the range, next
to TFRT's fastest time seen on this machine class and the ceiling the
performance issue sets (10x faster than TFRT for synchronous programs, 4x on
`s` and 3x on `mstd:2` for the asynchronous ones).

usage: run.py BIN_DIR WORK_DIR [ROUNDS] [--scale=F]
  BIN_DIR holds tools/mlir-to-bef and tools/bef_executor (bazel-bin).
"""
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# program: (what, unit, TFRT fastest seen s / mstd:2 in ns, ceiling s / mstd:2)
ROWS = {
    "chain": ("chain of 100,000 dependent tfrt.add.i32", "ns per add", (36, 36), (3.6, 3.6)),
    "wide": ("wide: 100,000 independent adds + reduction tree", "ns per add", (112, 112), (11.2, 11.2)),
    "repeat": ("tfrt.repeat.i32, 1,000,000 iterations", "ns per iteration", (196, 196), (19.6, 19.6)),
    "merge_mix": ("adds interleaved with tfrt.merge.chains of their results", "ns per kernel", (48, 48), (4.8, 4.8)),
    "call": ("tfrt.call of a one-add function in a repeat loop", "ns per iteration", (344, 344), (34, 34)),
    "if": ("tfrt.if in a repeat loop", "ns per iteration", (501, 501), (50, 50)),
    "while": ("tfrt.while with a body function", "ns per iteration", (315, 315), (32, 32)),
    "chain_one_async": ("the 100,000-add chain with one async_add.i32 in the middle", "ns per kernel", (36, 36), (3.7, 3.7)),
    "chain_fallible": ("the 100,000-add chain with a tfrt.div.i32 every 100th kernel", "ns per kernel", (37, 37), (3.7, 3.7)),
    "tensor_chain": ("10,000 tfrt_dht.tensor_equal.i32 (16 elements) threaded by chains", "ns per kernel", (66, 70), (16.5, 17.5)),
    "async_chain": ("chain of 10,000 tfrt_test.async_add.i32", "ns per kernel", (129, 243), (32, 81)),
    "async_fanout": ("10,000 independent async_add.i32 + add reduction", "ns per kernel", (146, 146), (37, 49)),
    # Kernels as TFRT writes them (no entry point of their own).
    "copy2_chain": ("chain of 10,000 tfrt_test.async_copy_2.i32 (a Result<> a task fills)", "ns per kernel", (128, 243), (32, 81)),
    "copy2_fanout": ("10,000 independent async_copy_2.i32 + add reduction", "ns per kernel", (146, 146), (37, 49)),
    "fill_chain": ("10,000 tfrt_dht.fill_tensor_with_constant.i32 (16 elements, in place) on a chain", "ns per kernel", (44, 76), (11, 19)),
    # Kernels the benchmark registers (benchmarks/author_kernels.cc).
    "author_tensor_chain": ("10,000 of a user's tensor kernel (Argument<DenseHostTensor>, Result<>s) on a chain", "ns per kernel", (66, 70), (16.5, 17.5)),
    "author_async_chain": ("chain of 10,000 of a user's EnqueueWork async kernel", "ns per kernel", (128, 243), (32, 81)),
    "author_async_fanout": ("10,000 independent calls of a user's EnqueueWork async kernel + add reduction", "ns per kernel", (146, 146), (37, 49)),
}
QUEUES = ["s", "mstd:2"]


def main():
    bin_dir, work = sys.argv[1], sys.argv[2]
    rounds = 5
    extra = []
    for argument in sys.argv[3:]:
        if argument.startswith("--"):
            extra.append(argument)
        else:
            rounds = int(argument)
    listing = subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), work] + extra,
                             check=True, capture_output=True, text=True).stdout
    programs = []
    for line in listing.splitlines():
        name, path, units, executor = line.split()
        bef = path[:-len(".mlir")] + ".bef"
        subprocess.run([os.path.join(bin_dir, "tools/mlir-to-bef"), path, "-o", bef], check=True)
        programs.append((name, bef, int(units), executor))
    times = {(name, queue): [] for name, _, _, _ in programs for queue in QUEUES}
    for _ in range(rounds):
        for name, bef, units, executor in programs:
            for queue in QUEUES:
                run = subprocess.run(
                    [os.path.join(bin_dir, executor), "--host_allocator_type=malloc",
                     "--work_queue_type=" + queue, bef],
                    check=True, capture_output=True, text=True)
                out = run.stdout
                # An error logged (say, mstd without its oneTBB arena plugin,
                # falling back to its blocking threads) is not the run users
                # get: no number from it.
                logged = re.search(r"^E \d{4}-.*$", run.stderr, re.M)
                if logged:
                    sys.exit("%s on %s logged an error:\n%s" % (name, queue, logged.group(0)))
                match = re.search(r"^BM:%s:Time 50%%\(ns\): (\d+)$" % re.escape(name), out, re.M)
                if not match:
                    sys.exit("no benchmark line for %s on %s:\n%s" % (name, queue, out))
                times[(name, queue)].append(int(match.group(1)) / units)
    print("| program | unit | TFRT fastest, s / mstd:2 | ceiling, s / mstd:2 | "
          "ours, s: median (range) | ours, mstd:2: median (range) | ceilings met |")
    print("|---|---|---|---|---|---|---|")
    met = 0
    slower_on_two = []
    for name, _, _, _ in programs:
        what, unit, tfrt, ceiling = ROWS[name]
        cells = []
        for queue in QUEUES:
            values = times[(name, queue)]
            cells.append("%.2f (%.2f-%.2f)" % (statistics.median(values), min(values), max(values)))
        medians = [statistics.median(times[(name, queue)]) for queue in QUEUES]
        within = all(m <= c for m, c in zip(medians, ceiling))
        met += within
        # Two threads are no excuse: mstd:2 within 10% of s.
        if medians[1] > 1.1 * medians[0]:
            slower_on_two.append(name)
        cells.append("yes" if within else "**no**")
        print("| %s | %s | %s / %s | %s / %s | %s | %s | %s |" %
              (what, unit, tfrt[0], tfrt[1], ceiling[0], ceiling[1], cells[0], cells[1], cells[2]))
    print("\n%d rounds; each cell is the p50 of tfrt_test.benchmark's 20 runs, per work item."
          % rounds)
    print("%d of %d rows meet both ceilings at the median." % (met, len(programs)))
    print("more than 10%% slower on mstd:2 than on s: %s" % (", ".join(slower_on_two) or "none"))


if __name__ == "__main__":
    main()
