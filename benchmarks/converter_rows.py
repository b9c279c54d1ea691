#!/usr/bin/env python3
"""The converter rows of docs/performance.md: mlir-to-bef as users run it
(the whole process: start-up, reading, parsing, converting, writing) on one
function of N dependent tfrt.add.i32 (plus two constants), N = 1,000,
100,000 and 1,000,000; ROUNDS rounds with the sizes interleaved. Prints per
size the median wall time and peak resident memory (GNU time's %e and %M)
with their ranges.

Next to each, bef-opt on the same file (MLIR's parse, verify and print,
nothing of ours), the reference of the same sitting: this VM's speed for
MLIR varied 4x between days.

usage: converter_rows.py MLIR_TO_BEF BEF_OPT WORK_DIR [ROUNDS]
"""
import os
import statistics
import subprocess
import sys

SIZES = [1_000, 100_000, 1_000_000]


def chain(n):
    lines = ["func.func @chain() -> i32 {",
             "  %a = tfrt.constant.i32 1",
             "  %b = tfrt.constant.i32 2",
             "  %v0 = tfrt.add.i32 %a, %b"]
    lines += ["  %%v%d = tfrt.add.i32 %%v%d, %%b" % (i, i - 1) for i in range(1, n)]
    lines += ["  tfrt.return %%v%d : i32" % (n - 1), "}", ""]
    return "\n".join(lines)


def measure(tool, source, output):
    result = subprocess.run(["/usr/bin/time", "-f", "%e %M", tool, source, "-o", output],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            check=True)
    seconds, kib = result.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kib) / 1024.0


def main():
    tool, bef_opt, work = sys.argv[1], sys.argv[2], sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    os.makedirs(work, exist_ok=True)
    sources = {}
    for n in SIZES:
        sources[n] = os.path.join(work, "chain_%d.mlir" % n)
        with open(sources[n], "w") as f:
            f.write(chain(n))
    runs = {(n, t): [] for n in SIZES for t in ("ours", "mlir")}
    for _ in range(rounds):
        for n in SIZES:
            runs[(n, "ours")].append(measure(tool, sources[n], os.path.join(work, "out.bef")))
            runs[(n, "mlir")].append(measure(bef_opt, sources[n], "/dev/null"))

    def cell(values, digits):
        return "{:.{d}f} ({:.{d}f}-{:.{d}f})".format(
            statistics.median(values), min(values), max(values), d=digits)

    print("| one function of N dependent adds | mlir-to-bef wall, s | mlir-to-bef peak RSS, MiB "
          "| bef-opt (MLIR alone) wall, s | bef-opt peak RSS, MiB |")
    print("|---|---|---|---|---|")
    for n in SIZES:
        ours, mlir = runs[(n, "ours")], runs[(n, "mlir")]
        print("| N = {:,} | {} | {} | {} | {} |".format(
            n, cell([w for w, _ in ours], 2), cell([m for _, m in ours], 0),
            cell([w for w, _ in mlir], 2), cell([m for _, m in mlir], 0)))
    print()
    print("%d rounds, sizes and tools interleaved: median (range). TFRT's translator "
          "(performance issue): about 107 MiB at N = 100,000, wall time 1 / 1.1 of ours "
          "in its sitting." % rounds)


if __name__ == "__main__":
    main()
