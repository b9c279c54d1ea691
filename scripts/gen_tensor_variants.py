#!/usr/bin/env python3
"""Writes tests/tensor/variants.mlir: a program test of every dtype and rank
variant of the tfrt_dht and coo kernels (the hand-written tests cover the
behaviours; this one makes sure each of the 245 names runs). The expected
lines follow from the spec's print formats (host-tensors.md 4.1-4.3), not
from running anything.

usage: python3 scripts/gen_tensor_variants.py > tests/tensor/variants.mlir
"""

# dtype suffix -> (printed dtype, MLIR element type for attributes, two
# attribute literals, their printed forms, constant kernel or None)
DTYPES = [
    ("ui8", "u8", ["7 : ui8", "200 : ui8"], ["7", "200"], None),
    ("ui32", "u32", ["7 : ui32", "4000000000 : ui32"], ["7", "4000000000"], "ui32"),
    ("ui64", "u64", ["7 : ui64", "9 : ui64"], ["7", "9"], "ui64"),
    ("f32", "f32", ["1.5 : f32", "-0.25 : f32"], ["1.500000e+00", "-2.500000e-01"], "f32"),
    ("f64", "f64", ["1.5 : f64", "-0.25 : f64"], ["1.500000e+00", "-2.500000e-01"], "f64"),
    ("i8", "i8", ["7 : i8", "-77 : i8"], ["7", "-77"], None),
    ("i32", "i32", ["7 : i32", "-3 : i32"], ["7", "-3"], "i32"),
    ("i64", "i64", ["7 : i64", "-9000000000 : i64"], ["7", "-9000000000"], "i64"),
    ("bool", "i1", ["true", "false"], ["1", "0"], "i1"),
    ("complex64", "complex64", None, None, "complex64"),
    ("complex128", "complex128", None, None, "complex128"),
    ("f16", "f16", ["1.5 : f16", "-0.25 : f16"], ["fp16(15872)", "fp16(46080)"], "f16"),
    ("bf16", "bf16", ["1.5 : bf16", "-0.25 : bf16"], ["bf16(16320)", "bf16(48768)"], "bf16"),
]
# Complex tensors are set from interleaved (real, imaginary) parts.
COMPLEX_PARTS = {"complex64": "f32", "complex128": "f64"}
COMPLEX_VALUES = ["(1.500000e+00,-2.500000e-01)", "(-2.500000e-01,1.500000e+00)"]
CONSTANT_LITERALS = {
    "ui32": ["7", "4000000000"], "ui64": ["7", "9"], "f32": ["1.5", "-0.25"],
    "f64": ["1.5", "-0.25"], "i32": ["7", "-3"], "i64": ["7", "-9000000000"],
    "i1": ["1", "0"], "f16": ["1.5", "-0.25"], "bf16": ["1.5", "-0.25"],
    "complex64": ["1.5, -0.25", "-0.25, 1.5"],
    "complex128": ["1.5, -0.25", "-0.25, 1.5"],
}
SIZES = {"ui8": 1, "ui32": 4, "ui64": 8, "f32": 4, "f64": 8, "i8": 1, "i32": 4,
         "i64": 8, "bool": 1, "complex64": 8, "complex128": 16, "f16": 2,
         "bf16": 2}
MLIR_TYPES = {"complex64": "complex<f32>", "complex128": "complex<f64>"}
TENSOR = "!tfrt_tensor.tensor"
CHAIN = "!tfrt.chain"


def shape_of_rank(rank):
    # Two elements for every rank but 0: [2, 1, 1, ...].
    return [] if rank == 0 else [2] + [1] * (rank - 1)


def values_attribute(suffix, count, which=(0, 1)):
    if suffix in COMPLEX_PARTS:
        part = COMPLEX_PARTS[suffix]
        pairs = {0: ["1.5", "-0.25"], 1: ["-0.25", "1.5"]}
        items = []
        for i in range(count):
            items += ["%s : %s" % (p, part) for p in pairs[which[i % 2]]]
        return "[" + ", ".join(items) + "]"
    literals = [d for d in DTYPES if d[0] == suffix][0][2]
    return "[" + ", ".join(literals[which[i % 2]] for i in range(count)) + "]"


def printed_values(suffix, count, which=(0, 1)):
    entry = [d for d in DTYPES if d[0] == suffix][0]
    printed = COMPLEX_VALUES if suffix in COMPLEX_PARTS else entry[3]
    return "[" + ", ".join(printed[which[i % 2]] for i in range(count)) + "]"


def dense_line(suffix, shape, values):
    printed = [d for d in DTYPES if d[0] == suffix][0][1]
    return "DenseHostTensor dtype = %s, shape = [%s], values = %s" % (
        printed, ", ".join(str(d) for d in shape), values)


class Function:
    def __init__(self, name):
        self.name = name
        self.lines = []
        self.checks = []
        self.chain = "%c0"
        self.counter = 0

    def fresh(self, prefix):
        self.counter += 1
        return "%%%s%d" % (prefix, self.counter)

    def op(self, text):
        self.lines.append("  " + text)

    def next_chain(self):
        chain = self.fresh("c")
        return chain

    def print_tensor(self, tensor, expected):
        chain = self.next_chain()
        self.op("%s = tfrt_dht.print_tensor %s, %s" % (chain, tensor, self.chain))
        self.chain = chain
        self.checks.append(expected)

    def set_values(self, suffix, tensor, count, which=(0, 1)):
        chain = self.next_chain()
        self.op('%s = "tfrt_dht.set_tensor_with_constant_values.%s"(%s, %s) '
                '{values = %s} : (%s, %s) -> %s' % (
                    chain, suffix, tensor, self.chain,
                    values_attribute(suffix, count, which), TENSOR, CHAIN, CHAIN))
        self.chain = chain

    def create(self, suffix, rank, shape):
        tensor = self.fresh("t")
        self.op('%s = "tfrt_dht.create_uninitialized_tensor.%s.%d"() '
                '{shape = [%s]} : () -> %s' % (
                    tensor, suffix, rank,
                    ", ".join("%d : i64" % d for d in shape), TENSOR))
        return tensor

    def emit(self, results=()):
        types = ", ".join(t for _, t in results)
        out = ["// CHECK-LABEL: --- Running '%s':" % self.name,
               "func.func @%s() -> (%s) {" % (self.name, types),
               "  %c0 = tfrt.new.chain"]
        out += self.lines
        out.append("  tfrt.return %s : %s" % (
            ", ".join(v for v, _ in results), types))
        out.append("}")
        out += ["// CHECK-NEXT: " + c if c else "// CHECK-EMPTY:"
                for c in self.checks]
        return out


def dht_function(suffix, printed, literals, printed_literals, constant):
    f = Function("dht_" + suffix)
    # create_uninitialized_tensor.T.R for R = 0..5, set, print.
    rank1 = None
    for rank in range(6):
        shape = shape_of_rank(rank)
        count = 1 if rank == 0 else 2
        t = f.create(suffix, rank, shape)
        f.set_values(suffix, t, count)
        f.print_tensor(t, dense_line(suffix, shape, printed_values(suffix, count)))
        if rank == 1:
            rank1 = t
    # fill_tensor_with_constant.T with a scalar attribute of the type; the
    # complex types take the bit pattern of a same-sized scalar or are
    # reinterpreted (spec 5.2), so they get a zero pattern: an i64 0 for
    # complex64 (both parts 0.0). complex128 has no 16-byte scalar
    # attribute; the kernel must fail cleanly rather than read past it.
    filled = f.create(suffix, 1, [2])
    chain = f.next_chain()
    if suffix == "complex64":
        attribute = "0 : i64"
        expected = dense_line(suffix, [2], "[(0.000000e+00,0.000000e+00), (0.000000e+00,0.000000e+00)]")
    elif suffix == "complex128":
        attribute = None
    else:
        attribute = literals[1]
        expected = dense_line(suffix, [2], "[%s, %s]" % (printed_literals[1], printed_literals[1]))
    if attribute is not None:
        f.op('%s = "tfrt_dht.fill_tensor_with_constant.%s"(%s, %s) {value = %s} '
             ': (%s, %s) -> %s' % (chain, suffix, filled, f.chain, attribute,
                                  TENSOR, CHAIN, CHAIN))
        f.chain = chain
        f.print_tensor(filled, expected)
    # make_tensor.T over a fresh buffer of two elements.
    size = f.fresh("size")
    align = f.fresh("align")
    f.op("%s = tfrt.constant.i64 %d" % (size, 2 * SIZES[suffix]))
    f.op("%s = tfrt.constant.i64 8" % align)
    buffer = f.fresh("buffer")
    f.op("%s = tfrt_dht.allocate_buffer %s, %s" % (buffer, size, align))
    shape = f.fresh("shape")
    f.op("%s = ts.build_shape [2 : i64]" % shape)
    made = f.fresh("m")
    chain = f.next_chain()
    f.op('%s, %s = "tfrt_dht.make_tensor.%s"(%s, %s, %s) : (!ht.host_buffer, '
         '!ts.shape, %s) -> (%s, %s)' % (made, chain, suffix, buffer, shape,
                                         f.chain, CHAIN, TENSOR, CHAIN))
    f.chain = chain
    f.set_values(suffix, made, 2, which=(1, 0))
    f.print_tensor(made, dense_line(suffix, [2], printed_values(suffix, 2, (1, 0))))
    # set_tensor_with_values.T from constants (i8/ui8 have no constant
    # kernel: an empty tensor takes no values).
    if constant:
        target = f.create(suffix, 1, [2])
        values = []
        for literal in CONSTANT_LITERALS[constant]:
            v = f.fresh("v")
            f.op("%s = tfrt.constant.%s %s" % (v, constant, literal))
            values.append(v)
        expected = dense_line(suffix, [2], printed_values(suffix, 2))
    else:
        target = f.create(suffix, 1, [0])
        values = []
        expected = dense_line(suffix, [0], "[]")
    chain = f.next_chain()
    f.op('%s = "tfrt_dht.set_tensor_with_values.%s"(%s, %s%s) : (%s, %s%s) -> %s' % (
        chain, suffix, target, f.chain, "".join(", " + v for v in values),
        TENSOR, CHAIN, "".join(", " + MLIR_TYPES.get(constant, constant or "")
                               for _ in values), CHAIN))
    f.chain = chain
    f.print_tensor(target, expected)
    results = []
    if suffix not in ("f16", "bf16"):
        # Each comparison: the tensor with itself (1), with the make_tensor
        # one holding other values (0).
        for kernel in ["tensor_equal", "tensor_allclose", "tensor_allclose.3ulp",
                       "tensor_allclose.1000ulp", "tensor_allclose.2000ulp",
                       "tensor_allclose.100000ulp"]:
            for other in (rank1, made):
                r = f.fresh("r")
                chain = f.next_chain()
                f.op('%s, %s = "tfrt_dht.%s.%s"(%s, %s, %s) : (%s, %s, %s) -> (i1, %s)' % (
                    r, chain, kernel, suffix, rank1, other, f.chain, TENSOR,
                    TENSOR, CHAIN, CHAIN))
                f.chain = chain
                results.append((r, "i1"))
        f.checks.append("'%s' returned %s,!tfrt.chain value" % (
            f.name, ",".join(["1", "0"] * 6)))
    else:
        f.checks.append("'%s' returned !tfrt.chain value" % f.name)
    results.append((f.chain, CHAIN))
    return f.emit(results)


def complex128_fill_function():
    f = Function("fill_complex128")
    t = f.create("complex128", 1, [2])
    chain = f.next_chain()
    f.op('%s = "tfrt_dht.fill_tensor_with_constant.complex128"(%s, %s) '
         '{value = 1.5 : f64} : (%s, %s) -> %s' % (chain, t, f.chain, TENSOR,
                                                  CHAIN, CHAIN))
    f.chain = chain
    f.print_tensor(t, "DenseHostTensor dtype = complex128, shape = [2], values = "
                   "[(1.500000e+00,{{[^)]*}}), (1.500000e+00,{{[^)]*}})]")
    f.checks.append("'fill_complex128' returned !tfrt.chain value")
    return f


def coo_function(suffix):
    f = Function("coo_" + suffix)
    results = []
    zero, three = ("0 : i32", "3 : i32") if suffix == "i32" else ("0.0 : f32", "3.0 : f32")
    printed_three = "3" if suffix == "i32" else "3.000000e+00"
    printed_zero = "0" if suffix == "i32" else "0.000000e+00"
    for rank in range(4):
        shape = shape_of_rank(rank)
        dims = ", ".join(str(d) for d in shape)
        t = f.create(suffix, rank, shape)
        count = 1 if rank == 0 else 2
        chain = f.next_chain()
        values = [three] if rank == 0 else [zero, three]
        f.op('%s = "tfrt_dht.set_tensor_with_constant_values.%s"(%s, %s) '
             '{values = [%s]} : (%s, %s) -> %s' % (chain, suffix, t, f.chain,
                                                  ", ".join(values), TENSOR, CHAIN, CHAIN))
        f.chain = chain
        s = f.fresh("s")
        chain = f.next_chain()
        f.op("%s, %s = coo.convert_dht_to_coo.%s.%d %s, %s" % (s, chain, suffix, rank, t, f.chain))
        f.chain = chain
        # The nonzero element: offset 0 of rank 0, else (1, 0, ...).
        indices = "" if rank == 0 else ", ".join(["1"] + ["0"] * (rank - 1))
        f.print_tensor(s, "CooHostTensor dtype = %s, shape = [%s], indices = [%s], values = [%s]" % (
            suffix, dims, indices, printed_three))
        f.checks.append("")
        d = f.fresh("d")
        chain = f.next_chain()
        f.op("%s, %s = coo.convert_coo_to_dht.%s.%d %s, %s" % (d, chain, suffix, rank, s, f.chain))
        f.chain = chain
        dense_values = "[%s]" % printed_three if rank == 0 else "[%s, %s]" % (printed_zero, printed_three)
        f.print_tensor(d, "DenseHostTensor dtype = %s, shape = [%s], values = %s" % (
            suffix, dims, dense_values))
        r = f.fresh("r")
        chain = f.next_chain()
        f.op("%s, %s = coo.tensor_equal.%s.%d %s, %s, %s" % (r, chain, suffix, rank, s, s, f.chain))
        f.chain = chain
        results.append((r, "i1"))
    f.checks.append("'%s' returned 1,1,1,1" % f.name)
    results.append((f.chain, CHAIN))
    return f.emit(results)


def main():
    out = [
        "// GENERATED by scripts/gen_tensor_variants.py -- edit that, then run",
        "//   python3 scripts/gen_tensor_variants.py > tests/tensor/variants.mlir",
        "// Every dtype and rank variant of the tfrt_dht and coo kernels runs once",
        "// (create_uninitialized_tensor.T.R for R = 0..5, set/fill/make_tensor/",
        "// set_tensor_with_values, tensor_equal and the allclose variants; coo",
        "// conversions and equality for ranks 0..3).",
        "// RUN: mlir-to-bef %s | bef_executor | FileCheck %s",
        "",
    ]
    for entry in DTYPES:
        out += dht_function(*entry)
        out.append("")
    # complex128 has no 16-byte scalar attribute (spec 5.2: TFRT reads past
    # an f64 one; undefined). Here the f64 gives the real part; the
    # imaginary part is the next 8 bytes of the Attributes section (the
    # loader checked they are inside it), so it is not checked.
    f = complex128_fill_function()
    out += f.emit([(f.chain, CHAIN)])
    out.append("")
    for suffix in ("i32", "f32"):
        out += coo_function(suffix)
        out.append("")
    print("\n".join(out).rstrip("\n"))


if __name__ == "__main__":
    main()
