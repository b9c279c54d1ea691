#!/usr/bin/env python3
"""Writes the max-pooling test data of tests/cpu/max_pool.mlir: a BTF file
(host-tensors.md §8.1) of four f32 records, as TFRT's max_pool.btf holds them
(cpu-kernels.md §7.2): two inputs of positive values and the expected result
of pooling each, computed here from cpu-kernels.md §3.1 (plain Python), not by the
runtime under test.

  0: input  [2, 3, 3, 6]   1: valid 3x3 / stride 3x3 pooling of 0, [2, 1, 1, 6]
  2: input  [2, 5, 5, 6]   3: same 3x3 / stride 2x2 pooling of 2,  [2, 3, 3, 6]

Usage: max_pool_btf.py OUT.btf
"""
import math
import random
import struct
import sys

FLT_MIN = struct.unpack("<f", struct.pack("<f", 1.17549435e-38))[0]


def f32(value):
    """`value` rounded to the nearest float32."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


class Tensor:
    """A dense NHWC f32 tensor: its shape and row-major elements."""

    def __init__(self, shape, values):
        self.shape = shape
        self.values = values

    def at(self, n, i, j, c):
        _, h, w, channels = self.shape
        return self.values[((n * h + i) * w + j) * channels + c]


def pool_padding(size, window, stride, padding):
    """(before, after) rows or columns of TFRT's pool padding."""
    if padding == "valid":
        return 0, 0
    total = window - stride if size % stride == 0 else window - size % stride
    return math.trunc(total / 2.0), math.trunc(total / 2.0 + 0.5)


def max_pool(x, window, stride, padding):
    n, h, w, c = x.shape
    top, bottom = pool_padding(h, window[0], stride[0], padding)
    left, right = pool_padding(w, window[1], stride[1], padding)
    out_h = int((h + top + bottom - window[0]) / stride[0]) + 1
    out_w = int((w + left + right - window[1]) / stride[1]) + 1
    values = []
    for b in range(n):
        for i in range(out_h):
            for j in range(out_w):
                for ch in range(c):
                    best = FLT_MIN
                    for r in range(i * stride[0] - top, i * stride[0] - top + window[0]):
                        for s in range(j * stride[1] - left, j * stride[1] - left + window[1]):
                            if 0 <= r < h and 0 <= s < w:
                                best = max(best, x.at(b, r, s, ch))
                    values.append(best)
    return Tensor((n, out_h, out_w, c), values)


def random_tensor(generator, shape):
    count = math.prod(shape)
    return Tensor(shape, [f32(generator.uniform(0.01, 10.0)) for _ in range(count)])


def record(tensor):
    header = struct.pack("<QBB6x", len(tensor.shape), 4, 0)
    dims = struct.pack("<%dQ" % len(tensor.shape), *tensor.shape)
    data = struct.pack("<%df" % len(tensor.values), *tensor.values)
    body = header + dims + data
    return body + b"\0" * (-len(body) % 8)


def main():
    generator = random.Random(20261130)
    first = random_tensor(generator, (2, 3, 3, 6))
    second = random_tensor(generator, (2, 5, 5, 6))
    tensors = [first, max_pool(first, (3, 3), (3, 3), "valid"),
               second, max_pool(second, (3, 3), (2, 2), "same")]
    assert tensors[1].shape == (2, 1, 1, 6) and tensors[3].shape == (2, 3, 3, 6)
    records = [record(t) for t in tensors]
    offset = 8 + 8 * len(records)
    offsets = []
    for r in records:
        offsets.append(offset)
        offset += len(r)
    with open(sys.argv[1], "wb") as out:
        out.write(struct.pack("<Q", len(records)))
        out.write(struct.pack("<%dQ" % len(records), *offsets))
        for r in records:
            out.write(r)


if __name__ == "__main__":
    main()
