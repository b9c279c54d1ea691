#!/usr/bin/env python3
"""The Open Inference Protocol (KServe V2) over HTTP: bef_serve on a model
repository built from the test programs, driven by http.client and curl.

usage: inference_protocol_test.py BEF_SERVE SERVE_TEST.bef ADD_V2.bef
"""
import http.client
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serving_testlib  # noqa: E402

BEF_SERVE = PROGRAM = ADD_V2 = None

# model name -> (entry function, config fields)
MODELS = {
    "add": ("add", {"inputs": [{"name": "a"}, {"name": "b"}], "outputs": [{"name": "sum"}]}),
    "scalars": ("scalars", {}),
    "echo": ("echo_tensor", {"inputs": [{"name": "x"}], "outputs": [{"name": "y"}]}),
    "fill": ("fill", {"inputs": [{"name": "t", "datatype": "FP32", "shape": [-1, -1]}]}),
    # No datatype declared: the kernel checks the tensor's dtype itself (a
    # kernel's error, 500, with its location).
    "fill_any": ("fill", {}),
    "fail": ("fail", {}),
    "spin": ("spin", {}),
}


def make_repository(root):
    for name, (entry, config) in MODELS.items():
        os.makedirs(os.path.join(root, name, "1"))
        shutil.copy(PROGRAM, os.path.join(root, name, "1", "model.bef"))
        with open(os.path.join(root, name, "config.json"), "w") as f:
            json.dump(dict(config, entry_function=entry), f)


def infer(server, model, body, version=None, headers=None):
    path = "/v2/models/%s%s/infer" % (model, "/versions/%s" % version if version else "")
    return server.request("POST", path, body, headers=headers)


class ProtocolTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp()
        make_repository(cls.root)
        cls.server = serving_testlib.Server(BEF_SERVE, None, "--model_repository=" + cls.root)

    @classmethod
    def tearDownClass(cls):
        code, out, err, _ = cls.server.stop()
        shutil.rmtree(cls.root)
        assert code == 0 and "bef_serve: stopped" in out, (code, out, err)

    def test_health_and_server_metadata(self):
        self.assertEqual(self.server.request("GET", "/v2/health/live"), (200, ""))
        self.assertEqual(self.server.request("GET", "/v2/health/ready"), (200, ""))
        status, body = self.server.request("GET", "/v2")
        self.assertEqual(status, 200)
        self.assertEqual(body["name"], "bef_serve")
        self.assertIn("binary_tensor_data", body["extensions"])
        self.assertIn("model_repository", body["extensions"])

    def test_model_metadata_comes_from_the_signature(self):
        status, body = self.server.request("GET", "/v2/models/add")
        self.assertEqual(status, 200)
        self.assertEqual(body, {"name": "add", "versions": ["1"], "platform": "bef",
                                "inputs": [{"name": "a", "datatype": "INT32", "shape": []},
                                           {"name": "b", "datatype": "INT32", "shape": []}],
                                "outputs": [{"name": "sum", "datatype": "INT32", "shape": []}]})
        status, body = self.server.request("GET", "/v2/models/scalars/versions/1")
        self.assertEqual([(t["name"], t["datatype"]) for t in body["inputs"]],
                         [("input_0", "BOOL"), ("input_1", "INT64"), ("input_2", "FP32"),
                          ("input_3", "FP64"), ("input_4", "BYTES")])
        # The chain argument and result are the server's business.
        status, body = self.server.request("GET", "/v2/models/fill")
        self.assertEqual(body["inputs"], [{"name": "t", "datatype": "FP32", "shape": [-1, -1]}])
        self.assertEqual(body["outputs"], [{"name": "output_0", "datatype": "", "shape": [-1]}])
        self.assertEqual(self.server.request("GET", "/v2/models/add/ready"), (200, ""))
        self.assertEqual(self.server.request("GET", "/v2/models/add/versions/1/ready"), (200, ""))

    def test_json_inference(self):
        status, body = infer(self.server, "add", {
            "id": "r1", "inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [40]},
                                   {"name": "b", "shape": [1], "datatype": "INT32", "data": [2]}]})
        self.assertEqual(status, 200, body)
        self.assertEqual(body, {"model_name": "add", "model_version": "1", "id": "r1",
                                "outputs": [{"name": "sum", "datatype": "INT32", "shape": [],
                                             "data": [42]}]})
        status, body = infer(self.server, "scalars", {"inputs": [
            {"name": "input_0", "shape": [], "datatype": "BOOL", "data": [True]},
            {"name": "input_1", "shape": [], "datatype": "INT64", "data": [-9000000000]},
            {"name": "input_2", "shape": [], "datatype": "FP32", "data": [1.5]},
            {"name": "input_3", "shape": [], "datatype": "FP64", "data": [0.25]},
            {"name": "input_4", "shape": [], "datatype": "BYTES", "data": ["word"]}]})
        self.assertEqual(status, 200, body)
        self.assertEqual([o["data"] for o in body["outputs"]],
                         [[True], [-9000000000], [1.5], [0.25], ["word"]])

    def test_answers_are_compact_json_with_sorted_keys(self):
        # The encoder writes text directly (no tree): the bytes are what a
        # JSON library's compact, key-sorted dump gives, escapes included.
        def raw_answer(model, body, headers=None):
            connection = self.server.connection()
            connection.request("POST", "/v2/models/%s/infer" % model, body=body,
                               headers=headers or {"Content-Type": "application/json"})
            response = connection.getresponse()
            payload = response.read()
            connection.close()
            self.assertEqual(response.status, 200, payload)
            return response, payload
        _, payload = raw_answer("add", json.dumps({
            "id": "r\"1\\\t\u00e9", "inputs": [
                {"name": "a", "shape": [], "datatype": "INT32", "data": [40]},
                {"name": "b", "shape": [1], "datatype": "INT32", "data": [2]}]}))
        text = payload.decode()
        self.assertEqual(text, json.dumps(json.loads(text), sort_keys=True,
                                          separators=(",", ":"), ensure_ascii=False))
        self.assertEqual(json.loads(text)["id"], "r\"1\\\t\u00e9")
        _, payload = raw_answer("echo", json.dumps({
            "inputs": [{"name": "x", "shape": [2], "datatype": "BYTES",
                        "data": ["a\"b", "\u0001\u00e9"]}]}))
        text = payload.decode()
        self.assertEqual(text, json.dumps(json.loads(text), sort_keys=True,
                                          separators=(",", ":"), ensure_ascii=False))
        header = json.dumps({"inputs": [{"name": "x", "shape": [1, 2], "datatype": "INT32",
                                         "data": [[1, 2]]}],
                             "outputs": [{"name": "y", "parameters": {"binary_data": True}}]})
        response, payload = raw_answer("echo", header)
        json_length = int(response.getheader("Inference-Header-Content-Length"))
        text = payload[:json_length].decode()
        self.assertEqual(text, '{"model_name":"echo","model_version":"1","outputs":[{"datatype":'
                               '"INT32","name":"y","parameters":{"binary_data_size":8},'
                               '"shape":[1,2]}]}')
        self.assertEqual(payload[json_length:], struct.pack("<2i", 1, 2))

    def test_tensors_flat_and_nested(self):
        for data in ([1, 2, 3, 4, 5, 6], [[1, 2, 3], [4, 5, 6]]):
            status, body = infer(self.server, "echo", {"inputs": [
                {"name": "x", "shape": [2, 3], "datatype": "FP32", "data": data}]})
            self.assertEqual(status, 200, body)
            self.assertEqual(body["outputs"], [{"name": "y", "datatype": "FP32", "shape": [2, 3],
                                                "data": [1, 2, 3, 4, 5, 6]}])
        for datatype, data in [("BOOL", [True, False]), ("INT8", [-128, 127]),
                               ("UINT64", [0, 2 ** 64 - 1]), ("BYTES", ["a", ""])]:
            status, body = infer(self.server, "echo", {"inputs": [
                {"name": "x", "shape": [2], "datatype": datatype, "data": data}]})
            self.assertEqual((status, body["outputs"][0]["data"]), (200, data), datatype)
        # A chain argument supplied by the server; the kernel writes the tensor.
        status, body = infer(self.server, "fill", {"inputs": [
            {"name": "t", "shape": [1, 2], "datatype": "FP32", "data": [[0, 0]]}]})
        self.assertEqual((status, body["outputs"]), (200, [
            {"name": "output_0", "datatype": "FP32", "shape": [1, 2], "data": [2.5, 2.5]}]))

    def test_binary_tensor_data(self):
        values = [1.5, -2.0, 3.25, 4.0]
        raw = struct.pack("<4f", *values)
        header = json.dumps({"inputs": [{"name": "x", "shape": [2, 2], "datatype": "FP32",
                                         "parameters": {"binary_data_size": len(raw)}}],
                             "outputs": [{"name": "y", "parameters": {"binary_data": True}}]})
        connection = self.server.connection()
        connection.request("POST", "/v2/models/echo/infer", body=header.encode() + raw,
                           headers={"Inference-Header-Content-Length": str(len(header)),
                                    "Content-Type": "application/octet-stream"})
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        self.assertEqual(response.status, 200, payload)
        self.assertEqual(response.getheader("Content-Type"), "application/octet-stream")
        json_length = int(response.getheader("Inference-Header-Content-Length"))
        answer = json.loads(payload[:json_length])
        self.assertEqual(answer["outputs"], [{"name": "y", "datatype": "FP32", "shape": [2, 2],
                                              "parameters": {"binary_data_size": 16}}])
        self.assertEqual(payload[json_length:], raw)
        # BYTES in the raw layout, answered as JSON.
        raw = struct.pack("<I", 2) + b"hi" + struct.pack("<I", 0)
        header = json.dumps({"inputs": [{"name": "x", "shape": [2], "datatype": "BYTES",
                                         "parameters": {"binary_data_size": len(raw)}}]})
        status, body = infer(self.server, "echo", header.encode() + raw,
                             headers={"Inference-Header-Content-Length": str(len(header))})
        self.assertEqual((status, body["outputs"][0]["data"]), (200, ["hi", ""]))

    def test_errors_are_error_objects(self):
        cases = [
            ("nope", {"inputs": []}, 404, "unknown model 'nope'"),
            ("add", {"inputs": [{"name": "a", "shape": [], "datatype": "FP32", "data": [1]},
                                {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]},
             400, "input 'a' has datatype FP32; the model takes INT32"),
            ("add", {"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [1]}]},
             400, "missing input 'b'"),
            ("add", {"inputs": [{"name": "c", "shape": [], "datatype": "INT32", "data": [1]}]},
             400, "has no input 'c'"),
            ("echo", {"inputs": [{"name": "x", "shape": [3], "datatype": "INT32", "data": [1]}]},
             400, "has 1 data elements, its shape needs 3"),
            ("echo", {"inputs": [{"name": "x", "shape": [1], "datatype": "FP16", "data": [1]}]},
             400, "datatype 'FP16'"),
            # Names a request gave are echoed at most 200 bytes long.
            ("add", {"inputs": [{"name": "c" * 5000, "shape": [], "datatype": "INT32",
                                 "data": [1]}]},
             400, "has no input '" + "c" * 200 + "... (5000 bytes)'"),
            ("echo", {"inputs": [{"name": "x", "shape": [1], "datatype": "INT32", "data": [1]}],
                      "outputs": [{"name": "z" * 5000}]},
             400, "has no output '" + "z" * 200 + "... (5000 bytes)'"),
            ("echo", {"inputs": [{"name": "x", "shape": [1], "datatype": "INT32", "data": [1]}],
                      "outputs": [{"name": "y"}, {"name": "y"}]},
             400, "output 'y' requested twice"),
            ("echo", {"inputs": [{"name": "x", "shape": [1], "datatype": "INT32", "data": [1]},
                                 {"name": "x", "shape": [1], "datatype": "INT32", "data": [1]}]},
             400, "input 'x' given twice"),
            ("add", "{", 400, "not valid JSON"),
            ("fill_any", {"inputs": [{"name": "input_0", "shape": [2], "datatype": "INT32",
                                      "data": [1, 2]}]},
             500, "tfrt_dht.fill_tensor_with_constant: the tensor's dtype is i32, the kernel "
                  "takes f32 (at tests/serving/Inputs/serve_test.mlir:14:9)"),
        ]
        for model, body, want_status, want in cases:
            status, answer = infer(self.server, model, body)
            self.assertEqual(status, want_status, (model, body, answer))
            self.assertIn(want, answer["error"], (model, body))
        status, answer = infer(self.server, "add", {"inputs": []}, version="7")
        self.assertEqual(status, 404)
        status, answer = infer(self.server, "fail", {"inputs": [
            {"name": "input_0", "shape": [], "datatype": "INT32", "data": [1]}]})
        self.assertEqual(status, 500)
        self.assertRegex(answer["error"], r"something bad happened \(at .*serve_test\.mlir:\d+:\d+\)")

    def test_compact_requests_answer_as_the_general_decoder_does(self):
        # Each request twice: as clients write it (the compact reader,
        # compact_infer_request.h, takes it) and with a field the compact
        # reader leaves to the general decoder ("model_name", which the
        # protocol's decoder ignores): the same status, header and bytes.
        def raw_infer(model, body, headers=None):
            connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=30)
            try:
                connection.request("POST", "/v2/models/%s/infer" % model, body, headers or {})
                response = connection.getresponse()
                return (response.status, response.getheader("Inference-Header-Content-Length"),
                        response.read())
            finally:
                connection.close()

        def given(name, datatype, shape, data):
            return {"name": name, "datatype": datatype, "shape": shape, "data": data}
        cases = [
            ("add", {"inputs": [given("a", "INT32", [], [2]), given("b", "INT32", [], [40])]}),
            ("add", {"id": "r1", "inputs": [given("a", "INT32", [1], [2147483647]),
                                            given("b", "INT32", [], [-2147483648])]}),
            ("add", {"inputs": [given("a", "INT32", [], [2147483648]),
                                given("b", "INT32", [], [1])]}),
            ("add", {"inputs": [given("a", "INT32", [], [1.5]), given("b", "INT32", [], [1])]}),
            ("add", {"inputs": [given("a", "INT32", [], [True]), given("b", "INT32", [], [1])]}),
            ("add", {"inputs": [given("a", "INT32", [], [1])]}),
            ("add", {"inputs": [given("a", "INT32", [], [1]), given("a", "INT32", [], [1])]}),
            ("add", {"inputs": [given("a", "FP32", [], [1]), given("b", "INT32", [], [1])]}),
            ("add", {"inputs": [given("a", "INT32", [2], [1, 2]), given("b", "INT32", [], [1])]}),
            ("add", {"inputs": [given("a", "INT32", [], []), given("b", "INT32", [], [1])]}),
            ("add", {"inputs": [given("c", "INT32", [], [1]), given("b", "INT32", [], [1])]}),
            ("echo", {"inputs": [given("x", "FP32", [2, 2], [1, -2.5, 1e30, 3e38])]}),
            ("echo", {"inputs": [given("x", "FP32", [1], [1e39])]}),
            ("echo", {"inputs": [given("x", "FP64", [4], [0.1, -0.0, 123456789012345678, -7])]}),
            ("echo", {"inputs": [given("x", "FP32", [1], [16777217])]}),
            ("echo", {"inputs": [given("x", "BOOL", [2], [True, False])]}),
            ("echo", {"inputs": [given("x", "BOOL", [1], [1])]}),
            ("echo", {"inputs": [given("x", "UINT64", [2], [0, 18446744073709551615])]}),
            ("echo", {"inputs": [given("x", "UINT8", [1], [-1])]}),
            ("echo", {"inputs": [given("x", "INT64", [2], [-9223372036854775808,
                                                           9223372036854775807])]}),
            ("echo", {"inputs": [given("x", "INT8", [3], [1, 2])]}),
            ("echo", {"inputs": [given("x", "INT32", [-1], [])]}),
            ("echo", {"inputs": [given("x", "INT32", [0, 3], [])]}),
            ("echo", {"inputs": [given("x", "INT32", [2], [1, 2])],
                      "outputs": [{"name": "y", "parameters": {"binary_data": True}}]}),
            ("echo", {"inputs": [given("x", "INT32", [2], [1, 2])],
                      "parameters": {"binary_data_output": True, "timeout_ms": 5000}}),
            ("echo", {"inputs": [given("x", "INT32", [2], [1, 2])], "outputs": [{"name": "no"}]}),
            ("echo", {"inputs": [given("x", "INT32", [2], [1, 2])],
                      "outputs": [{"name": "y"}, {"name": "y"}]}),
            ("echo", {"inputs": [given("x", "INT32", [2], [1, 2])],
                      "parameters": {"timeout_ms": 0}}),
            ("fill", {"inputs": [given("t", "FP32", [1, 2], [1, 2])]}),
            ("fill", {"inputs": [given("t", "INT32", [1, 2], [1, 2])]}),
        ]
        for model, body in cases:
            compact = raw_infer(model, json.dumps(body))
            general = raw_infer(model, json.dumps(dict(body, model_name=model)))
            self.assertEqual(compact, general, (model, body))
        # Binary tensor data after the JSON.
        for size, data in ((8, struct.pack("<2i", 5, -6)), (4, struct.pack("<2i", 5, -6)),
                           (12, struct.pack("<2i", 5, -6))):
            for extra in ({}, {"model_name": "echo"}):
                header = json.dumps(dict({"inputs": [{
                    "name": "x", "datatype": "INT32", "shape": [2],
                    "parameters": {"binary_data_size": size}}],
                    "parameters": {"binary_data_output": True}}, **extra))
                answer = raw_infer("echo", header.encode() + data,
                                   {"Inference-Header-Content-Length": str(len(header))})
                if not extra:
                    compact = answer
            self.assertEqual(compact, answer, size)
        self.assertEqual(compact[0], 400)  # the last: more binary data than claimed

    def test_timeout_cancels_the_run(self):
        start = time.monotonic()
        status, answer = infer(self.server, "spin", {
            "parameters": {"timeout_ms": 50},
            "inputs": [{"name": "input_0", "shape": [], "datatype": "INT32", "data": [2000000000]}]})
        self.assertEqual(status, 504, answer)
        self.assertLess(time.monotonic() - start, 20)

    def test_curl_is_a_client(self):
        body = json.dumps({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [5]},
                                      {"name": "b", "shape": [], "datatype": "INT32", "data": [6]}]})
        out = subprocess.run(
            ["curl", "-sS", "-H", "Content-Type: application/json", "-d", body,
             "http://127.0.0.1:%d/v2/models/add/infer" % self.server.port],
            capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["outputs"][0]["data"], [11])

    def test_metrics_per_model_and_version(self):
        infer(self.server, "add", {"inputs": [
            {"name": "a", "shape": [], "datatype": "INT32", "data": [1]},
            {"name": "b", "shape": [], "datatype": "INT32", "data": [1]}]})
        status, text = self.server.request("GET", "/metrics")
        self.assertEqual(status, 200)
        self.assertRegex(text, r'bef_serve_inference_requests_total\{model="add",version="1",'
                               r'outcome="success"\} [1-9]')
        self.assertIn('bef_serve_inference_latency_seconds_count{model="add",version="1"}', text)
        self.assertIn('bef_serve_inference_in_flight{model="add",version="1"} 0', text)


class GrpcTest(unittest.TestCase):
    """The six RPCs of inference.GRPCInferenceService through Python grpcio,
    with stubs generated from tools/serving/grpc_predict_v2.proto."""

    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp()
        make_repository(cls.root)
        cls.server = serving_testlib.Server(BEF_SERVE, None, "--model_repository=" + cls.root,
                                            "--grpc_port=0")
        cls.channel = grpc.insecure_channel("127.0.0.1:%d" % cls.server.grpc_port)
        cls.stub = pb2_grpc.GRPCInferenceServiceStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        code, out, err, _ = cls.server.stop()
        shutil.rmtree(cls.root)
        assert code == 0 and "bef_serve: stopped" in out, (code, out, err)

    def add_request(self, a, b, raw=False):
        request = pb2.ModelInferRequest(model_name="add", id="g1")
        for name, value in (("a", a), ("b", b)):
            tensor = request.inputs.add(name=name, datatype="INT32", shape=[])
            if raw:
                request.raw_input_contents.append(struct.pack("<i", value))
            else:
                tensor.contents.int_contents.append(value)
        return request

    def test_health_and_metadata(self):
        self.assertTrue(self.stub.ServerLive(pb2.ServerLiveRequest(), timeout=10).live)
        self.assertTrue(self.stub.ServerReady(pb2.ServerReadyRequest(), timeout=10).ready)
        self.assertTrue(self.stub.ModelReady(pb2.ModelReadyRequest(name="add"), timeout=10).ready)
        self.assertFalse(self.stub.ModelReady(pb2.ModelReadyRequest(name="add", version="9"),
                                              timeout=10).ready)
        metadata = self.stub.ServerMetadata(pb2.ServerMetadataRequest(), timeout=10)
        self.assertEqual(metadata.name, "bef_serve")
        self.assertIn("model_repository", metadata.extensions)
        model = self.stub.ModelMetadata(pb2.ModelMetadataRequest(name="add"), timeout=10)
        self.assertEqual((model.name, list(model.versions), model.platform), ("add", ["1"], "bef"))
        self.assertEqual([(t.name, t.datatype, list(t.shape)) for t in model.inputs],
                         [("a", "INT32", []), ("b", "INT32", [])])

    def test_infer_typed_and_raw(self):
        response = self.stub.ModelInfer(self.add_request(40, 2), timeout=10)
        self.assertEqual((response.model_name, response.model_version, response.id),
                         ("add", "1", "g1"))
        self.assertEqual(response.outputs[0].name, "sum")
        self.assertEqual(list(response.outputs[0].contents.int_contents), [42])
        response = self.stub.ModelInfer(self.add_request(-5, 2, raw=True), timeout=10)
        self.assertEqual(struct.unpack("<i", response.raw_output_contents[0]), (-3,))
        request = pb2.ModelInferRequest(model_name="echo")
        tensor = request.inputs.add(name="x", datatype="FP64", shape=[2, 2])
        tensor.contents.fp64_contents.extend([1.0, 2.5, -3.0, 4.0])
        response = self.stub.ModelInfer(request, timeout=10)
        self.assertEqual(list(response.outputs[0].shape), [2, 2])
        self.assertEqual(list(response.outputs[0].contents.fp64_contents), [1.0, 2.5, -3.0, 4.0])
        request = pb2.ModelInferRequest(model_name="echo")
        request.inputs.add(name="x", datatype="BYTES", shape=[2])
        request.raw_input_contents.append(struct.pack("<I", 3) + b"abc" + struct.pack("<I", 1) + b"z")
        response = self.stub.ModelInfer(request, timeout=10)
        self.assertEqual(response.raw_output_contents[0],
                         struct.pack("<I", 3) + b"abc" + struct.pack("<I", 1) + b"z")

    def test_errors_are_statuses(self):
        def code_of(request, **kwargs):
            with self.assertRaises(grpc.RpcError) as caught:
                self.stub.ModelInfer(request, timeout=30, **kwargs)
            return caught.exception.code(), caught.exception.details()
        self.assertEqual(code_of(pb2.ModelInferRequest(model_name="nope"))[0],
                         grpc.StatusCode.NOT_FOUND)
        request = self.add_request(1, 2)
        request.inputs[0].datatype = "FP32"
        self.assertEqual(code_of(request)[0], grpc.StatusCode.INVALID_ARGUMENT)
        request = pb2.ModelInferRequest(model_name="add")
        request.inputs.add(name="a", datatype="INT32", shape=[]).contents.int_contents.append(1)
        code, details = code_of(request)
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("missing input 'b'", details)
        # The same binding and datatype rules as HTTP, the same messages.
        request = self.add_request(1, 2)
        request.inputs[0].datatype = "FP16"
        request.inputs[0].contents.Clear()
        code, details = code_of(request)
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("input 'a' has datatype 'FP16', which this server does not take (BOOL,",
                      details)
        request = self.add_request(1, 2)
        request.inputs[1].name = "a"
        self.assertEqual(code_of(request), (grpc.StatusCode.INVALID_ARGUMENT,
                                            "input 'a' given twice"))
        request = self.add_request(1, 2)
        request.outputs.add(name="s" * 5000)
        self.assertEqual(code_of(request), (grpc.StatusCode.INVALID_ARGUMENT,
                                            "model 'add' has no output '" + "s" * 200 +
                                            "... (5000 bytes)'"))
        request = self.add_request(1, 2)
        request.inputs[1].datatype = "INT64"
        request.inputs[1].contents.Clear()
        request.inputs[1].contents.int64_contents.append(2)
        self.assertEqual(code_of(request), (grpc.StatusCode.INVALID_ARGUMENT,
                                            "input 'b' has datatype INT64; the model takes INT32"))
        request = self.add_request(1, 2)
        request.inputs[1].contents.fp32_contents.append(2.0)
        self.assertEqual(code_of(request), (
            grpc.StatusCode.INVALID_ARGUMENT,
            "input 'b' sets fp32_contents, but a INT32 tensor's contents are in int_contents"))
        request = pb2.ModelInferRequest(model_name="fail")
        request.inputs.add(name="input_0", datatype="INT32", shape=[]).contents.int_contents.append(1)
        code, details = code_of(request)
        self.assertEqual(code, grpc.StatusCode.INTERNAL)
        self.assertRegex(details, r"something bad happened \(at .*serve_test\.mlir:\d+:\d+\)")
        # A run's error is INTERNAL whatever the kernel's code (HTTP's 500),
        # with the kernel's location, as HTTP answers it.
        request = pb2.ModelInferRequest(model_name="fill_any")
        request.inputs.add(name="input_0", datatype="INT32",
                           shape=[2]).contents.int_contents.extend([1, 2])
        self.assertEqual(code_of(request), (
            grpc.StatusCode.INTERNAL,
            "tfrt_dht.fill_tensor_with_constant: the tensor's dtype is i32, the kernel takes f32 "
            "(at tests/serving/Inputs/serve_test.mlir:14:9)"))
        # The client's deadline (grpc-timeout) cancels the run.
        request = pb2.ModelInferRequest(model_name="spin")
        request.inputs.add(name="input_0", datatype="INT32",
                           shape=[]).contents.int_contents.append(2000000000)
        start = time.monotonic()
        with self.assertRaises(grpc.RpcError) as caught:
            self.stub.ModelInfer(request, timeout=0.2)
        self.assertEqual(caught.exception.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
        # ... and so does the timeout_ms parameter.
        request.parameters["timeout_ms"].int64_param = 50
        self.assertEqual(code_of(request)[0], grpc.StatusCode.DEADLINE_EXCEEDED)
        self.assertLess(time.monotonic() - start, 20)
        # The server lived through it all.
        response = self.stub.ModelInfer(self.add_request(1, 1), timeout=10)
        self.assertEqual(list(response.outputs[0].contents.int_contents), [2])


class RepositoryTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        make_repository(self.root)
        self.server = None

    def tearDown(self):
        if self.server:
            self.server.kill()
        shutil.rmtree(self.root)

    def add(self, a, b, version=None):
        status, body = infer(self.server, "add", {"inputs": [
            {"name": "a", "shape": [], "datatype": "INT32", "data": [a]},
            {"name": "b", "shape": [], "datatype": "INT32", "data": [b]}]}, version)
        return status, body["outputs"][0]["data"][0] if status == 200 else body

    def test_versions_policy_and_the_repository_extension(self):
        os.makedirs(os.path.join(self.root, "add", "2"))
        shutil.copy(ADD_V2, os.path.join(self.root, "add", "2", "model.bef"))
        config = dict(MODELS["add"][1], entry_function="add",
                      version_policy={"all": {}})
        with open(os.path.join(self.root, "add", "config.json"), "w") as f:
            json.dump(config, f)
        self.server = serving_testlib.Server(BEF_SERVE, None, "--model_repository=" + self.root)
        self.assertEqual(self.add(1, 2), (200, 1003))  # the highest version
        self.assertEqual(self.add(1, 2, version=1), (200, 3))
        self.assertEqual(self.add(1, 2, version=2), (200, 1003))
        status, body = self.server.request("GET", "/v2/models/add")
        self.assertEqual(body["versions"], ["1", "2"])

        status, index = self.server.request("POST", "/v2/repository/index")
        self.assertEqual(status, 200)
        states = {(e["name"], e.get("version")): e["state"] for e in index}
        self.assertEqual(states[("add", "2")], "READY")
        self.assertEqual(self.server.request("POST", "/v2/repository/models/add/unload"), (200, ""))
        status, _ = self.server.request("GET", "/v2/models/add/ready")
        self.assertGreaterEqual(status, 400)
        self.assertGreaterEqual(self.add(1, 2)[0], 400)
        self.assertEqual(self.server.request("POST", "/v2/repository/models/add/load"), (200, ""))
        self.assertEqual(self.add(1, 2), (200, 1003))
        # A name that names no model directory is the client's mistake
        # (400, as Triton answers), and leaves no entry in the index.
        status, answer = self.server.request("POST", "/v2/repository/models/none/load")
        self.assertEqual(status, 400, answer)
        self.assertNotIn("none", [e["name"] for e in self.server.request(
            "POST", "/v2/repository/index")[1]])

    def test_reloads_drop_no_request_and_bad_files_replace_nothing(self):
        self.server = serving_testlib.Server(BEF_SERVE, None, "--model_repository=" + self.root,
                                             "--repository_poll_secs=0.2", "--threads=8")
        def spin(n):
            return infer(self.server, "spin", {"inputs": [
                {"name": "input_0", "shape": [], "datatype": "INT32", "data": [n]}]})
        spin(1000)  # warm: the first run inflates the function
        start = time.monotonic()
        spin(2000000)
        rate = 2000000 / max(time.monotonic() - start, 1e-3)
        iterations = min(2 ** 31 - 1, int(rate * 4))  # about 4 s on this build
        answers = []

        def slow():
            answers.append(infer(self.server, "spin", {"inputs": [
                {"name": "input_0", "shape": [], "datatype": "INT32", "data": [iterations]}]}))
        thread = threading.Thread(target=slow)
        thread.start()
        time.sleep(0.2)
        # Replace the running version's model: a new version, then the old
        # version's directory goes away while the request runs on it.
        os.makedirs(os.path.join(self.root, "spin", "2"))
        shutil.copy(PROGRAM, os.path.join(self.root, "spin", "2", "model.bef"))
        shutil.rmtree(os.path.join(self.root, "spin", "1"))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            status, body = self.server.request("GET", "/v2/models/spin")
            if status == 200 and body["versions"] == ["2"]:
                break
            time.sleep(0.05)
        self.assertEqual(body["versions"], ["2"])
        self.assertTrue(thread.is_alive())  # version 1 was swapped out under the request
        thread.join(timeout=60)
        self.assertEqual(len(answers), 1)
        self.assertEqual(answers[0][0], 200, answers)
        self.assertEqual(answers[0][1]["model_version"], "1")  # finished where it started

        # A version 3 that is not BEF: reported, and version 2 keeps serving.
        os.makedirs(os.path.join(self.root, "spin", "3"))
        with open(os.path.join(self.root, "spin", "3", "model.bef"), "wb") as f:
            f.write(b"not a BEF file at all")
        deadline = time.monotonic() + 10
        state = None
        while time.monotonic() < deadline:
            _, index = self.server.request("POST", "/v2/repository/index")
            state = {(e["name"], e.get("version")): e for e in index}.get(("spin", "3"))
            if state and state["state"] == "UNAVAILABLE":
                break
            time.sleep(0.05)
        self.assertEqual(state["state"], "UNAVAILABLE", state)
        self.assertTrue(state["reason"], state)
        status, body = infer(self.server, "spin", {"inputs": [
            {"name": "input_0", "shape": [], "datatype": "INT32", "data": [5]}]})
        self.assertEqual((status, body["model_version"]), (200, "2"))
        code, out, err, _ = self.server.stop()
        self.assertEqual(code, 0, err)

    def test_a_config_datatype_the_server_does_not_take_is_a_load_error(self):
        os.makedirs(os.path.join(self.root, "half", "1"))
        shutil.copy(PROGRAM, os.path.join(self.root, "half", "1", "model.bef"))
        with open(os.path.join(self.root, "half", "config.json"), "w") as f:
            json.dump({"entry_function": "echo_tensor",
                       "inputs": [{"name": "x", "datatype": "FP16"}]}, f)
        self.server = serving_testlib.Server(BEF_SERVE, None, "--model_repository=" + self.root)
        _, index = self.server.request("POST", "/v2/repository/index")
        state = {(e["name"], e.get("version")): e for e in index}.get(("half", "1"))
        self.assertEqual(state["state"], "UNAVAILABLE", index)
        self.assertIn("config.json inputs[0] has datatype 'FP16', which this server does not "
                      "take", state["reason"])
        self.assertEqual(self.add(1, 2), (200, 3))  # the other models serve

    def test_single_file_form_serves_its_main_or_only_function(self):
        directory = tempfile.mkdtemp()
        try:
            path = os.path.join(directory, "adder.bef")
            shutil.copy(ADD_V2, path)  # one function: `add`
            self.server = serving_testlib.Server(BEF_SERVE, path)
            status, body = self.server.request("GET", "/v2/models/adder")
            self.assertEqual((status, body["versions"]), (200, ["1"]))
            status, body = infer(self.server, "adder", {"inputs": [
                {"name": "input_0", "shape": [], "datatype": "INT32", "data": [1]},
                {"name": "input_1", "shape": [], "datatype": "INT32", "data": [2]}]})
            self.assertEqual((status, body["outputs"][0]["data"]), (200, [1003]))
            # The /v1/ API of the single-file form stays.
            self.assertEqual(self.server.run("add", {"args": [1, 2]}), (200, {"results": [1003]}))
        finally:
            shutil.rmtree(directory)


if __name__ == "__main__":
    BEF_SERVE, PROGRAM, ADD_V2 = sys.argv[1], sys.argv[2], sys.argv[3]
    # The stubs generated from the .proto, at the runfiles' root.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    import grpc  # noqa: E402
    from tools.serving import grpc_predict_v2_pb2 as pb2  # noqa: E402
    from tools.serving import grpc_predict_v2_pb2_grpc as pb2_grpc  # noqa: E402
    unittest.main(argv=[sys.argv[0], "-v"])
