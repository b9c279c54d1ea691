#!/usr/bin/env python3
"""Our eigen.* convolutions and f32 matrix products against oneDNN's own
call on the same shapes (issue #52: within 10%), as users run them: MLIR
text with the weights as dense attributes (a model's), converted by
mlir-to-bef and run by bef_executor on `s` (one thread, as the library's
own call in libraries.cc) and on `mstd:2` (the kernel split over both
threads).

Each shape's program runs its kernel in a tfrt.repeat loop, writing one
output allocated before the loop (a loop body's allocation has no operand,
so on `mstd:2` every iteration's would run at once, ahead of the kernels,
and each kernel would write fresh pages); the time of one
kernel is the difference between a run of LONG and a run of SHORT
iterations, divided by LONG - SHORT (start-up, the first call's code
generation and the filter's one reorder cancel). ROUNDS rounds, all shapes
and both queues interleaved in each, and in each round oneDNN's own call
on every shape (benchmarks/compute/libraries.cc, one thread, the median
of 3 calls); medians and ranges over the rounds, and our `s` median over
oneDNN's.

usage: kernels.py BIN_DIR [ROUNDS] [--no-library] [--only=PREFIX]
  --only=PREFIX runs the rows whose name starts with PREFIX ("gemm",
  "conv layer1").
  BIN_DIR holds tools/mlir-to-bef and tools/bef_executor (bazel-bin of an
  --config=opt build) and kernels/cpu/libbef_onednn.so.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (batch, size, in channels, kernel, stride, out channels), "same"
# padding, as libraries.cc's rows.
CONVS = {
    "conv1": (224, 3, 7, 2, 64),
    "layer1": (56, 64, 3, 1, 64),
    "layer2": (28, 128, 3, 1, 128),
    "layer3": (14, 256, 3, 1, 256),
    "layer4": (7, 512, 3, 1, 512),
    "layer2 down 1x1": (56, 64, 1, 2, 128),
}
# name: (m, k, n)
GEMMS = {
    "mlp1 b1": (1, 784, 512), "mlp2 b1": (1, 512, 256), "mlp3 b1": (1, 256, 10),
    "mlp1 b8": (8, 784, 512), "mlp2 b8": (8, 512, 256), "mlp3 b8": (8, 256, 10),
    "resnet fc b1": (1, 512, 1000), "resnet fc b8": (8, 512, 1000),
}


def dense(shape, seed):
    """A dense<"0x..."> f32 attribute of `shape` with values in [-0.5, 0.5)."""
    import random
    import struct
    generator = random.Random(seed)
    count = 1
    for d in shape:
        count *= d
    data = struct.pack("<%df" % count, *(generator.random() - 0.5 for _ in range(count)))
    return 'dense<"0x%s"> : tensor<%sxf32>' % (data.hex().upper(), "x".join(map(str, shape)))


def dims(shape):
    return "[" + ", ".join("%d : i64" % d for d in shape) + "]"


def program(kernel_lines, setup, carried, iterations):
    """func @bench: `setup` (which defines %ch, the chain after it), then
    `kernel_lines` in a repeat loop carrying that chain and the `carried`
    tensors."""
    names = ", ".join(["%ch"] + ["%" + c for c in carried])
    types = ", ".join(["!tfrt.chain"] + ["!tfrt_tensor.tensor"] * len(carried))
    return "\n".join([
        "func.func @bench() -> !tfrt.chain {",
        "  %ch0 = tfrt.new.chain",
        setup,
        "  %%n = tfrt.constant.i32 %d" % iterations,
        "  %%r:%d = tfrt.repeat.i32 %%n, %s : %s {" % (len(carried) + 1, names, types),
        kernel_lines,
        "    tfrt.return %%done, %s : %s" % (", ".join("%" + c for c in carried), types),
        "  }",
        "  tfrt.return %r#0 : !tfrt.chain",
        "}",
        ""])


def conv_program(batch, size, in_channels, kernel, stride, out_channels, iterations):
    out = (size + stride - 1) // stride
    setup = "\n".join([
        "  %%o = tfrt_dht.create_uninitialized_tensor.f32.4 %s" % dims([batch, out, out, out_channels]),
        "  %%x = tfrt_dht.create_uninitialized_tensor.f32.4 %s" % dims([batch, size, size, in_channels]),
        "  %ch = tfrt_dht.fill_tensor_with_constant.f32 %x, %ch0 0.5 : f32",
        '  %%f = "tfrt_test.const_dense_attr"() {value = %s} : () -> !tfrt_tensor.tensor' %
        dense([kernel, kernel, in_channels, out_channels], 7),
    ])
    body = "\n".join([
        '    %done = "eigen.conv2d.f32"(%x, %f, %o, %ch) {padding = "same", strides = '
        + "[%d : i64, %d : i64]}" % (stride, stride),
        "        : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain",
    ])
    return program(body, setup, ["x", "f", "o"], iterations)


def gemm_program(m, k, n, iterations):
    setup = "\n".join([
        "  %%a = tfrt_dht.create_uninitialized_tensor.f32.2 %s" % dims([m, k]),
        "  %ch = tfrt_dht.fill_tensor_with_constant.f32 %a, %ch0 0.5 : f32",
        '  %%b = "tfrt_test.const_dense_attr"() {value = %s} : () -> !tfrt_tensor.tensor' % dense([k, n], 8),
        "  %%c = tfrt_dht.create_uninitialized_tensor.f32.2 %s" % dims([m, n]),
    ])
    body = "\n".join([
        "    %one = tfrt.constant.f32 1.0",
        "    %zero = tfrt.constant.f32 0.0",
        '    %done = "eigen.matmul.f32"(%one, %a, %b, %zero, %c, %ch)',
        "        : (f32, !tfrt_tensor.tensor, !tfrt_tensor.tensor, f32, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain",
    ])
    return program(body, setup, ["a", "b", "c"], iterations)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    bin_dir = args[0]
    rounds = int(args[1]) if len(args) > 1 else 7
    mlir_to_bef = os.path.join(bin_dir, "tools", "mlir-to-bef")
    executor = os.path.join(bin_dir, "tools", "bef_executor")
    work = tempfile.mkdtemp(prefix="bef-compute.")

    cases = []  # (row name, flops per kernel, short bef, long bef, iterations short, long)
    for name, (size, ic, kernel, stride, oc) in CONVS.items():
        for batch in (1, 8):
            out = (size + stride - 1) // stride
            flops = 2.0 * batch * out * out * oc * kernel * kernel * ic
            long_count = max(6, min(200, int(4e10 / flops)))
            cases.append(("conv %s b%d" % (name, batch), flops,
                          lambda n, a=(batch, size, ic, kernel, stride, oc): conv_program(*a, n),
                          long_count))
    for name, (m, k, n) in GEMMS.items():
        flops = 2.0 * m * k * n
        cases.append(("gemm %s" % name, flops,
                      lambda count, a=(m, k, n): gemm_program(*a, count),
                      max(2000, min(200000, int(4e10 / flops)))))

    only = [a[len("--only="):] for a in sys.argv[1:] if a.startswith("--only=")]
    if only:
        cases = [case for case in cases if case[0].startswith(only[-1])]
    programs = []
    for name, flops, make, long_count in cases:
        short_count = max(1, long_count // 5)
        files = []
        for count in (short_count, long_count):
            base = os.path.join(work, re.sub(r"\W+", "_", name) + "_%d" % count)
            with open(base + ".mlir", "w") as f:
                f.write(make(count))
            subprocess.run([mlir_to_bef, base + ".mlir", "-o", base + ".bef"], check=True)
            files.append(base + ".bef")
        programs.append((name, flops, files, short_count, long_count))

    library = None
    if "--no-library" not in sys.argv:
        library = os.path.join(work, "libraries")
        subprocess.run(["bash", os.path.join(HERE, "run.sh")], check=True,
                       env=dict(os.environ, BUILD_ONLY=library))
    library_times = {}  # our row name -> [seconds]

    times = {}  # (name, queue) -> [seconds per kernel]
    for _ in range(rounds):
        if library:
            output = subprocess.run([library, "3"], check=True, capture_output=True, text=True,
                                    env=dict(os.environ, OMP_NUM_THREADS="1",
                                             OPENBLAS_NUM_THREADS="1")).stdout
            for line in output.splitlines():
                match = re.match(r"(gemm|conv)\s+(\d+)x\S+(?: k\d+s\d+ o\d+)? (.+?)\s+onednn\s+([\d.]+) us",
                                 line)
                if not match:
                    continue
                operation, batch, what, micros = match.groups()
                row = "%s %s" % (operation, what) if operation == "gemm" else \
                    "conv %s b%s" % (what, batch)
                library_times.setdefault(row, []).append(float(micros) * 1e-6)
        for name, flops, files, short_count, long_count in programs:
            for queue in ("s", "mstd:2"):
                elapsed = []
                for path in files:
                    start = time.perf_counter()
                    subprocess.run([executor, "--host_allocator_type=malloc",
                                    "--work_queue_type=" + queue, path],
                                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    elapsed.append(time.perf_counter() - start)
                per_kernel = (elapsed[1] - elapsed[0]) / (long_count - short_count)
                times.setdefault((name, queue), []).append(per_kernel)

    print("%-26s %-8s %10s %18s %8s %11s" % ("kernel", "queue", "median us", "range us",
                                               "GFLOPS", "/ oneDNN"))
    for name, flops, _, _, _ in programs:
        rows = [("s", times[(name, "s")]), ("mstd:2", times[(name, "mstd:2")])]
        if name in library_times:
            rows.append(("oneDNN", library_times[name]))
        reference = statistics.median(library_times[name]) if name in library_times else None
        for queue, values in rows:
            median = statistics.median(values)
            ratio = "%.2fx" % (median / reference) if reference and queue == "s" else ""
            print("%-26s %-8s %10.1f %8.1f-%-9.1f %8.1f %11s" % (
                name, queue, median * 1e6, min(values) * 1e6, max(values) * 1e6,
                flops / median / 1e9 if median > 0 else float("nan"), ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main())
