#!/usr/bin/env python3
"""Writes the test data of tests/cpu/eigen_kernels.mlir: a BTF file
(host-tensors.md §8.1) of f32 records, inputs and the expected results of
the eigen.* convolutions and matrix products, computed here from
cpu-kernels.md §4.1-§4.3 and §4.7 (NumPy on integers, so every sum is
exact), not by the runtime under test. Inputs are small integers: the
kernels' results must equal these bit for bit whatever the summation
order.

Usage: eigen_btf.py OUT.btf   (the record list is RECORDS below)
"""
import struct
import sys

import numpy as np

RNG = np.random.default_rng(20261130)


def ints(shape, low=-3, high=3):
    return RNG.integers(low, high + 1, size=shape).astype(np.int64)


def conv_window(size, filter_size, stride, padding):
    """(out, before, after) of cpu-kernels.md §4.1."""
    if padding == "valid":
        return (size - filter_size + stride) // stride, 0, 0
    out = (size + stride - 1) // stride
    needed = max(0, (out - 1) * stride + filter_size - size)
    return out, needed // 2, needed - needed // 2


def conv2d(x, w, strides, padding):
    """NHWC x HWIO -> NHWC, TensorFlow's Conv2D, in exact integers."""
    n, h, wd, ic = x.shape
    kh, kw, _, oc = w.shape
    oh, top, _ = conv_window(h, kh, strides[0], padding)
    ow, left, _ = conv_window(wd, kw, strides[1], padding)
    out = np.zeros((n, oh, ow, oc), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    r = i * strides[0] + a - top
                    s = j * strides[1] + b - left
                    if 0 <= r < h and 0 <= s < wd:
                        out[:, i, j, :] += x[:, r, s, :] @ w[a, b]
    return out


def conv2d_grad_filter(x, dy, filter_shape, strides, padding):
    """filter_grad[kh, kw, ic, oc] = sum of x[n, tap] * dy[n, out] (§4.9)."""
    n, h, wd, ic = x.shape
    kh, kw, _, oc = filter_shape
    oh, top, _ = conv_window(h, kh, strides[0], padding)
    ow, left, _ = conv_window(wd, kw, strides[1], padding)
    grad = np.zeros(filter_shape, dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    r = i * strides[0] + a - top
                    s = j * strides[1] + b - left
                    if 0 <= r < h and 0 <= s < wd:
                        grad[a, b] += x[:, r, s, :].T @ dy[:, i, j, :]
    return grad


def conv2d_grad_input(dy, w, input_shape, strides, padding):
    """input_grad[n, h, w, ic] = sum over the taps reaching (h, w) (§4.9)."""
    n, h, wd, ic = input_shape
    kh, kw, _, oc = w.shape
    oh, top, _ = conv_window(h, kh, strides[0], padding)
    ow, left, _ = conv_window(wd, kw, strides[1], padding)
    grad = np.zeros(input_shape, dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    r = i * strides[0] + a - top
                    s = j * strides[1] + b - left
                    if 0 <= r < h and 0 <= s < wd:
                        grad[:, r, s, :] += dy[:, i, j, :] @ w[a, b].T
    return grad


def batch_norm_grad(dy, x, gamma, mean, variance, epsilon):
    """(input_grad, gamma_grad, beta_grad) of §4.8, in float64."""
    channels = x.shape[-1]
    dy = dy.reshape(-1, channels).astype(np.float64)
    centered = x.reshape(-1, channels) - mean
    inverse = 1 / np.sqrt(variance + epsilon)
    beta_grad = dy.sum(axis=0)
    sum_dy_centered = (dy * centered).sum(axis=0)
    gamma_grad = sum_dy_centered * inverse
    positions = dy.shape[0]
    dx = gamma * inverse * ((dy - beta_grad / positions)
                            - centered * inverse ** 2 * sum_dy_centered / positions)
    return dx.reshape(x.shape), gamma_grad, beta_grad


def f32(array):
    return np.asarray(array, dtype=np.float32)


def batch_norm(conv, scale, offset, mean, variance, epsilon, relu):
    """(conv - mean) * factor + offset, factor = 1 / sqrt(variance + e) *
    scale, each step one f32 operation as the kernel's formula."""
    factor = np.float32(1) / np.sqrt(f32(variance) + np.float32(epsilon)) * f32(scale)
    out = (f32(conv) - f32(mean)) * factor + f32(offset)
    return np.maximum(out, np.float32(0)) if relu else out


def build():
    x = ints((2, 7, 9, 3))
    f1 = ints((3, 3, 3, 4))
    f2 = ints((2, 3, 3, 4))
    bias = ints((4,), -9, 9)
    scale = ints((4,), 1, 4)
    offset = ints((4,), -5, 5)
    mean = ints((4,), -20, 20)
    variance = ints((4,), 0, 8)
    conv_valid = conv2d(x, f1, (2, 1), "valid")
    a = ints((70, 130), -4, 4)
    b = ints((130, 50), -4, 4)
    row = ints((1, 300), -4, 4)
    wide = ints((300, 700), -4, 4)
    big_x = ints((4, 16, 16, 8))
    big_f = ints((3, 3, 8, 8))
    dy = ints((2, 4, 5, 4))
    one_x = ints((1, 16, 16, 8))
    three_x = ints((3, 33, 16, 8))
    bn_dy = ints((2, 3, 4, 5))
    bn_x = ints((2, 3, 4, 5), -9, 9)
    gamma = ints((5,), 1, 4)
    bn_mean = ints((5,), -2, 2)
    bn_variance = ints((5,), 1, 9)
    # A filter larger than its input, 72 output channels (4.5 blocks of
    # 16): split by output channels on mstd:2.
    small_x = ints((1, 3, 3, 32))
    wide_f = ints((3, 3, 32, 72))
    wide_conv = conv2d(small_x, wide_f, (1, 1), "same")
    wide_bias = ints((72,), -9, 9)
    wide_scale = ints((72,), 1, 4)
    wide_offset = ints((72,), -5, 5)
    wide_mean = ints((72,), -20, 20)
    wide_variance = ints((72,), 0, 8)
    return [
        x,                                              # 0
        f1,                                             # 1
        conv2d(x, f1, (1, 1), "same"),                  # 2
        f2,                                             # 3
        conv2d(x, f2, (2, 2), "same"),                  # 4
        conv_valid,                                     # 5
        bias,                                           # 6
        conv2d(x, f1, (1, 1), "same") + bias,           # 7
        scale, offset, mean, variance,                  # 8-11
        batch_norm(conv_valid, scale, offset, mean, variance, 1.0, False),  # 12
        batch_norm(conv_valid, scale, offset, mean, variance, 1.0, True),   # 13
        a, b, a @ b,                                    # 14-16
        row, wide, row @ wide,                          # 17-19
        big_x, big_f, conv2d(big_x, big_f, (1, 1), "same"),  # 20-22
        dy,                                             # 23
        conv2d_grad_filter(x, dy, f2.shape, (2, 2), "same"),  # 24
        conv2d_grad_input(dy, f2, x.shape, (2, 2), "same"),   # 25
        bn_dy, bn_x, gamma, bn_mean, bn_variance,       # 26-30
        *batch_norm_grad(bn_dy, bn_x, gamma, bn_mean, bn_variance, 0.5),  # 31-33
        one_x, conv2d(one_x, big_f, (1, 1), "same"),    # 34-35
        three_x, conv2d(three_x, big_f, (2, 2), "same"),  # 36-37
        small_x, wide_f, wide_conv,                     # 38-40
        wide_bias, wide_conv + wide_bias,               # 41-42
        wide_scale, wide_offset, wide_mean, wide_variance,  # 43-46
        batch_norm(wide_conv, wide_scale, wide_offset, wide_mean, wide_variance, 1.0, True),  # 47
    ]


def record(array):
    array = f32(array)
    header = struct.pack("<QBB6x", array.ndim, 4, 0)
    dims = struct.pack("<%dQ" % array.ndim, *array.shape)
    body = header + dims + array.astype("<f4").tobytes()
    return body + b"\0" * (-len(body) % 8)


def main():
    records = [record(array) for array in build()]
    offset = 8 + 8 * len(records)
    offsets = []
    for body in records:
        offsets.append(offset)
        offset += len(body)
    with open(sys.argv[1], "wb") as out:
        out.write(struct.pack("<Q", len(records)))
        out.write(struct.pack("<%dQ" % len(records), *offsets))
        for body in records:
            out.write(body)


if __name__ == "__main__":
    main()
