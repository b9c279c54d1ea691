#!/usr/bin/env python3
"""The MLP served by bef_serve over HTTP binary tensors against the same
model run in-process from Python, in one sitting (issue #52's serving
target: the server at least 0.8x the in-process requests per second).

tests/onnx/Inputs/models.py's MLP 784-512-256-10 (random weights) becomes
a repository version with onnx-to-bef (batch 1). Each round:
  - in-process (`s` and `mstd:2`): `bef.load(...).run("main", x)` in a
    loop for SECONDS on one Python thread (no network, no serialisation):
    requests per second;
  - served: bef_serve (`mstd:2` with one and two I/O threads, `mstd:1`
    with two; it refuses `s`) on the repository driven by serving_load --mix=request with
    CLIENTS keep-alive connections, each POSTing the one binary-tensor
    request (the 784 floats after the JSON part) and checking each answer
    is a 200 with the 40 bytes of the output: requests per second. With CLIENTS=1 the server answers one
    request at a time, as the Python loop does; with more it may use
    both cores.
Prints per row the median over rounds, the spread, and the ratio to the
faster in-process row.

usage: python3 serve_model.py BEF_SERVE SERVING_LOAD [ROUNDS [SECONDS [CLIENTS,...]]]
  with a Python that has the bef wheel installed (docs/onnx.md), e.g.
  bazel build --config=opt //tools:bef_serve //benchmarks:serving_load //python:wheel
  /tmp/venv/bin/python benchmarks/compute/serve_model.py \\
      bazel-bin/tools/bef_serve bazel-bin/benchmarks/serving_load 3 5 1,8
"""
import json
import os
import re
import shutil
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

QUEUES = ("s", "mstd:2")  # in-process; bef_serve refuses `s` (docs/serving.md)
SERVED = (("mstd:2", 1), ("mstd:2", 2), ("mstd:1", 2))  # (--work_queue_type, --io_threads)


def in_process_rps(program_bytes, queue, x, seconds):
    program = bef.load(program_bytes, work_queue=queue)
    for _ in range(50):
        program.run("main", x)
    runs = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        for _ in range(100):
            program.run("main", x)
        runs += 100
        now = time.perf_counter()
        if now >= end:
            return runs / (now - start)


def served_rps(bef_serve, serving_load, repository, queue, io_threads, files, clients, seconds):
    # The server's log goes to a file read only if it fails to start (a pipe
    # nobody reads would block the server once full).
    log = tempfile.TemporaryFile(mode="w+")
    server = subprocess.Popen(
        [bef_serve, "--port=0", "--work_queue_type=" + queue, "--io_threads=%d" % io_threads,
         "--model_repository=" + repository],
        stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        line = server.stdout.readline()
        if "listening on http://127.0.0.1:" not in line:
            log.seek(0)
            raise RuntimeError("bef_serve did not start: %r %s" % (line, log.read()))
        port = int(line.rsplit(":", 1)[1])
        result = subprocess.run(
            [serving_load, "--target=127.0.0.1:%d" % port, "--mix=request", "--model=mlp",
             "--request_header=" + files["header"], "--request_data=" + files["data"],
             "--answer_bytes=%d" % files["answer_bytes"], "--clients=%d" % clients,
             "--seconds=%d" % seconds],
            capture_output=True, text=True, timeout=seconds + 60)
        match = re.search(r"(\d+) errors, (\d+) lost.*rps=(\d+)", result.stdout)
        if result.returncode != 0 or not match or match.group(1) != "0" or match.group(2) != "0":
            raise RuntimeError("serving_load failed: %s %s" % (result.stdout, result.stderr))
        return float(match.group(3))
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def main():
    bef_serve, serving_load = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    seconds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    client_counts = [int(c) for c in (sys.argv[5] if len(sys.argv) > 5 else "1,8").split(",")]
    scratch = tempfile.mkdtemp(prefix="bef_serve_model.")
    try:
        import onnx
        path = os.path.join(scratch, "mlp.onnx")
        onnx.save(models.MODELS["mlp"](), path)
        repository = os.path.join(scratch, "repository")
        bef.onnx_to_bef(path, repository=repository, name="mlp", batch=1)
        with open(os.path.join(repository, "mlp", "config.json")) as f:
            config = json.load(f)
        with open(os.path.join(repository, "mlp", "1", "model.bef"), "rb") as f:
            program_bytes = f.read()
        tensor_in, tensor_out = config["inputs"][0], config["outputs"][0]
        x = np.random.default_rng(1).standard_normal(tensor_in["shape"]).astype(np.float32)
        header = json.dumps({
            "inputs": [{"name": tensor_in["name"], "shape": tensor_in["shape"],
                        "datatype": "FP32", "parameters": {"binary_data_size": x.nbytes}}],
            "outputs": [{"name": tensor_out["name"], "parameters": {"binary_data": True}}]})
        files = {"header": os.path.join(scratch, "header.json"),
                 "data": os.path.join(scratch, "data.bin"),
                 "answer_bytes": 4 * int(np.prod(tensor_out["shape"]))}
        with open(files["header"], "w") as f:
            f.write(header)
        x.tofile(files["data"])
        # In-process rows (queue, None, None); served rows (queue,
        # io_threads, clients): the default queue with one and two I/O
        # threads, and one compute thread beside two I/O threads (the
        # server's two cores each running requests, none left to split).
        rows = [(queue, None, None) for queue in QUEUES] + [
            (queue, io_threads, clients)
            for queue, io_threads in SERVED for clients in client_counts]
        results = {row: [] for row in rows}
        for _ in range(rounds):
            for row in rows:
                if row[1] is None:
                    results[row].append(in_process_rps(program_bytes, row[0], x, seconds))
                else:
                    results[row].append(served_rps(bef_serve, serving_load, repository, row[0],
                                                   row[1], files, row[2], seconds))
        best = max(statistics.median(results[(queue, None, None)]) for queue in QUEUES)
        print("%-62s | %-22s | %s" % ("how", "requests/s (rounds)", "/ best in-process"))
        for row in rows:
            median = statistics.median(results[row])
            if row[1] is None:
                how = "in-process Python, %s" % row[0]
            else:
                how = "bef_serve HTTP binary, %s, --io_threads=%d, %d client%s" % (
                    row[0], row[1], row[2], "" if row[2] == 1 else "s")
            print("%-62s | %7.0f %6.0f-%-7.0f | %.2f" % (
                how, median, min(results[row]), max(results[row]), median / best))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
