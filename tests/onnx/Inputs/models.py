"""The models of the ONNX tests and benchmarks, built with python3-onnx and
random weights (fixed seeds): the MLP 784-512-256-10 and a ResNet-18-shaped
CNN (conv/batch-norm/relu blocks with residual adds, max and global average
pooling, a final Gemm), plus small models that exercise the other
operators onnx-to-bef converts.

    python3 models.py OUT_DIR [--batch N]   writes mlp.onnx, resnet18.onnx,
                                            operators.onnx (dynamic batch
                                            unless --batch)
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


class Builder:
    def __init__(self, seed):
        self.random = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self.count = 0

    def name(self, prefix):
        self.count += 1
        return "%s_%d" % (prefix, self.count)

    def weight(self, shape, scale=None, positive=False):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
        scale = scale if scale is not None else np.sqrt(2.0 / max(fan_in, 1))
        values = self.random.standard_normal(shape).astype(np.float32) * np.float32(scale)
        if positive:
            values = np.abs(values) + np.float32(0.5)
        name = self.name("w")
        self.initializers.append(numpy_helper.from_array(values, name))
        return name

    def node(self, op, inputs, outputs=1, **attributes):
        names = [self.name(op.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, names, name=self.name(op), **attributes))
        return names[0] if outputs == 1 else names

    def model(self, name, inputs, outputs):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def batch_dim(batch):
    return batch if batch else "N"


def mlp(batch=None):
    b = Builder(1)
    x = "input"
    for width_in, width_out, relu in ((784, 512, True), (512, 256, True), (256, 10, False)):
        x = b.node("Gemm", [x, b.weight([width_out, width_in]), b.weight([width_out], 0.1)],
                   transB=1)
        if relu:
            x = b.node("Relu", [x])
    b.nodes[-1].output[0] = "logits"
    return b.model("mlp", [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                          [batch_dim(batch), 784])],
                   [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                                  [batch_dim(batch), 10])])


def conv_bn(b, x, channels_in, channels_out, kernel, stride, relu=True):
    pad = kernel // 2
    y = b.node("Conv", [x, b.weight([channels_out, channels_in, kernel, kernel])],
               kernel_shape=[kernel, kernel], strides=[stride, stride], pads=[pad] * 4)
    y = b.node("BatchNormalization",
               [y, b.weight([channels_out], 0.2, positive=True), b.weight([channels_out], 0.1),
                b.weight([channels_out], 0.1), b.weight([channels_out], 0.2, positive=True)],
               epsilon=1e-5)
    if relu:
        y = b.node("Relu", [y])
    return y


def resnet18(batch=None, size=224, classes=1000):
    b = Builder(2)
    x = conv_bn(b, "input", 3, 64, 7, 2)
    x = b.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    channels = 64
    for stage, width in enumerate((64, 128, 256, 512)):
        for block in range(2):
            stride = 2 if stage > 0 and block == 0 else 1
            shortcut = x
            y = conv_bn(b, x, channels, width, 3, stride)
            y = conv_bn(b, y, width, width, 3, 1, relu=False)
            if stride != 1 or channels != width:
                shortcut = conv_bn(b, x, channels, width, 1, stride, relu=False)
            x = b.node("Relu", [b.node("Add", [y, shortcut])])
            channels = width
    x = b.node("GlobalAveragePool", [x])
    x = b.node("Flatten", [x], axis=1)
    x = b.node("Gemm", [x, b.weight([classes, 512]), b.weight([classes], 0.1)], transB=1)
    b.nodes[-1].output[0] = "logits"
    return b.model("resnet18", [helper.make_tensor_value_info(
        "input", TensorProto.FLOAT, [batch_dim(batch), 3, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                       [batch_dim(batch), classes])])


def operators(batch=None):
    """Every other operator onnx-to-bef converts, on a small image: Conv
    with bias (same, valid and symmetric pads), Clip, AveragePool (with and
    without the padding counted), Mul and Add by per-channel constants and
    by a full tensor, Sub, Div, Concat along channels, Transpose, Reshape,
    MatMul, Softmax, a Constant node, standalone BatchNormalization."""
    b = Builder(3)
    x = b.node("Conv", ["input", b.weight([8, 3, 3, 3]), b.weight([8], 0.1)],
               kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    x = b.node("Clip", [x, make_scalar(b, -0.5),
                        make_scalar(b, 0.75)])
    a = b.node("AveragePool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
               count_include_pad=1)
    c = b.node("AveragePool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    scale = b.weight([8, 1, 1], 0.5, positive=True)
    a = b.node("Mul", [a, scale])
    c = b.node("Add", [c, b.weight([1, 8, 1, 1], 0.1)])
    d = b.node("Sub", [a, c])
    d = b.node("Div", [d, b.weight([8, 1, 1], 0.5, positive=True)])
    e = b.node("Concat", [d, a], axis=1)
    e = b.node("Conv", [e, b.weight([4, 16, 1, 1])], kernel_shape=[1, 1])
    e = b.node("BatchNormalization", [e, b.weight([4], 0.2, positive=True),
                                      b.weight([4], 0.1), b.weight([4], 0.1),
                                      b.weight([4], 0.2, positive=True)], epsilon=1e-3)
    f = b.node("MaxPool", [e], kernel_shape=[2, 2], strides=[2, 2])
    t = b.node("Transpose", [f], perm=[0, 2, 3, 1])
    shape = b.name("shape")
    b.nodes.append(helper.make_node("Constant", [], [shape], name=b.name("Constant"),
                                    value=numpy_helper.from_array(
                                        np.array([-1, 64], np.int64))))
    r = b.node("Reshape", [t, shape])
    m = b.node("MatMul", [r, b.weight([64, 10])])
    s = b.node("Softmax", [m], axis=-1)
    b.nodes[-1].output[0] = "probabilities"
    return b.model("operators", [helper.make_tensor_value_info(
        "input", TensorProto.FLOAT, [batch_dim(batch), 3, 16, 16])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT,
                                       [batch_dim(batch), 10])])


def make_scalar(b, value):
    name = b.name("scalar")
    b.initializers.append(numpy_helper.from_array(np.array(value, np.float32), name))
    return name


MODELS = {"mlp": mlp, "resnet18": resnet18, "operators": operators}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--batch", type=int)
    parser.add_argument("--models", default=",".join(MODELS))
    options = parser.parse_args()
    os.makedirs(options.out_dir, exist_ok=True)
    for name in options.models.split(","):
        onnx.save(MODELS[name](options.batch), os.path.join(options.out_dir, name + ".onnx"))


if __name__ == "__main__":
    main()
