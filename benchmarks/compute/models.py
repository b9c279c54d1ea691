#!/usr/bin/env python3
"""ONNX models converted by onnx-to-bef and run by the `bef` Python package,
against ONNX Runtime 1.30 (npm onnxruntime-node, CPU) on the same inputs,
in one sitting (issue #52's model targets).

Models: tests/onnx/Inputs/models.py's MLP 784-512-256-10 and ResNet-18-shaped
CNN at 224x224 (random weights), batch 1 and 8. Each row pairs our work
queue with ONNX Runtime's intra-op thread count: `s` with 1 thread,
`mstd:2` with 2. ROUNDS rounds; in each, every row runs ours then ONNX
Runtime, RUNS timed calls each after 3 warm-up calls (ours: the wall time
of program.run; ONNX Runtime: of session.run in node, measured in the
script). Prints per row the medians over all timed calls, the spread of
the round medians, and ours / ONNX Runtime.

usage: python3 models.py [ROUNDS [MLP_RUNS [CNN_RUNS]]]
  with a Python that has the bef wheel installed (scripts/python.sh builds
  it; docs/onnx.md), python3-onnx, node and /opt/onnxruntime-node.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "onnx", "Inputs"))
import models  # noqa: E402

import bef  # noqa: E402
from bef import onnx_converter  # noqa: E402

RUN_ONNXRUNTIME = os.path.join(ROOT, "tests", "onnx", "Inputs", "run_onnxruntime.js")
ROWS = [(name, batch, queue, threads)
        for name in ("mlp", "resnet18") for batch in (1, 8)
        for queue, threads in (("s", 1), ("mstd:2", 2))]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    mlp_runs = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    cnn_runs = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    scratch = tempfile.mkdtemp(prefix="bef_models.")
    import onnx
    paths, programs, inputs = {}, {}, {}
    for name in ("mlp", "resnet18"):
        paths[name] = os.path.join(scratch, name + ".onnx")
        onnx.save(models.MODELS[name](), paths[name])
        for batch in (1, 8):
            text, config = onnx_converter.convert(paths[name], batch=batch)
            programs[name, batch] = bef.mlir_to_bef(text)
            x = np.random.default_rng(batch).standard_normal(
                config["inputs"][0]["shape"]).astype(np.float32)
            inputs[name, batch] = x
            x.tofile(os.path.join(scratch, "%s_%d.f32" % (name, batch)))
    times = {row: ([], []) for row in ROWS}
    rounds_of = {row: ([], []) for row in ROWS}
    for _ in range(rounds):
        for row in ROWS:
            name, batch, queue, threads = row
            runs = mlp_runs if name == "mlp" else cnn_runs
            program = bef.load(programs[name, batch], work_queue=queue)
            x = inputs[name, batch]
            for _ in range(3):
                program.run("main", x)
            ours = []
            for _ in range(runs):
                start = time.perf_counter()
                program.run("main", x)
                ours.append(time.perf_counter() - start)
            del program
            result = subprocess.run(
                ["node", RUN_ONNXRUNTIME, paths[name],
                 os.path.join(scratch, "%s_%d.f32" % (name, batch)), ",".join(map(str, x.shape)),
                 os.path.join(scratch, "out.f32"), str(threads), str(runs + 3)],
                check=True, capture_output=True, text=True)
            theirs = json.loads(result.stdout)["seconds"][3:]
            times[row][0].extend(ours)
            times[row][1].extend(theirs)
            rounds_of[row][0].append(statistics.median(ours))
            rounds_of[row][1].append(statistics.median(theirs))
    print("%-9s %5s %-7s %8s | %-19s | %-19s | %s" % (
        "model", "batch", "ours", "ORT thr", "ours ms (rounds)", "ORT ms (rounds)", "ours/ORT"))
    for row in ROWS:
        name, batch, queue, threads = row
        ours, theirs = (statistics.median(t) * 1e3 for t in times[row])
        spread = ["%.3g-%.3g" % (min(r) * 1e3, max(r) * 1e3) for r in rounds_of[row]]
        print("%-9s %5d %-7s %8d | %7.3f %-11s | %7.3f %-11s | %.2f" % (
            name, batch, queue, threads, ours, spread[0], theirs, spread[1], ours / theirs))


if __name__ == "__main__":
    main()
