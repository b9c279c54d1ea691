#!/usr/bin/env python3
"""Writes the program benchmarks as MLIR text, the way users write host
programs; scripts/benchmarks.sh converts each with mlir-to-bef and runs it
with bef_executor (docs/performance.md). Each program is one function whose
body is a `tfrt_test.benchmark` region (20 measured runs after 3 warm-up
runs; the op prints `BM:NAME:Time 50%(ns): N`).

usage: generate.py OUTPUT_DIR [--scale=F]   (F < 1 shrinks every program)
Prints one line per program: NAME FILE.mlir UNITS EXECUTOR (the work items
its time is divided by; the executor binary under bazel-bin that runs it).
"""
import os
import sys

RUNS = "duration_secs = 100, max_count = 20, num_warmup_runs = 3"


def benchmark(name, body, helpers="", arguments="%x : i32", setup="  %x = tfrt.constant.i32 0\n"):
    return (helpers +
            "func.func @%s() -> !tfrt.chain {\n" % name + setup +
            '  %%r = tfrt_test.benchmark "%s"(%s) %s {\n' % (name, arguments, RUNS) +
            body +
            "  }\n  tfrt.return %r : !tfrt.chain\n}\n")


def chain(n):
    lines = ["    %one = tfrt.constant.i32 1", "    %v0 = tfrt.add.i32 %x, %one"]
    lines += ["    %%v%d = tfrt.add.i32 %%v%d, %%one" % (i + 1, i) for i in range(n - 1)]
    lines.append("    tfrt.return %%v%d : i32" % (n - 1))
    return benchmark("chain", "\n".join(lines) + "\n"), n


def reduction(lines, values, op="tfrt.add.i32"):
    """Adds `values` pairwise to one; returns the name of the sum."""
    counter = [0]
    while len(values) > 1:
        nxt = []
        for i in range(0, len(values) - 1, 2):
            name = "%%s%d" % len(lines)
            lines.append("    %s = %s %s, %s" % (name, op, values[i], values[i + 1]))
            nxt.append(name)
        if len(values) % 2:
            nxt.append(values[-1])
        values = nxt
    return values[0]


def wide(n):
    lines = ["    %one = tfrt.constant.i32 1"]
    values = []
    for i in range(n):
        lines.append("    %%w%d = tfrt.add.i32 %%x, %%one" % i)
        values.append("%%w%d" % i)
    total = reduction(lines, values)
    lines.append("    tfrt.return %s : i32" % total)
    return benchmark("wide", "\n".join(lines) + "\n"), 2 * n - 1


def repeat(n):
    body = ("    %%n = tfrt.constant.i32 %d\n" % n +
            "    %r = tfrt.repeat.i32 %n, %x : i32 {\n"
            "      %one = tfrt.constant.i32 1\n"
            "      %y = tfrt.add.i32 %x, %one\n"
            "      tfrt.return %y : i32\n"
            "    }\n"
            "    tfrt.return %r : i32\n")
    return benchmark("repeat", body), n


def async_chain(n):
    lines = ["    %one = tfrt.constant.i32 1",
             '    %v0 = "tfrt_test.async_add.i32"(%x, %one) : (i32, i32) -> i32']
    lines += ['    %%v%d = "tfrt_test.async_add.i32"(%%v%d, %%one) : (i32, i32) -> i32' % (i + 1, i)
              for i in range(n - 1)]
    lines.append("    tfrt.return %%v%d : i32" % (n - 1))
    return benchmark("async_chain", "\n".join(lines) + "\n"), n


def async_fanout(n):
    lines = ["    %one = tfrt.constant.i32 1"]
    values = []
    for i in range(n):
        lines.append('    %%a%d = "tfrt_test.async_add.i32"(%%x, %%one) : (i32, i32) -> i32' % i)
        values.append("%%a%d" % i)
    total = reduction(lines, values)
    lines.append("    tfrt.return %s : i32" % total)
    return benchmark("async_fanout", "\n".join(lines) + "\n"), n


def chain_one_async(n):
    """The chain with one tfrt_test.async_add.i32 in the middle."""
    lines = ["    %one = tfrt.constant.i32 1", "    %v0 = tfrt.add.i32 %x, %one"]
    for i in range(n - 1):
        if i == n // 2:
            lines.append('    %%v%d = "tfrt_test.async_add.i32"(%%v%d, %%one) : (i32, i32) -> i32'
                         % (i + 1, i))
        else:
            lines.append("    %%v%d = tfrt.add.i32 %%v%d, %%one" % (i + 1, i))
    lines.append("    tfrt.return %%v%d : i32" % (n - 1))
    return benchmark("chain_one_async", "\n".join(lines) + "\n"), n


def chain_fallible(n):
    """The chain with a tfrt.div.i32 (a kernel that can fail) every 100th."""
    lines = ["    %one = tfrt.constant.i32 1", "    %v0 = tfrt.add.i32 %x, %one"]
    for i in range(n - 1):
        if i % 100 == 50:
            lines.append("    %%v%d, %%rem%d = tfrt.div.i32 %%v%d, %%one" % (i + 1, i + 1, i))
        else:
            lines.append("    %%v%d = tfrt.add.i32 %%v%d, %%one" % (i + 1, i))
    lines.append("    tfrt.return %%v%d : i32" % (n - 1))
    return benchmark("chain_fallible", "\n".join(lines) + "\n"), n


def tensor_chain(n):
    """tfrt_dht.tensor_equal.i32 of a 16-element tensor, threaded by chains."""
    setup = ("  %c0 = tfrt.new.chain\n"
             '  %t = "tfrt_dht.create_uninitialized_tensor.i32.1"() {shape = [16 : i64]}'
             " : () -> !tfrt_tensor.tensor\n"
             '  %c1 = "tfrt_dht.fill_tensor_with_constant.i32"(%t, %c0) {value = 7 : i32}'
             " : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain\n")
    lines = []
    chain_name = "%c1"
    for i in range(n):
        lines.append('    %%e%d, %%k%d = "tfrt_dht.tensor_equal.i32"(%%t, %%t, %s)'
                     " : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain)"
                     " -> (i1, !tfrt.chain)" % (i, i, chain_name))
        chain_name = "%%k%d" % i
    lines.append("    tfrt.return %s : !tfrt.chain" % chain_name)
    return benchmark("tensor_chain", "\n".join(lines) + "\n", arguments="%t : !tfrt_tensor.tensor, %c1 : !tfrt.chain",
                     setup=setup), n


def merge_mix(n):
    lines = ["    %one = tfrt.constant.i32 1", "    %c0 = tfrt.new.chain",
             "    %v0 = tfrt.add.i32 %x, %one"]
    for i in range(n - 1):
        lines.append("    %%v%d = tfrt.add.i32 %%v%d, %%one" % (i + 1, i))
        lines.append("    %%c%d = tfrt.merge.chains %%c%d, %%v%d : !tfrt.chain, i32" % (i + 1, i, i + 1))
    lines.append("    tfrt.return %%c%d : !tfrt.chain" % (n - 1))
    return benchmark("merge_mix", "\n".join(lines) + "\n"), 2 * n


def call(n):
    helper = ("func.func @add_one(%x: i32) -> i32 {\n"
              "  %one = tfrt.constant.i32 1\n"
              "  %y = tfrt.add.i32 %x, %one\n"
              "  tfrt.return %y : i32\n}\n\n")
    body = ("    %%n = tfrt.constant.i32 %d\n" % n +
            "    %r = tfrt.repeat.i32 %n, %x : i32 {\n"
            "      %y = tfrt.call @add_one(%x) : (i32) -> i32\n"
            "      tfrt.return %y : i32\n"
            "    }\n"
            "    tfrt.return %r : i32\n")
    return benchmark("call", body, helpers=helper), n


def if_(n):
    body = ("    %%n = tfrt.constant.i32 %d\n" % n +
            "    %r = tfrt.repeat.i32 %n, %x : i32 {\n"
            "      %t = tfrt.constant.i1 true\n"
            "      %y = tfrt.if %t, %x : (i32) -> (i32) {\n"
            "        %one = tfrt.constant.i32 1\n"
            "        %z = tfrt.add.i32 %x, %one\n"
            "        tfrt.return %z : i32\n"
            "      } else {\n"
            "        tfrt.return %x : i32\n"
            "      }\n"
            "      tfrt.return %y : i32\n"
            "    }\n"
            "    tfrt.return %r : i32\n")
    return benchmark("if", body), n


def while_(n):
    helper = ("func.func @step(%i: i32, %last: i32) -> (i32, i32, i1) {\n"
              "  %one = tfrt.constant.i32 1\n"
              "  %next = tfrt.add.i32 %i, %one\n"
              '  %more = "tfrt.lessequal.i32"(%next, %last) : (i32, i32) -> i1\n'
              "  tfrt.return %next, %last, %more : i32, i32, i1\n}\n\n")
    body = ("    %%last = tfrt.constant.i32 %d\n" % (n - 1) +
            "    %t = tfrt.constant.i1 true\n"
            "    %i, %l = tfrt.while %t @step(%x, %last) parallel_iterations(1) : (i32, i32) -> (i32, i32)\n"
            "    tfrt.return %i : i32\n")
    return benchmark("while", body, helpers=helper), n


def async_kernel_chain(name, kernel, n, operands="%%v%d, %%one", types="(i32, i32)"):
    """A chain of `n` of an async kernel with i32 results (one or two operands)."""
    lines = ["    %one = tfrt.constant.i32 1", "    %v0 = tfrt.add.i32 %x, %one"]
    for i in range(n):
        lines.append('    %%v%d = "%s"(%s) : %s -> i32' % (i + 1, kernel, operands % i, types))
    lines.append("    tfrt.return %%v%d : i32" % n)
    return benchmark(name, "\n".join(lines) + "\n"), n


def async_kernel_fanout(name, kernel, n, operands="%x, %one", types="(i32, i32)"):
    """`n` independent calls of an async kernel, their results summed by a tree of adds."""
    lines = ["    %one = tfrt.constant.i32 1"]
    values = []
    for i in range(n):
        lines.append('    %%a%d = "%s"(%s) : %s -> i32' % (i, kernel, operands, types))
        values.append("%%a%d" % i)
    total = reduction(lines, values)
    lines.append("    tfrt.return %s : i32" % total)
    return benchmark(name, "\n".join(lines) + "\n"), n


def copy2_chain(n):
    """TFRT's async_copy_2.i32 (a Result<> a work-queue task fills), chained."""
    return async_kernel_chain("copy2_chain", "tfrt_test.async_copy_2.i32", n,
                              operands="%%v%d", types="(i32)")


def copy2_fanout(n):
    return async_kernel_fanout("copy2_fanout", "tfrt_test.async_copy_2.i32", n,
                               operands="%x", types="(i32)")


TENSOR_SETUP = ("  %c0 = tfrt.new.chain\n"
                '  %t = "tfrt_dht.create_uninitialized_tensor.i32.1"() {shape = [16 : i64]}'
                " : () -> !tfrt_tensor.tensor\n"
                '  %c1 = "tfrt_dht.fill_tensor_with_constant.i32"(%t, %c0) {value = 7 : i32}'
                " : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain\n")


def fill_chain(n):
    """tfrt_dht.fill_tensor_with_constant.i32 of a 16-element tensor, in place, on a chain."""
    lines = []
    chain_name = "%c1"
    for i in range(n):
        lines.append('    %%k%d = "tfrt_dht.fill_tensor_with_constant.i32"(%%t, %s) {value = %d : i32}'
                     " : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain" % (i, chain_name, i % 100))
        chain_name = "%%k%d" % i
    lines.append("    tfrt.return %s : !tfrt.chain" % chain_name)
    return benchmark("fill_chain", "\n".join(lines) + "\n",
                     arguments="%t : !tfrt_tensor.tensor, %c1 : !tfrt.chain", setup=TENSOR_SETUP), n


# Kernels the benchmark registers itself (benchmarks/author_kernels.cc),
# written as a user of the kernel API writes them; run by
# benchmarks:bef_executor_with_author_kernels (bef_executor with them linked).
AUTHOR_EXECUTOR = "benchmarks/bef_executor_with_author_kernels"


def author_tensor_chain(n):
    """bench.tensor_sum.i32: a tensor by Argument<>, Result<>s filled before it returns."""
    lines = []
    chain_name = "%c1"
    for i in range(n):
        lines.append('    %%s%d, %%k%d = "bench.tensor_sum.i32"(%%t, %s)'
                     " : (!tfrt_tensor.tensor, !tfrt.chain) -> (i32, !tfrt.chain)"
                     % (i, i, chain_name))
        chain_name = "%%k%d" % i
    lines.append("    tfrt.return %s : !tfrt.chain" % chain_name)
    return benchmark("author_tensor_chain", "\n".join(lines) + "\n",
                     arguments="%t : !tfrt_tensor.tensor, %c1 : !tfrt.chain", setup=TENSOR_SETUP), n


def author_async_chain(n):
    """bench.async_add.i32: returns EnqueueWork(context, ...), chained."""
    return async_kernel_chain("author_async_chain", "bench.async_add.i32", n)


def author_async_fanout(n):
    return async_kernel_fanout("author_async_fanout", "bench.async_add.i32", n)


PROGRAMS = [
    ("chain", chain, 100000),
    ("wide", wide, 100000),
    ("repeat", repeat, 1000000),
    ("async_chain", async_chain, 10000),
    ("async_fanout", async_fanout, 10000),
    ("chain_one_async", chain_one_async, 100000),
    ("chain_fallible", chain_fallible, 100000),
    ("tensor_chain", tensor_chain, 10000),
    ("merge_mix", merge_mix, 50000),
    ("call", call, 100000),
    ("if", if_, 100000),
    ("while", while_, 100000),
    ("copy2_chain", copy2_chain, 10000),
    ("copy2_fanout", copy2_fanout, 10000),
    ("fill_chain", fill_chain, 10000),
    ("author_tensor_chain", author_tensor_chain, 10000, AUTHOR_EXECUTOR),
    ("author_async_chain", author_async_chain, 10000, AUTHOR_EXECUTOR),
    ("author_async_fanout", author_async_fanout, 10000, AUTHOR_EXECUTOR),
]


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        # An option where the output directory goes (--help included) would
        # otherwise become a directory full of programs.
        sys.exit("usage: generate.py OUTPUT_DIR [--scale=F]")
    out = sys.argv[1]
    scale = 1.0
    for argument in sys.argv[2:]:
        if argument.startswith("--scale="):
            scale = float(argument.split("=", 1)[1])
        else:
            sys.exit("generate.py: unknown option %r; usage: generate.py OUTPUT_DIR [--scale=F]"
                     % argument)
    os.makedirs(out, exist_ok=True)
    for name, make, size, *executor in PROGRAMS:
        text, units = make(max(2, int(size * scale)))
        path = os.path.join(out, name + ".mlir")
        with open(path, "w") as f:
            f.write(text)
        print(name, path, units, executor[0] if executor else "tools/bef_executor")


if __name__ == "__main__":
    main()
