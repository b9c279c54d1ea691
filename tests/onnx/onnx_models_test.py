"""ONNX models converted by onnx-to-bef against ONNX Runtime 1.30 (npm
onnxruntime-node, CPU), as users run them: the installed `bef` package
(bef.onnx_to_bef, the onnx-to-bef command), bef_executor, and bef_serve over
HTTP with binary tensors and over gRPC.

Models (Inputs/models.py, random weights, fixed seeds): the MLP
784-512-256-10, a ResNet-18-shaped CNN at 224x224 and a small model of the
other operators. Inputs are random normal; outputs must agree within the
issue's tolerance, measured against the output's scale:
max |ours - ONNX Runtime| <= tolerance * max |ONNX Runtime| (1e-5 for the
MLP, 1e-4 for the CNNs).

    onnx_test.sh WHEEL BEF_EXECUTOR MLIR_TO_BEF BEF_SERVE   (BUILD: onnx_models_test)
"""
import glob
import http.client
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "Inputs"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "serving"))
# The gRPC stubs generated from the .proto, at the runfiles' root.
sys.path.insert(0, os.environ.get("BEF_RUNFILES", os.path.dirname(os.path.dirname(HERE))))
import models  # noqa: E402
import serving_testlib  # noqa: E402

import bef  # noqa: E402  (the installed wheel)
from bef import onnx_converter  # noqa: E402

BEF_EXECUTOR = os.environ["BEF_EXECUTOR"]
MLIR_TO_BEF = os.environ["BEF_MLIR_TO_BEF"]
BEF_SERVE = os.environ["BEF_SERVE"]
ONNX_TO_BEF = os.environ["BEF_ONNX_TO_BEF"]  # the command the wheel installed
RUN_ONNXRUNTIME = os.path.join(HERE, "Inputs", "run_onnxruntime.js")
# Under the sanitizers the CNN runs only at batch 1 (ASan makes our own
# kernels several times slower; oneDNN's plugin is not instrumented).
INSTRUMENTED = "ASAN_OPTIONS" in os.environ or "TSAN_OPTIONS" in os.environ

SCRATCH = tempfile.mkdtemp(prefix="onnx_models_test.")
_models = {}


def model_path(name):
    """The model's .onnx file (dynamic batch), built once."""
    if name not in _models:
        path = os.path.join(SCRATCH, name + ".onnx")
        import onnx
        onnx.save(models.MODELS[name](), path)
        _models[name] = path
    return _models[name]


def random_input(shape, seed=11):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def onnxruntime(model, x, threads=1):
    """ONNX Runtime's output for input `x`."""
    directory = tempfile.mkdtemp(dir=SCRATCH)
    x.tofile(os.path.join(directory, "in.f32"))
    # node is not instrumented: no sanitizer runtime preloaded into it.
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "PYTHONMALLOC")}
    subprocess.run(["node", RUN_ONNXRUNTIME, model, os.path.join(directory, "in.f32"),
                    ",".join(map(str, x.shape)), os.path.join(directory, "out.f32"),
                    str(threads)], check=True, timeout=600, env=env)
    return np.fromfile(os.path.join(directory, "out.f32"), np.float32)


def relative_error(ours, reference):
    ours = np.asarray(ours, np.float64).ravel()
    reference = np.asarray(reference, np.float64).ravel()
    if ours.shape != reference.shape:
        return float("inf")
    return float(np.max(np.abs(ours - reference)) / max(np.max(np.abs(reference)), 1e-30))


class ModelsTest(unittest.TestCase):
    """bef.onnx_to_bef into a repository, run from Python, against ONNX Runtime."""

    def check_python(self, name, batch, tolerance, work_queue="s"):
        repository = tempfile.mkdtemp(dir=SCRATCH)
        version = bef.onnx_to_bef(model_path(name), repository=repository, name=name,
                                  batch=batch)
        with open(os.path.join(repository, name, "config.json")) as f:
            config = json.load(f)
        shape = config["inputs"][0]["shape"]
        self.assertEqual(shape[0], batch)
        x = random_input(shape)
        program = bef.load(os.path.join(version, "model.bef"), work_queue=work_queue)
        ours = program.run(config["entry_function"], x)  # the one output (chains left out)
        self.assertEqual(list(ours.shape), config["outputs"][0]["shape"])
        reference = onnxruntime(model_path(name), x)
        error = relative_error(ours, reference)
        self.assertLessEqual(error, tolerance, "%s batch %d on %s" % (name, batch, work_queue))
        return error

    def test_mlp_batch_1_and_8(self):
        for batch in (1, 8):
            self.check_python("mlp", batch, 1e-5)
        self.check_python("mlp", 8, 1e-5, work_queue="mstd:2")

    def test_resnet18_batch_1_and_8(self):
        self.check_python("resnet18", 1, 1e-4, work_queue="mstd:2")
        if not INSTRUMENTED:
            self.check_python("resnet18", 8, 1e-4, work_queue="mstd:2")

    def test_convolution_pads_of_every_kind(self):
        """Pads that are not symmetric, auto_pad SAME_UPPER and SAME_LOWER
        with an odd total, strides 2: explicit pads in onnx.conv.f32."""
        import onnx
        from onnx import TensorProto, helper, numpy_helper
        random = np.random.default_rng(4)
        for name, attributes in (("lopsided", {"pads": [0, 1, 2, 0]}),
                                 ("upper", {"auto_pad": "SAME_UPPER"}),
                                 ("lower", {"auto_pad": "SAME_LOWER"})):
            weight = numpy_helper.from_array(
                random.standard_normal((5, 3, 3, 3)).astype(np.float32), "w")
            bias = numpy_helper.from_array(random.standard_normal(5).astype(np.float32), "b")
            graph = helper.make_graph(
                [helper.make_node("Conv", ["x", "w", "b"], ["y"], name=name, kernel_shape=[3, 3],
                                  strides=[2, 2], **attributes)],
                name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 10, 9])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [weight, bias])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
            path = os.path.join(SCRATCH, name + ".onnx")
            onnx.save(model, path)
            text, config = onnx_converter.convert(path)
            x = random_input([2, 3, 10, 9], seed=7)
            ours = bef.load(bef.mlir_to_bef(text)).run("main", x)
            self.assertLessEqual(relative_error(ours, onnxruntime(path, x)), 1e-5, name)

    def test_every_other_operator(self):
        for batch in (1, 3):
            self.check_python("operators", batch, 1e-5)
        self.check_python("operators", 2, 1e-5, work_queue="mstd:2")


class ExecutorTest(unittest.TestCase):
    """The converted program run by bef_executor: a driver function reads
    the input and ONNX Runtime's output from a BTF file, calls the model and
    prints the first values and the mean squares of the difference and of
    the reference."""

    def btf(self, path, arrays):
        records = []
        for array in arrays:
            array = np.ascontiguousarray(array, np.float32)
            body = struct.pack("<QBB6x", array.ndim, 4, 0) + struct.pack(
                "<%dQ" % array.ndim, *array.shape) + array.astype("<f4").tobytes()
            records.append(body + b"\0" * (-len(body) % 8))
        offsets, offset = [], 8 + 8 * len(records)
        for body in records:
            offsets.append(offset)
            offset += len(body)
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", len(records)) + struct.pack("<%dQ" % len(records), *offsets))
            for body in records:
                f.write(body)

    def run_executor(self, name, batch, tolerance):
        text, config = onnx_converter.convert(model_path(name), batch=batch)
        shape = config["inputs"][0]["shape"]
        out_shape = config["outputs"][0]["shape"]
        x = random_input(shape, seed=3)
        reference = onnxruntime(model_path(name), x).reshape(out_shape)
        directory = tempfile.mkdtemp(dir=SCRATCH)
        btf = os.path.join(directory, "io.btf")
        self.btf(btf, [x, reference])
        count = int(np.prod(out_shape))
        rank = len(shape)
        driver = """
func.func @check() -> !tfrt.chain {
  %%ch0 = tfrt.new.chain
  %%path = "tfrt_test.get_string"() {value = "%s"} : () -> !tfrt.string
  %%zero = tfrt.constant.i32 0
  %%one = tfrt.constant.i32 1
  %%x = "btf.read_dense_tensor.f32.%d"(%%path, %%zero) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %%expected = "btf.read_dense_tensor.f32.%d"(%%path, %%one) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %%y, %%ready = tfrt.call @main(%%x) : (!tfrt_tensor.tensor) -> (!tfrt_tensor.tensor, !tfrt.chain)
  %%printed = tfrt_dht.print_tensor %%y, %%ready
  %%difference = tfrt_dht.create_uninitialized_tensor.f32.1 [%d : i64]
  %%flat = tfrt_dht.create_uninitialized_tensor.f32.1 [%d : i64]
  %%c1 = "onnx.reshape.f32"(%%y, %%flat, %%ready) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %%wanted = tfrt_dht.create_uninitialized_tensor.f32.1 [%d : i64]
  %%c2 = "onnx.reshape.f32"(%%expected, %%wanted, %%c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %%c3 = "onnx.sub.f32"(%%flat, %%wanted, %%difference, %%c2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %%c4 = "onnx.mul.f32"(%%difference, %%difference, %%difference, %%c3) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %%c5 = "onnx.mul.f32"(%%wanted, %%wanted, %%wanted, %%c4) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %%error = "tfrt_test.reduce_mean.f32.1"(%%difference, %%c5) : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt_tensor.tensor
  %%scale = "tfrt_test.reduce_mean.f32.1"(%%wanted, %%c5) : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt_tensor.tensor
  %%p1 = tfrt_dht.print_tensor %%error, %%printed
  %%p2 = tfrt_dht.print_tensor %%scale, %%p1
  tfrt.return %%p2 : !tfrt.chain
}
""" % (btf, rank, len(out_shape), count, count, count)
        mlir = os.path.join(directory, name + ".mlir")
        with open(mlir, "w") as f:
            f.write(text + driver)
        program = os.path.join(directory, name + ".bef")
        subprocess.run([MLIR_TO_BEF, mlir, "-o", program], check=True, timeout=600)
        result = subprocess.run([BEF_EXECUTOR, "--functions=check",
                                 "--work_queue_type=mstd:2", program],
                                capture_output=True, text=True, timeout=600)
        self.assertEqual(result.returncode, 0, result.stderr)
        printed = re.findall(r"values = \[([^\]]*)\]", result.stdout)
        self.assertEqual(len(printed), 3, result.stdout)
        first = [float(v) for v in printed[0].replace(", ...", "").split(",")]
        self.assertLessEqual(relative_error(first, reference.ravel()[:len(first)]), tolerance,
                             result.stdout)
        mean_square_error, mean_square = float(printed[1]), float(printed[2])
        self.assertLessEqual(np.sqrt(mean_square_error), tolerance * np.sqrt(mean_square),
                             result.stdout)

    def test_mlp(self):
        self.run_executor("mlp", 1, 1e-5)
        self.run_executor("mlp", 8, 1e-5)

    def test_resnet18(self):
        self.run_executor("resnet18", 1, 1e-4)


class ServingTest(serving_testlib.RepositoryTestCase):
    """A repository version written by the onnx-to-bef command, served by
    bef_serve: HTTP with binary tensors (the binary-data extension) and gRPC
    ModelInfer with raw contents."""
    bef_serve = BEF_SERVE

    def convert(self, name, batch):
        result = subprocess.run([ONNX_TO_BEF, model_path(name), "--repository", self.root,
                                 "--name", name, "--batch", str(batch)],
                                capture_output=True, text=True, timeout=600)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("config.json", result.stdout)

    def http_binary(self, server, name, x):
        raw = x.astype("<f4").tobytes()
        header = json.dumps({"inputs": [{"name": "input", "shape": list(x.shape),
                                         "datatype": "FP32",
                                         "parameters": {"binary_data_size": len(raw)}}],
                             "outputs": [{"name": "logits",
                                          "parameters": {"binary_data": True}}]}).encode()
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        connection.request("POST", "/v2/models/%s/infer" % name, body=header + raw,
                           headers={"Inference-Header-Content-Length": str(len(header)),
                                    "Content-Type": "application/octet-stream"})
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        self.assertEqual(response.status, 200, payload[:300])
        length = int(response.getheader("Inference-Header-Content-Length"))
        answer = json.loads(payload[:length])
        self.assertEqual(answer["outputs"][0]["name"], "logits")
        self.assertEqual(answer["outputs"][0]["datatype"], "FP32")
        return answer["outputs"][0]["shape"], np.frombuffer(payload[length:], "<f4")

    def grpc(self, server, name, x):
        import grpc
        from tools.serving import grpc_predict_v2_pb2 as pb2
        from tools.serving import grpc_predict_v2_pb2_grpc as pb2_grpc
        request = pb2.ModelInferRequest(model_name=name)
        tensor = request.inputs.add(name="input", datatype="FP32")
        tensor.shape.extend(x.shape)
        request.raw_input_contents.append(x.astype("<f4").tobytes())
        with grpc.insecure_channel("127.0.0.1:%d" % server.grpc_port) as channel:
            reply = pb2_grpc.GRPCInferenceServiceStub(channel).ModelInfer(request, timeout=120)
        self.assertEqual(reply.outputs[0].name, "logits")
        return list(reply.outputs[0].shape), np.frombuffer(reply.raw_output_contents[0], "<f4")

    def check_served(self, name, batches, tolerance):
        for batch in batches:
            self.convert(name, batch)
            server = self.serve("--grpc_port=0")
            status, metadata = server.request("GET", "/v2/models/%s" % name)
            self.assertEqual(status, 200, metadata)
            self.assertEqual(metadata["inputs"],
                             [{"name": "input", "datatype": "FP32",
                               "shape": [batch] + list(metadata["inputs"][0]["shape"][1:])}])
            x = random_input(metadata["inputs"][0]["shape"], seed=batch)
            reference = onnxruntime(model_path(name), x)
            for client in (self.http_binary, self.grpc):
                shape, ours = client(server, name, x)
                self.assertEqual(shape[0], batch)
                self.assertLessEqual(relative_error(ours, reference), tolerance, client.__name__)
            server.stop()
            self.server = None
            shutil.rmtree(os.path.join(self.root, name))

    def test_mlp_over_http_and_grpc(self):
        self.check_served("mlp", (1, 8), 1e-5)

    def test_resnet18_over_http_and_grpc(self):
        self.check_served("resnet18", (1,) if INSTRUMENTED else (1, 8), 1e-4)


class InPlaceAddTest(unittest.TestCase):
    """A residual Add folded into a convolution writes its sum over the
    addend when nothing reads the addend after it, and only then."""

    def block(self, extra_outputs=(), later_reader=False):
        """x -> a = Relu(Conv(x)) -> b = Relu(Conv(a)) -> Conv(b) + a: the
        addend `a` is read by the convolution before (an ancestor) and the
        Add; optionally a graph output too, or read by a Mul after."""
        from onnx import TensorProto, helper, numpy_helper
        rng = np.random.default_rng(3)

        def weight(name):
            return numpy_helper.from_array(
                rng.standard_normal((4, 4, 3, 3)).astype(np.float32) * 0.2, name)

        conv = dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], **conv),
                 helper.make_node("Relu", ["c1"], ["a"]),
                 helper.make_node("Conv", ["a", "w2"], ["c2"], **conv),
                 helper.make_node("Relu", ["c2"], ["b"]),
                 helper.make_node("Conv", ["b", "w3"], ["c3"], **conv),
                 helper.make_node("Add", ["c3", "a"], ["s"])]
        outputs = ["s"] + list(extra_outputs)
        if later_reader:
            nodes.append(helper.make_node("Mul", ["a", "s"], ["t"]))
            outputs = ["t"]
        shape = [1, 4, 5, 5]
        graph = helper.make_graph(
            nodes, "block", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, shape) for o in outputs],
            [weight("w1"), weight("w2"), weight("w3")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        text, _ = onnx_converter.convert(model)
        sums = [line for line in text.splitlines() if '"onnx.conv.add.f32"' in line]
        self.assertEqual(len(sums), 1, text)
        operands = re.search(r"\((.*?)\) \{", sums[0]).group(1).split(", ")
        x = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
        results = bef.load(bef.mlir_to_bef(text)).run("main", x)
        results = results if isinstance(results, tuple) else (results,)
        return operands[3] == operands[4], model, x, results

    def expected(self, model, x):
        """The block in numpy (float64), each graph output by name."""
        from onnx import numpy_helper
        weights = {t.name: numpy_helper.to_array(t).astype(np.float64)
                   for t in model.graph.initializer}

        def conv(image, w):  # NCHW, 3x3, pads 1, stride 1
            padded = np.pad(image, ((0, 0), (0, 0), (1, 1), (1, 1)))
            h, w_ = image.shape[2:]
            windows = np.stack([padded[:, :, i:i + h, j:j + w_]
                                for i in range(3) for j in range(3)], axis=-1)
            return np.einsum("nchwk,ock->nohw", windows, w.reshape(w.shape[0], w.shape[1], 9))

        values = {"x": x.astype(np.float64)}
        values["a"] = np.maximum(conv(values["x"], weights["w1"]), 0)
        values["b"] = np.maximum(conv(values["a"], weights["w2"]), 0)
        values["s"] = conv(values["b"], weights["w3"]) + values["a"]
        values["t"] = values["a"] * values["s"]
        return [values[o.name] for o in model.graph.output]

    def test_the_sum_goes_over_an_addend_nothing_reads_after(self):
        in_place, model, x, results = self.block()
        self.assertTrue(in_place)
        np.testing.assert_allclose(results[0], self.expected(model, x)[0], rtol=1e-5, atol=1e-5)

    def test_not_over_a_graph_output_or_a_value_read_later(self):
        for options in ({"extra_outputs": ["a"]}, {"later_reader": True}):
            in_place, model, x, results = self.block(**options)
            self.assertFalse(in_place, options)
            for ours, theirs in zip(results, self.expected(model, x)):
                np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


class ConversionErrorsTest(unittest.TestCase):
    """What the converter cannot carry over is an error naming the node,
    the operator and why."""

    def model(self, nodes, inputs, outputs, initializers=(), opset=13):
        from onnx import helper
        graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])

    def tensor(self, name, shape):
        from onnx import TensorProto, helper
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)

    def assert_error(self, model, text, **options):
        with self.assertRaises(onnx_converter.ConversionError) as raised:
            onnx_converter.convert(model, **options)
        self.assertIn(text, str(raised.exception))

    def test_an_unsupported_operator_names_the_node(self):
        from onnx import helper
        model = self.model([helper.make_node("Sin", ["x"], ["y"], name="the_sine")],
                           [self.tensor("x", [2, 3])], [self.tensor("y", [2, 3])])
        self.assert_error(model, "node 'the_sine' (Sin): the operator is not supported")

    def test_unsupported_attributes_and_forms(self):
        from onnx import helper, numpy_helper
        weight = numpy_helper.from_array(np.ones((4, 2, 3, 3), np.float32), "w")
        grouped = self.model([helper.make_node("Conv", ["x", "w"], ["y"], name="grouped",
                                               group=2, kernel_shape=[3, 3])],
                             [self.tensor("x", [1, 4, 8, 8])], [self.tensor("y", [1, 4, 6, 6])],
                             [weight])
        self.assert_error(grouped, "node 'grouped' (Conv): group 2 is not supported")
        weight = numpy_helper.from_array(np.ones((4, 4, 3, 3), np.float32), "w")
        dilated = self.model([helper.make_node("Conv", ["x", "w"], ["y"], name="dilated",
                                               kernel_shape=[3, 3], dilations=[2, 2])],
                             [self.tensor("x", [1, 4, 8, 8])], [self.tensor("y", [1, 4, 4, 4])],
                             [weight])
        self.assert_error(dilated, "node 'dilated' (Conv): dilations [2, 2] are not supported")
        ceil = self.model([helper.make_node("MaxPool", ["x"], ["y"], name="ceil",
                                            kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)],
                          [self.tensor("x", [1, 4, 5, 5])], [self.tensor("y", [1, 4, 3, 3])])
        self.assert_error(ceil, "node 'ceil' (MaxPool): ceil_mode 1 is not supported")
        batched = self.model([helper.make_node("MatMul", ["x", "x"], ["y"], name="batched")],
                             [self.tensor("x", [2, 3, 3])], [self.tensor("y", [2, 3, 3])])
        self.assert_error(batched, "node 'batched' (MatMul): only products of two matrices")

    def test_dynamic_batch_needs_a_size_and_old_opsets_are_refused(self):
        from onnx import helper
        relu = [helper.make_node("Relu", ["x"], ["y"], name="r")]
        dynamic = self.model(relu, [self.tensor("x", ["N", 3])], [self.tensor("y", ["N", 3])])
        self.assert_error(dynamic, "input 'x' has a dynamic dimension 'N' (axis 0): pass batch=")
        text, config = onnx_converter.convert(dynamic, batch=4)
        self.assertEqual(config["inputs"], [{"name": "x", "datatype": "FP32", "shape": [4, 3]}])
        old = self.model(relu, [self.tensor("x", [2, 3])], [self.tensor("y", [2, 3])], opset=11)
        self.assert_error(old, "the model uses ONNX opset 11")

    def test_the_command_reports_errors_and_writes_nothing(self):
        from onnx import helper
        import onnx
        model = self.model([helper.make_node("Sin", ["x"], ["y"], name="s")],
                           [self.tensor("x", [2])], [self.tensor("y", [2])])
        directory = tempfile.mkdtemp(dir=SCRATCH)
        path = os.path.join(directory, "sin.onnx")
        onnx.save(model, path)
        result = subprocess.run([ONNX_TO_BEF, path, "--repository", directory, "--name", "m"],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 1)
        self.assertIn("node 's' (Sin): the operator is not supported", result.stderr)
        self.assertFalse(os.path.exists(os.path.join(directory, "m")))
        result = subprocess.run([ONNX_TO_BEF, os.path.join(directory, "missing.onnx"),
                                 "--emit-mlir", "-"], capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 1)
        self.assertIn("not an ONNX model", result.stderr)


if __name__ == "__main__":
    try:
        unittest.main(argv=[sys.argv[0], "-v"])
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
