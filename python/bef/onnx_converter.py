"""ONNX models to BEF programs and bef_serve repository versions
(docs/onnx.md).

    import bef
    bef.onnx_to_bef("model.onnx", repository="models", name="resnet")
    # models/resnet/config.json and models/resnet/1/model.bef
    from bef import onnx_converter
    text, config = onnx_converter.convert("model.onnx")   # MLIR text, config

or from the shell: `onnx-to-bef MODEL.onnx --repository DIR --name NAME
[--version N] [--batch B] [--emit-mlir FILE]` (a command the wheel
installs; `python3 -m bef.onnx_converter` is the same).

The program is one function, `main`: the model's inputs in order (f32
tensors in the model's own layout: NCHW images), its outputs in order and
a chain that is ready when every output is written. Each operator becomes
TFRT's CPU kernels where they have its semantics (eigen.matmul.f32,
eigen.batch_norm.f32, tfrt_test.relu.f32,
tfrt_test.global_average_pooling.f32) and the `onnx.*` kernels where they
do not (kernels/cpu/onnx_kernels.cc: convolutions with explicit pads and
a bias, residual addend and relu folded in, transpose, broadcasting
arithmetic, pooling with explicit pads, softmax along an axis, clip,
concat). Images
are computed in NHWC, TFRT's layout: the input is transposed once, and a
tensor goes back to the model's layout only where an operator needs it.
Weights are dense attributes of the BEF file (read in place, never
copied; convolution filters are reordered for oneDNN once per load).

Shapes are static: a model whose input has a symbolic dimension (a
dynamic batch) is converted for the `batch` given. An operator, attribute
or input the converter cannot carry over is a ConversionError naming the
node, its operator and why; nothing is guessed.
"""

import argparse
import json
import os
import struct
import sys

import numpy as np

__all__ = ["convert", "onnx_to_bef", "ConversionError", "SUPPORTED_OPERATORS"]

MINIMUM_OPSET = 13
TENSOR = "!tfrt_tensor.tensor"
CHAIN = "!tfrt.chain"


class ConversionError(Exception):
    """A model onnx-to-bef cannot convert: the message names the node, the
    operator and the reason."""


def _f32(value):
    """An f32 MLIR literal with the exact bits of `value` as an f32."""
    return "0x%08X" % struct.unpack("<I", struct.pack("<f", float(value)))[0]


def _i64_array(values):
    return "[" + ", ".join("%d : i64" % int(v) for v in values) + "]"


def _dims_text(dims):
    return "x".join(str(int(d)) for d in dims)


class _Value:
    """A tensor of the model as the program holds it.

    shape: the ONNX dimensions. layout: "plain" (the elements in the
    model's row-major order; the tensor's own dimensions `physical` may be
    another reshaping of them) or "nhwc" (a 4-D NCHW value held as NHWC:
    physical = [N, H, W, C]). tensor/chain: SSA names (chain None: ready
    when the tensor is). constant: the numpy array of a weight (emitted on
    first use)."""

    def __init__(self, shape, layout="plain", physical=None, tensor=None, chain=None,
                 constant=None):
        self.shape = tuple(int(d) for d in shape)
        self.layout = layout
        self.physical = tuple(physical if physical is not None else self.shape)
        self.tensor = tensor
        self.chain = chain
        self.constant = constant


def _nhwc(dims):
    n, c, h, w = dims
    return (n, h, w, c)


def _count(dims):
    result = 1
    for d in dims:
        result *= int(d)
    return result


class _Converter:
    def __init__(self, model, batch, entry):
        import onnx
        from onnx import numpy_helper, shape_inference
        self.onnx = onnx
        self.numpy_helper = numpy_helper
        self.entry = entry
        opset = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
        if not opset:
            raise ConversionError("the model imports no version of the default ONNX operator set")
        if opset[0] < MINIMUM_OPSET:
            raise ConversionError(
                "the model uses ONNX opset %d; onnx-to-bef converts opset %d and later "
                "(onnx.version_converter can raise it)" % (opset[0], MINIMUM_OPSET))
        for o in model.opset_import:
            if o.domain not in ("", "ai.onnx"):
                raise ConversionError("the model imports the operator set '%s', which "
                                      "onnx-to-bef does not know" % o.domain)
        model = onnx.ModelProto.FromString(model.SerializeToString())
        graph = model.graph
        initializers = {t.name for t in graph.initializer}
        self.inputs = [i for i in graph.input if i.name not in initializers]
        for value in self.inputs:
            self._fix_input_shape(value, batch)
        try:
            model = shape_inference.infer_shapes(model, strict_mode=True)
        except Exception as error:  # onnx raises its own InferenceError types
            raise ConversionError("ONNX shape inference failed: %s" % error) from None
        self.graph = model.graph
        self.lines = []
        self.counter = 0
        self.values = {}
        self.shapes = {}
        for info in list(self.graph.value_info) + list(self.graph.output) + list(self.graph.input):
            if info.type.HasField("tensor_type") and info.type.tensor_type.HasField("shape"):
                dims = info.type.tensor_type.shape.dim
                if all(d.HasField("dim_value") for d in dims):
                    self.shapes[info.name] = tuple(d.dim_value for d in dims)
        for tensor in self.graph.initializer:
            self.values[tensor.name] = self._constant_value(numpy_helper.to_array(tensor),
                                                            "initializer '%s'" % tensor.name)
        self.consumers = {}
        for node in self.graph.node:
            for name in node.input:
                if name:
                    self.consumers.setdefault(name, []).append(node)
        self.graph_outputs = {o.name for o in self.graph.output}
        self.producers = {name: node for node in self.graph.node for name in node.output if name}
        self.made = set()        # tensors (SSA names) the program's kernels write
        self.fused = set()       # nodes folded into another's kernel
        self.done = set()        # nodes converted
        self.converting = set()  # nodes being converted (ensure must not re-enter them)

    # ---- inputs, constants, names

    def _fix_input_shape(self, value, batch):
        tensor_type = value.type.tensor_type
        if not value.type.HasField("tensor_type") or tensor_type.elem_type != 1:
            raise ConversionError("input '%s': only float32 tensors are supported" % value.name)
        if not tensor_type.HasField("shape"):
            raise ConversionError("input '%s' has no shape" % value.name)
        for index, dim in enumerate(tensor_type.shape.dim):
            if dim.HasField("dim_value") and dim.dim_value > 0:
                continue
            what = dim.dim_param or "?"
            if batch is None:
                raise ConversionError(
                    "input '%s' has a dynamic dimension '%s' (axis %d): pass batch= "
                    "(--batch) to convert it for a fixed size" % (value.name, what, index))
            dim.Clear()
            dim.dim_value = batch

    def _constant_value(self, array, what):
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        if array.dtype not in (np.float32, np.int64, np.int32):
            raise ConversionError("%s: tensors of %s are not supported" % (what, array.dtype))
        return _Value(array.shape, constant=np.ascontiguousarray(array))

    def name(self, prefix):
        self.counter += 1
        return "%%%s%d" % (prefix, self.counter)

    def emit(self, line):
        self.lines.append("  " + line)

    def emit_constant(self, array):
        array = np.ascontiguousarray(array, dtype=np.float32)
        if array.size == 0:
            raise ConversionError("an empty weight cannot be a dense attribute")
        ssa = self.name("w")
        kind = "tensor<%sxf32>" % _dims_text(array.shape) if array.ndim else "tensor<f32>"
        self.emit('%s = "tfrt_test.const_dense_attr"() {value = dense<"0x%s"> : %s} : () -> %s'
                  % (ssa, array.astype("<f4").tobytes().hex().upper(), kind, TENSOR))
        return ssa

    def new_tensor(self, dims):
        """A tensor the program's kernels will write (one of `made`)."""
        ssa = self.name("t")
        self.emit("%s = tfrt_dht.create_uninitialized_tensor.f32.%d %s" %
                  (ssa, len(dims), _i64_array(dims)))
        self.made.add(ssa)
        return ssa

    def chain_of(self, values):
        chains = []
        for value in values:
            if value.chain is not None and value.chain not in chains:
                chains.append(value.chain)
        if not chains:
            return "%ch0"
        if len(chains) == 1:
            return chains[0]
        ssa = self.name("c")
        self.emit("%s = tfrt.merge.chains %s : %s" %
                  (ssa, ", ".join(chains), ", ".join([CHAIN] * len(chains))))
        return ssa

    def call(self, kernel, operands, output_dims, attributes="", inputs=(), into=None):
        """`kernel`(operands..., new output, chain of inputs) -> chain; the
        output's SSA name and the chain. `into`: an existing tensor to
        write instead of a new one (see may_overwrite)."""
        out = into if into is not None else self.new_tensor(output_dims)
        chain = self.chain_of(inputs)
        result = self.name("c")
        types = [TENSOR] * (len(operands) + 1) + [CHAIN]
        self.emit('%s = "%s"(%s) %s: (%s) -> %s' %
                  (result, kernel, ", ".join(list(operands) + [out, chain]),
                   "{%s} " % attributes if attributes else "", ", ".join(types), CHAIN))
        return out, result

    def may_overwrite(self, value, node, readers_done):
        """Whether the kernel of `node` may write its result into `value`'s
        tensor, which it reads: a tensor a kernel of this program made
        (never an argument or a constant), held by no graph output, not the
        node's own input, and every other reader of it, under any name
        sharing the tensor, is `readers_done` (folded into this kernel) or
        an ancestor of the node's input, so its kernel has run before this
        one starts (chains order them)."""
        tensor = value.tensor
        if tensor is None or tensor not in self.made:
            return False
        source = self.values.get(node.input[0])
        if source is None or source.tensor == tensor:
            return False
        names = [name for name, v in self.values.items() if v.tensor == tensor]
        if any(name in self.graph_outputs for name in names):
            return False
        ancestors, pending = set(), [node.input[0]]
        while pending:
            producer = self.producers.get(pending.pop())
            if producer is None or id(producer) in ancestors:
                continue
            ancestors.add(id(producer))
            pending.extend(n for n in producer.input if n)
        return all(id(reader) in ancestors or id(reader) in readers_done
                   for name in names for reader in self.consumers.get(name, []))

    def tensor_of(self, value):
        if value.tensor is None:
            if value.constant is None:
                raise ConversionError("internal: a value without a tensor")
            value.tensor = self.emit_constant(value.constant.reshape(value.physical))
        return value.tensor

    # ---- layouts

    def plain(self, value):
        """The value in the model's element order."""
        if value.layout == "plain":
            return value
        n, c, h, w = value.shape
        if h * w == 1 or c == 1:
            return _Value(value.shape, "plain", value.physical, value.tensor, value.chain)
        out, chain = self.call("onnx.transpose.f32", [self.tensor_of(value)], value.shape,
                               "perm = %s" % _i64_array([0, 3, 1, 2]), [value])
        return _Value(value.shape, "plain", value.shape, out, chain)

    def exact(self, value, dims=None):
        """The value plain, its tensor of dimensions `dims` (default: the
        ONNX shape)."""
        dims = tuple(value.shape if dims is None else dims)
        if value.constant is not None and value.tensor is None:
            return _Value(dims, "plain", dims, constant=value.constant.reshape(dims))
        value = self.plain(value)
        if value.physical == dims:
            return value
        out, chain = self.call("onnx.reshape.f32", [self.tensor_of(value)], dims, "", [value])
        return _Value(dims, "plain", dims, out, chain)

    def nhwc(self, value):
        """A value of rank at most 4, as NHWC of its shape padded to rank 4
        with leading ones (how numpy broadcasts it against an image)."""
        shape = (1,) * (4 - len(value.shape)) + value.shape
        target = _nhwc(shape)
        if value.layout == "nhwc":
            return value
        if value.constant is not None and value.tensor is None:
            array = value.constant.reshape(shape).transpose(0, 2, 3, 1)
            return _Value(shape, "nhwc", target, constant=np.ascontiguousarray(array))
        n, c, h, w = shape
        if h * w == 1 or c == 1:
            if value.physical == target:
                return _Value(shape, "nhwc", target, value.tensor, value.chain)
            out, chain = self.call("onnx.reshape.f32", [self.tensor_of(value)], target, "",
                                   [value])
            return _Value(shape, "nhwc", target, out, chain)
        value = self.exact(value, shape)
        out, chain = self.call("onnx.transpose.f32", [self.tensor_of(value)], target,
                               "perm = %s" % _i64_array([0, 2, 3, 1]), [value])
        return _Value(shape, "nhwc", target, out, chain)

    # ---- nodes

    def fail(self, node, reason):
        raise ConversionError("node '%s' (%s): %s" % (node.name or node.output[0], node.op_type,
                                                      reason))

    def attributes(self, node):
        from onnx import helper
        return {a.name: helper.get_attribute_value(a) for a in node.attribute}

    def value(self, node, index):
        name = node.input[index] if index < len(node.input) else ""
        if not name:
            return None
        if name not in self.values:
            self.fail(node, "input '%s' is not computed before it" % name)
        return self.values[name]

    def constant(self, node, index, what):
        value = self.value(node, index)
        if value is None or value.constant is None:
            self.fail(node, "%s must be a constant (an initializer or a Constant node)" % what)
        return value.constant

    def output_shape(self, node, index=0):
        name = node.output[index]
        if name not in self.shapes:
            self.fail(node, "ONNX shape inference gave output '%s' no static shape" % name)
        return self.shapes[name]

    def only_consumer(self, name, op_type):
        """The one node that reads `name`, when it is an `op_type` and `name`
        is no graph output."""
        readers = self.consumers.get(name, [])
        if len(readers) == 1 and readers[0].op_type == op_type and name not in self.graph_outputs:
            return readers[0]
        return None

    def unused_attributes(self, node, attributes, known):
        for key in attributes:
            if key not in known:
                self.fail(node, "attribute '%s' is not supported" % key)

    def check_float(self, node, value, what):
        if value.constant is not None and value.constant.dtype != np.float32:
            self.fail(node, "%s must be float32, not %s" % (what, value.constant.dtype))

    def spatial(self, node, attributes, input_hw, kernel_hw):
        """Strides and [top, left, bottom, right] pads of a convolution or
        pooling, with auto_pad resolved."""
        strides = list(attributes.get("strides", [1, 1]))
        dilations = list(attributes.get("dilations", [1, 1]))
        if len(strides) != 2 or len(kernel_hw) != 2:
            self.fail(node, "only 2-D windows are supported")
        if any(d != 1 for d in dilations):
            self.fail(node, "dilations %s are not supported (only 1)" % dilations)
        auto_pad = attributes.get("auto_pad", b"NOTSET")
        auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
        if auto_pad in ("NOTSET", "VALID"):
            pads = list(attributes.get("pads", [0, 0, 0, 0])) if auto_pad == "NOTSET" else [0] * 4
        elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            pads = [0] * 4
            for axis in range(2):
                out = -(-input_hw[axis] // strides[axis])
                total = max((out - 1) * strides[axis] + kernel_hw[axis] - input_hw[axis], 0)
                small, large = total // 2, total - total // 2
                before, after = (small, large) if auto_pad == "SAME_UPPER" else (large, small)
                pads[axis], pads[axis + 2] = before, after
        else:
            self.fail(node, "auto_pad '%s' is not an ONNX value" % auto_pad)
        if len(pads) != 4:
            self.fail(node, "pads %s: only 2-D windows are supported" % pads)
        return strides, pads

    def convert_node(self, node):
        if id(node) in self.fused or id(node) in self.done:
            return
        self.done.add(id(node))
        handler = getattr(self, "op_" + node.op_type, None)
        if handler is None:
            self.fail(node, "the operator is not supported by onnx-to-bef (it converts %s)"
                      % ", ".join(SUPPORTED_OPERATORS))
        for name in node.input:
            if name and name not in self.values:
                self.fail(node, "input '%s' is not computed before it" % name)
        handler(node, self.attributes(node))

    def set_output(self, node, value, index=0):
        self.values[node.output[index]] = value

    def op_Constant(self, node, attributes):
        if "value" not in attributes:
            self.fail(node, "only the 'value' form of Constant is supported")
        self.set_output(node, self._constant_value(self.numpy_helper.to_array(attributes["value"]),
                                                   "node '%s'" % node.name))

    def op_Identity(self, node, attributes):
        self.set_output(node, self.value(node, 0))

    def op_Dropout(self, node, attributes):
        if len(node.output) > 1 and node.output[1]:
            self.fail(node, "the mask output is not supported")
        self.set_output(node, self.value(node, 0))

    def op_Conv(self, node, attributes):
        self.unused_attributes(node, attributes,
                               {"auto_pad", "dilations", "group", "kernel_shape", "pads",
                                "strides"})
        x = self.value(node, 0)
        weight = self.constant(node, 1, "the weight W").astype(np.float32)
        if attributes.get("group", 1) != 1:
            self.fail(node, "group %d is not supported (only 1)" % attributes["group"])
        if len(x.shape) != 4 or weight.ndim != 4:
            self.fail(node, "only 2-D convolutions of NCHW inputs are supported")
        out_channels, in_channels, kh, kw = weight.shape
        bias = np.zeros(out_channels, np.float32)
        if len(node.input) > 2 and node.input[2]:
            bias = self.constant(node, 2, "the bias B").astype(np.float32).reshape(-1)
        strides, pads = self.spatial(node, attributes, x.shape[2:], (kh, kw))
        result_shape = self.output_shape(node)
        self.converting.add(id(node))
        # What follows it folds into the one kernel: a BatchNormalization of
        # constants into the weights and bias (as ONNX Runtime folds it), a
        # residual Add of an image of the same shape, then a Relu.
        last = node
        batch_norm = self.only_consumer(node.output[0], "BatchNormalization")
        if batch_norm is not None and (batch_norm.input[0] != node.output[0] or any(
                not name or self.values.get(name) is None or self.values[name].constant is None
                for name in batch_norm.input[1:5]) or len(
                    [o for o in batch_norm.output if o]) != 1 or self.attributes(
                        batch_norm).get("training_mode", 0)):
            batch_norm = None
        if batch_norm is not None:
            bn = self.attributes(batch_norm)
            self.unused_attributes(batch_norm, bn, {"epsilon", "momentum", "training_mode"})
            scale, offset, mean, variance = (
                self.values[name].constant.astype(np.float32) for name in batch_norm.input[1:5])
            factor = (scale / np.sqrt(variance + np.float32(bn.get("epsilon", 1e-5)))).astype(
                np.float32)
            weight = weight * factor[:, None, None, None]
            bias = ((bias - mean) * factor + offset).astype(np.float32)
            self.fused.add(id(batch_norm))
            last = batch_norm
        addend = None
        add = self.only_consumer(last.output[0], "Add")
        if add is not None and len(add.input) == 2:
            other = add.input[1] if add.input[0] == last.output[0] else add.input[0]
            if other != last.output[0] and self.shapes.get(add.output[0]) == tuple(
                    result_shape) and self.ensure(other):
                candidate = self.values[other]
                if candidate.constant is None and candidate.shape == tuple(result_shape):
                    addend = self.nhwc(candidate)
                    self.fused.add(id(add))
                    last = add
        relu = self.only_consumer(last.output[0], "Relu")
        if relu is not None:
            self.fused.add(id(relu))
            last = relu
        x = self.nhwc(x)
        filter_tensor = self.emit_constant(weight.transpose(2, 3, 1, 0))
        bias_tensor = self.emit_constant(bias)
        physical = _nhwc(result_shape)
        text = "pads = %s, relu = %d : i64, strides = %s" % (
            _i64_array([pads[0], pads[1], pads[2], pads[3]]), relu is not None,
            _i64_array(strides))
        if addend is not None:
            # The sum written over the addend where nothing reads it after
            # (a residual block's shortcut): no new tensor, and the kernel
            # adds in place instead of copying the addend first.
            addend_tensor = self.tensor_of(addend)
            into = addend_tensor if self.may_overwrite(addend, node, {id(add)}) else None
            out, chain = self.call("onnx.conv.add.f32",
                                   [self.tensor_of(x), filter_tensor, bias_tensor, addend_tensor],
                                   physical, text, [x, addend], into=into)
        else:
            out, chain = self.call("onnx.conv.f32", [self.tensor_of(x), filter_tensor, bias_tensor],
                                   physical, text, [x])
        self.values[last.output[0]] = _Value(result_shape, "nhwc", physical, out, chain)

    def ensure(self, name):
        """Whether `name` is computed now, converting the nodes it needs
        first when they can be (a residual Add fused into a convolution may
        need its other branch before the graph's order gets to it)."""
        if name in self.values:
            return True
        producer = self.producers.get(name)
        if producer is None or id(producer) in self.converting or id(producer) in self.fused \
                or id(producer) in self.done:
            return False
        inputs_ready = all([self.ensure(n) for n in producer.input if n])
        if name in self.values:  # made by a kernel its producer was folded into
            return True
        if not inputs_ready:
            return False
        self.convert_node(producer)
        return name in self.values

    def op_BatchNormalization(self, node, attributes):
        self.unused_attributes(node, attributes, {"epsilon", "momentum", "training_mode"})
        if attributes.get("training_mode", 0) or len([o for o in node.output if o]) != 1:
            self.fail(node, "only inference (training_mode 0, one output) is supported")
        x = self.value(node, 0)
        if len(x.shape) != 4:
            self.fail(node, "only NCHW inputs are supported")
        parameters = [self.constant(node, i, what).astype(np.float32) for i, what in
                      ((1, "scale"), (2, "B"), (3, "input_mean"), (4, "input_var"))]
        x = self.nhwc(x)
        out, chain = self.call("onnx.reshape.f32", [self.tensor_of(x)], x.physical, "", [x])
        result = self.name("c")
        self.emit('%s = "eigen.batch_norm.f32"(%s, %s, %s) {epsilon = %s : f32} : (%s) -> %s' %
                  (result, out, ", ".join(self.emit_constant(p) for p in parameters), chain,
                   _f32(attributes.get("epsilon", 1e-5)), ", ".join([TENSOR] * 5 + [CHAIN]),
                   CHAIN))
        self.set_output(node, _Value(x.shape, "nhwc", x.physical, out, result))

    def unary_same_layout(self, node, kernel, attributes_text=""):
        x = self.value(node, 0)
        if x.constant is not None:
            x = self.exact(x)
        out, chain = self.call(kernel, [self.tensor_of(x)], x.physical, attributes_text, [x])
        self.set_output(node, _Value(x.shape, x.layout, x.physical, out, chain))

    def op_Relu(self, node, attributes):
        self.unary_same_layout(node, "tfrt_test.relu.f32")

    def op_Clip(self, node, attributes):
        self.unused_attributes(node, attributes, set())
        bounds = []
        for index, default in ((1, -np.inf), (2, np.inf)):
            if len(node.input) > index and node.input[index]:
                bound = self.constant(node, index, "min and max")
                if bound.size != 1:
                    self.fail(node, "min and max must be scalars")
                bounds.append(float(bound.reshape(())))
            else:
                bounds.append(default)
        self.unary_same_layout(node, "onnx.clip.f32", "max = %s : f32, min = %s : f32" %
                               (_f32(bounds[1]), _f32(bounds[0])))

    def pool(self, node, attributes, kernel, extra):
        x = self.value(node, 0)
        if len(x.shape) != 4:
            self.fail(node, "only 2-D pooling of NCHW inputs is supported")
        if attributes.get("ceil_mode", 0):
            self.fail(node, "ceil_mode 1 is not supported")
        if len(node.output) > 1 and node.output[1]:
            self.fail(node, "the Indices output is not supported")
        if attributes.get("storage_order", 0):
            self.fail(node, "storage_order 1 is not supported")
        kernel_shape = list(attributes["kernel_shape"])
        strides, pads = self.spatial(node, attributes, x.shape[2:], kernel_shape)
        if any(p >= k for p, k in zip(pads, kernel_shape * 2)):
            self.fail(node, "pads %s reach a whole window %s" % (pads, kernel_shape))
        x = self.nhwc(x)
        shape = self.output_shape(node)
        text = "%skernel_shape = %s, pads = %s, strides = %s" % (
            extra, _i64_array(kernel_shape), _i64_array(pads), _i64_array(strides))
        out, chain = self.call(kernel, [self.tensor_of(x)], _nhwc(shape), text, [x])
        self.set_output(node, _Value(shape, "nhwc", _nhwc(shape), out, chain))

    def op_MaxPool(self, node, attributes):
        self.unused_attributes(node, attributes, {"auto_pad", "ceil_mode", "dilations",
                                                  "kernel_shape", "pads", "storage_order",
                                                  "strides"})
        self.pool(node, attributes, "onnx.max_pool.f32", "")

    def op_AveragePool(self, node, attributes):
        self.unused_attributes(node, attributes, {"auto_pad", "ceil_mode", "count_include_pad",
                                                  "kernel_shape", "pads", "strides"})
        self.pool(node, attributes, "onnx.average_pool.f32",
                  "count_include_pad = %d : i64, " % attributes.get("count_include_pad", 0))

    def op_GlobalAveragePool(self, node, attributes):
        x = self.value(node, 0)
        if len(x.shape) != 4:
            self.fail(node, "only NCHW inputs are supported")
        x = self.nhwc(x)
        n, c = x.shape[0], x.shape[1]
        out, chain = self.call("tfrt_test.global_average_pooling.f32", [self.tensor_of(x)],
                               (n, c), "", [x])
        self.set_output(node, _Value((n, c, 1, 1), "plain", (n, c), out, chain))

    def binary(self, node, kernel):
        a, b = self.value(node, 0), self.value(node, 1)
        for value, what in ((a, "A"), (b, "B")):
            self.check_float(node, value, what)
        shape = self.output_shape(node)
        if a.constant is not None and b.constant is not None and a.tensor is None and \
                b.tensor is None:
            operation = {"onnx.add.f32": np.add, "onnx.sub.f32": np.subtract,
                         "onnx.mul.f32": np.multiply, "onnx.div.f32": np.divide}[kernel]
            self.set_output(node, self._constant_value(
                operation(a.constant, b.constant).astype(np.float32), "node"))
            return
        if len(shape) == 4 and "nhwc" in (a.layout, b.layout) and \
                len(a.shape) <= 4 and len(b.shape) <= 4:
            a, b = self.nhwc(a), self.nhwc(b)
            physical = _nhwc(shape)
            layout = "nhwc"
        else:
            a, b = self.exact(a), self.exact(b)
            physical = shape
            layout = "plain"
        out, chain = self.call(kernel, [self.tensor_of(a), self.tensor_of(b)], physical, "",
                               [a, b])
        self.set_output(node, _Value(shape, layout, physical, out, chain))

    def op_Add(self, node, attributes):
        self.binary(node, "onnx.add.f32")

    def op_Sub(self, node, attributes):
        self.binary(node, "onnx.sub.f32")

    def op_Mul(self, node, attributes):
        self.binary(node, "onnx.mul.f32")

    def op_Div(self, node, attributes):
        self.binary(node, "onnx.div.f32")

    def reshape_to(self, node, shape):
        x = self.value(node, 0)
        if x.constant is not None and x.tensor is None:
            self.set_output(node, _Value(shape, constant=x.constant.reshape(shape)))
            return
        x = self.plain(x)
        # The same elements in the same order: the tensor is shared.
        self.set_output(node, _Value(shape, "plain", x.physical, x.tensor, x.chain))

    def op_Flatten(self, node, attributes):
        self.unused_attributes(node, attributes, {"axis"})
        self.reshape_to(node, self.output_shape(node))

    def op_Reshape(self, node, attributes):
        self.unused_attributes(node, attributes, {"allowzero"})
        self.constant(node, 1, "the shape")
        self.reshape_to(node, self.output_shape(node))

    def op_Squeeze(self, node, attributes):
        self.reshape_to(node, self.output_shape(node))

    def op_Unsqueeze(self, node, attributes):
        self.reshape_to(node, self.output_shape(node))

    def op_Transpose(self, node, attributes):
        x = self.value(node, 0)
        perm = list(attributes.get("perm", reversed(range(len(x.shape)))))
        shape = self.output_shape(node)
        if x.constant is not None and x.tensor is None:
            self.set_output(node, _Value(shape, constant=np.ascontiguousarray(
                x.constant.transpose(perm))))
            return
        if x.layout == "nhwc" and perm == [0, 2, 3, 1]:
            self.set_output(node, _Value(shape, "plain", x.physical, x.tensor, x.chain))
            return
        x = self.exact(x)
        out, chain = self.call("onnx.transpose.f32", [self.tensor_of(x)], shape,
                               "perm = %s" % _i64_array(perm), [x])
        self.set_output(node, _Value(shape, "plain", shape, out, chain))

    def op_Concat(self, node, attributes):
        values = [self.value(node, i) for i in range(len(node.input))]
        shape = self.output_shape(node)
        axis = attributes["axis"] % len(shape)
        if len(shape) == 4 and any(v.layout == "nhwc" for v in values):
            values = [self.nhwc(v) for v in values]
            physical, axis = _nhwc(shape), {0: 0, 1: 3, 2: 1, 3: 2}[axis]
            layout = "nhwc"
        else:
            values = [self.exact(v) for v in values]
            physical, layout = shape, "plain"
        out, chain = self.call("onnx.concat.f32", [self.tensor_of(v) for v in values], physical,
                               "axis = %d : i64" % axis, values)
        self.set_output(node, _Value(shape, layout, physical, out, chain))

    def op_Softmax(self, node, attributes):
        x = self.exact(self.value(node, 0))
        axis = attributes.get("axis", -1) % len(x.shape)
        out, chain = self.call("onnx.softmax.f32", [self.tensor_of(x)], x.shape,
                               "axis = %d : i64" % axis, [x])
        self.set_output(node, _Value(x.shape, "plain", x.shape, out, chain))

    def matmul(self, node, a, b, c, alpha, beta, shape):
        """Y = alpha A B + beta C on eigen.matmul.f32 (C broadcast first)."""
        out = self.new_tensor(shape)
        if c is not None and beta != 0.0:
            c = self.exact(c)
            # After A's chain: the model stays one chain of kernels (one
            # stream) instead of handing a copy of a row to another thread.
            chain = self.chain_of([c, a])
            filled = self.name("c")
            self.emit('%s = "onnx.broadcast.f32"(%s, %s, %s) : (%s, %s, %s) -> %s' %
                      (filled, self.tensor_of(c), out, chain, TENSOR, TENSOR, CHAIN, CHAIN))
        else:
            beta = 0.0
            filled = None
            if alpha != 1.0:  # TFRT's matmul reads C when alpha != 1
                filled = self.name("c")
                self.emit("%s = tfrt_dht.fill_tensor_with_constant.f32 %s, %s 0.0 : f32" %
                          (filled, out, self.chain_of([a])))
        alpha_ssa, beta_ssa = self.name("s"), self.name("s")
        self.emit("%s = tfrt.constant.f32 %s" % (alpha_ssa, _f32(alpha)))
        self.emit("%s = tfrt.constant.f32 %s" % (beta_ssa, _f32(beta)))
        # (C's fill waited for A's chain.)
        inputs = [b, _Value((), chain=filled)] if filled else [a, b]
        chain = self.chain_of(inputs)
        result = self.name("c")
        self.emit('%s = "eigen.matmul.f32"(%s, %s, %s, %s, %s, %s) : (f32, %s, %s, f32, %s, %s)'
                  ' -> %s' % (result, alpha_ssa, self.tensor_of(a), self.tensor_of(b), beta_ssa,
                              out, chain, TENSOR, TENSOR, TENSOR, CHAIN, CHAIN))
        self.set_output(node, _Value(shape, "plain", shape, out, result))

    def op_Gemm(self, node, attributes):
        self.unused_attributes(node, attributes, {"alpha", "beta", "transA", "transB"})
        a, b = self.value(node, 0), self.value(node, 1)
        c = self.value(node, 2) if len(node.input) > 2 else None
        for value, what in ((a, "A"), (b, "B"), (c, "C")):
            if value is not None:
                self.check_float(node, value, what)
        a = self.exact(a)
        if attributes.get("transA", 0):
            out, chain = self.call("onnx.transpose.f32", [self.tensor_of(a)], a.shape[::-1],
                                   "perm = [1 : i64, 0 : i64]", [a])
            a = _Value(a.shape[::-1], "plain", a.shape[::-1], out, chain)
        if b.constant is not None and b.tensor is None:
            matrix = b.constant.T if attributes.get("transB", 0) else b.constant
            b = _Value(matrix.shape, constant=np.ascontiguousarray(matrix, dtype=np.float32))
        else:
            b = self.exact(b)
            if attributes.get("transB", 0):
                out, chain = self.call("onnx.transpose.f32", [self.tensor_of(b)], b.shape[::-1],
                                       "perm = [1 : i64, 0 : i64]", [b])
                b = _Value(b.shape[::-1], "plain", b.shape[::-1], out, chain)
        self.matmul(node, a, b, c, float(attributes.get("alpha", 1.0)),
                    float(attributes.get("beta", 1.0)), self.output_shape(node))

    def op_MatMul(self, node, attributes):
        a, b = self.value(node, 0), self.value(node, 1)
        if len(a.shape) != 2 or len(b.shape) != 2:
            self.fail(node, "only products of two matrices (rank 2) are supported, not %s x %s"
                      % (list(a.shape), list(b.shape)))
        for value, what in ((a, "A"), (b, "B")):
            self.check_float(node, value, what)
        self.matmul(node, self.exact(a), self.exact(b), None, 1.0, 0.0, self.output_shape(node))

    # ---- the program

    def run(self):
        arguments = []
        for index, value in enumerate(self.inputs):
            ssa = "%%input%d" % index
            shape = self.shapes[value.name]
            arguments.append("%s: %s" % (ssa, TENSOR))
            self.values[value.name] = _Value(shape, "plain", shape, ssa, None)
        self.emit("%ch0 = tfrt.new.chain")
        for node in self.graph.node:
            self.convert_node(node)
        results = []
        for output in self.graph.output:
            if output.name not in self.values:
                raise ConversionError("output '%s' is not computed by any node" % output.name)
            value = self.values[output.name]
            if output.type.tensor_type.elem_type != 1:
                raise ConversionError("output '%s': only float32 tensors are supported" %
                                      output.name)
            value = self.exact(value)
            self.tensor_of(value)
            results.append(value)
        chain = self.chain_of(results)
        names = [v.tensor for v in results] + [chain]
        types = [TENSOR] * len(results) + [CHAIN]
        self.emit("tfrt.return %s : %s" % (", ".join(names), ", ".join(types)))
        text = "\n".join(
            ["// Converted by onnx-to-bef from the ONNX graph '%s'." % self.graph.name,
             "func.func @%s(%s) -> (%s) {" % (self.entry, ", ".join(arguments), ", ".join(types))]
            + self.lines + ["}", ""])
        config = {
            "entry_function": self.entry,
            "inputs": [{"name": v.name, "datatype": "FP32", "shape": list(self.shapes[v.name])}
                       for v in self.inputs],
            "outputs": [{"name": o.name, "datatype": "FP32", "shape": list(v.shape)}
                        for o, v in zip(self.graph.output, results)],
        }
        return text, config


SUPPORTED_OPERATORS = sorted(
    name[3:] for name in dir(_Converter) if name.startswith("op_"))


def _load(model):
    import onnx
    if isinstance(model, (str, os.PathLike)):
        try:
            return onnx.load(os.fspath(model))
        except Exception as error:
            raise ConversionError("%s: not an ONNX model (%s)" % (os.fspath(model), error)) \
                from None
    if isinstance(model, (bytes, bytearray)):
        return onnx.ModelProto.FromString(bytes(model))
    if isinstance(model, onnx.ModelProto):
        return model
    raise TypeError("model must be a path, bytes or an onnx.ModelProto, not %s" %
                    type(model).__name__)


def convert(model, *, batch=None, entry_function="main"):
    """The MLIR text of `model` (a path, bytes or onnx.ModelProto) and the
    bef_serve config.json (a dict) that goes with it."""
    return _Converter(_load(model), batch, entry_function).run()


def onnx_to_bef(model, *, repository, name, version=1, batch=None, entry_function="main"):
    """Writes `repository`/`name`/config.json and
    `repository`/`name`/`version`/model.bef; returns the version's
    directory."""
    from bef import converter
    if not isinstance(version, int) or version < 1:
        raise ValueError("version must be a positive integer, not %r" % (version,))
    if not name or "/" in name or name in (".", ".."):
        raise ValueError("name must be one path component, not %r" % (name,))
    text, config = convert(model, batch=batch, entry_function=entry_function)
    data = converter.mlir_to_bef(text, name=str(name) + ".mlir")
    model_dir = os.path.join(os.fspath(repository), name)
    version_dir = os.path.join(model_dir, str(version))
    os.makedirs(version_dir, exist_ok=True)
    _write(os.path.join(version_dir, "model.bef"), data)
    _write(os.path.join(model_dir, "config.json"),
           (json.dumps(config, indent=1) + "\n").encode())
    return version_dir


def _write(path, data):
    """Replaces `path` whole (a server polling the repository never reads
    half a file)."""
    temporary = path + ".tmp%d" % os.getpid()
    with open(temporary, "wb") as f:
        f.write(data)
    os.replace(temporary, path)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="onnx-to-bef",
        description="Converts an ONNX model into a BEF program and a bef_serve repository "
                    "version: DIR/NAME/config.json and DIR/NAME/N/model.bef.")
    parser.add_argument("model", help="the .onnx file")
    parser.add_argument("--repository", help="the repository directory (DIR)")
    parser.add_argument("--name", help="the model's name in the repository (NAME)")
    parser.add_argument("--version", type=int, default=1, help="the version N (default 1)")
    parser.add_argument("--batch", type=int, help="the size of dynamic input dimensions")
    parser.add_argument("--entry-function", default="main")
    parser.add_argument("--emit-mlir", metavar="FILE",
                        help="also write the MLIR text ('-': standard output)")
    options = parser.parse_args(argv)
    if options.repository is None and options.emit_mlir is None:
        parser.error("give --repository DIR --name NAME, or --emit-mlir FILE")
    if (options.repository is None) != (options.name is None):
        parser.error("--repository and --name go together")
    if options.batch is not None and options.batch < 1:
        parser.error("--batch must be at least 1")
    try:
        if options.emit_mlir is not None:
            text, _ = convert(options.model, batch=options.batch,
                              entry_function=options.entry_function)
            if options.emit_mlir == "-":
                sys.stdout.write(text)
            else:
                with open(options.emit_mlir, "w") as f:
                    f.write(text)
        if options.repository is not None:
            path = onnx_to_bef(options.model, repository=options.repository, name=options.name,
                               version=options.version, batch=options.batch,
                               entry_function=options.entry_function)
            print("onnx-to-bef: wrote %s and %s" % (
                os.path.join(path, "model.bef"),
                os.path.join(os.path.dirname(path), "config.json")))
    except ConversionError as error:
        print("onnx-to-bef: %s: %s" % (options.model, error), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
