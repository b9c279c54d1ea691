#!/usr/bin/env python3
"""The converter rows of docs/performance.md: mlir-to-bef as users run it
(the whole process: start-up, reading, parsing, converting, writing) on one
function of N dependent tfrt.add.i32 (plus two constants), N = 1,000,
100,000 and 1,000,000; ROUNDS rounds with the sizes and tools interleaved.
Prints per size the median wall time and peak resident memory (the child's
rusage) with their ranges.

Next to each, the references of the same sitting (this VM's speed varies up
to 2x between minutes):
  * MLIR's parse alone: mlir-to-bef on the same text plus a declaration it
    refuses once MLIR has parsed and verified the module
    (`func.func private @refused()`, "external functions are not
    allowed"), so that process reads, parses, verifies and stops;
  * bef-opt: MLIR's parse, verify and print, nothing of ours;
  * REFERENCE (optional): another translator's command line, run as
    `REFERENCE SOURCE -o OUTPUT` -- TFRT's `tfrt_translate --mlir-to-bef`
    where one has it, or an older mlir-to-bef.

usage: converter_rows.py MLIR_TO_BEF BEF_OPT WORK_DIR [ROUNDS] [REFERENCE]
"""
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

SIZES = [1_000, 100_000, 1_000_000]


def chain(n):
    lines = ["func.func @chain() -> i32 {",
             "  %a = tfrt.constant.i32 1",
             "  %b = tfrt.constant.i32 2",
             "  %v0 = tfrt.add.i32 %a, %b"]
    lines += ["  %%v%d = tfrt.add.i32 %%v%d, %%b" % (i, i - 1) for i in range(1, n)]
    lines += ["  tfrt.return %%v%d : i32" % (n - 1), "}", ""]
    return "\n".join(lines)


def measure(command, expect_success=True):
    """(wall seconds, peak RSS MiB) of one process. The peak comes from GNU
    time, which starts it: a child of this script (forked or spawned) would
    inherit this script's own high-water mark."""
    with tempfile.NamedTemporaryFile() as report:
        start = time.monotonic()
        result = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name] + command,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.monotonic() - start
        peak_kib = int(open(report.name).read().split()[-1])
    # GNU time reports a child's failure on its first line of the report.
    if (result.returncode == 0) != expect_success:
        sys.exit("unexpected %s of %s:\n%s" % (
            "failure" if expect_success else "success", shlex.join(command),
            result.stderr.decode(errors="replace")[-2000:]))
    return wall, peak_kib / 1024.0


def main():
    tool, bef_opt, work = sys.argv[1], sys.argv[2], sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    reference = shlex.split(sys.argv[5]) if len(sys.argv) > 5 else None
    os.makedirs(work, exist_ok=True)
    sources, parse_only = {}, {}
    for n in SIZES:
        sources[n] = os.path.join(work, "chain_%d.mlir" % n)
        parse_only[n] = os.path.join(work, "chain_%d_refused.mlir" % n)
        text = chain(n)
        with open(sources[n], "w") as f:
            f.write(text)
        with open(parse_only[n], "w") as f:
            f.write(text + "func.func private @refused()\n")
    # One output per size: truncating a large output of the round before
    # would be timed with the next small one.
    outputs = {n: os.path.join(work, "out_%d.bef" % n) for n in SIZES}
    tools = {
        "ours": lambda n: measure([tool, sources[n], "-o", outputs[n]]),
        "parse": lambda n: measure([tool, parse_only[n], "-o", os.path.join(work, "refused.bef")],
                                   expect_success=False),
        "bef-opt": lambda n: measure([bef_opt, sources[n], "-o", "/dev/null"]),
    }
    if reference:
        def run_reference(n):
            reference_output = os.path.join(work, "reference_%d.bef" % n)
            result = measure(reference + [sources[n], "-o", reference_output])
            with open(outputs[n], "rb") as a, open(reference_output, "rb") as b:
                if a.read() != b.read():
                    sys.exit("the reference's bytes differ from mlir-to-bef's at N = %d" % n)
            return result
        tools["reference"] = run_reference
    runs = {(n, t): [] for n in SIZES for t in tools}
    for _ in range(rounds):
        for n in SIZES:
            for name, run in tools.items():
                runs[(n, name)].append(run(n))

    def cell(values, digits):
        return "{:.{d}f} ({:.{d}f}-{:.{d}f})".format(
            statistics.median(values), min(values), max(values), d=digits)

    headers = ["mlir-to-bef", "MLIR's parse alone", "bef-opt (MLIR alone)"]
    if reference:
        headers.append("reference")
    print("| one function of N dependent adds | " +
          " | ".join("%s wall, s | %s peak RSS, MiB" % (h, h) for h in headers) + " |")
    print("|---|" + "---|---|" * len(headers))
    for n in SIZES:
        cells = []
        for name in tools:
            values = runs[(n, name)]
            cells += [cell([w for w, _ in values], 2), cell([m for _, m in values], 0)]
        print("| N = {:,} | {} |".format(n, " | ".join(cells)))
    if reference:
        print()
        print("mlir-to-bef / reference, medians: " + ", ".join(
            "N = {:,}: wall {:.2f}x, peak RSS {:.2f}x".format(
                n,
                statistics.median(w for w, _ in runs[(n, "ours")]) /
                statistics.median(w for w, _ in runs[(n, "reference")]),
                statistics.median(m for _, m in runs[(n, "ours")]) /
                statistics.median(m for _, m in runs[(n, "reference")]))
            for n in SIZES))
    print()
    print("%d rounds, sizes and tools interleaved: median (range)." % rounds)


if __name__ == "__main__":
    main()
