#!/usr/bin/env python3
"""bef_serve as a careless operator and clients that leave would have it
(issue #33; docs/reliability.md "Files" and "Every run ends"): files changed
under a loaded version, FIFOs, endless devices and huge files in the
repository, runs that never end (clients gone, gRPC cancellations, the
server's maximum run time, SIGTERM), health while every worker is busy,
flags out of range, an IPv6 address.

usage: careless_operator_test.py BEF_SERVE SERVE_TEST.bef FOREVER.bef
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serving_testlib  # noqa: E402
from serving_testlib import wait_until  # noqa: E402

BEF_SERVE = PROGRAM = FOREVER = None
ADD_BODY = {"inputs": [{"name": "a", "datatype": "INT32", "shape": [], "data": [40]},
                       {"name": "b", "datatype": "INT32", "shape": [], "data": [2]}]}
FOREVER_BODY = {"inputs": [{"name": "input_0", "datatype": "INT32", "shape": [], "data": [1]}]}


def add_model(root, name="add", program=None, entry="add"):
    os.makedirs(os.path.join(root, name, "1"), exist_ok=True)
    shutil.copy(program or PROGRAM, os.path.join(root, name, "1", "model.bef"))
    with open(os.path.join(root, name, "config.json"), "w") as f:
        json.dump({"entry_function": entry, "inputs": [{"name": "a"}, {"name": "b"}]}, f)


def forever_model(root):
    os.makedirs(os.path.join(root, "forever", "1"))
    shutil.copy(FOREVER, os.path.join(root, "forever", "1", "model.bef"))


def infer(server, model, body, timeout=30):
    connection = server.connection(timeout=timeout)
    try:
        return server.request("POST", "/v2/models/%s/infer" % model, body, connection=connection)
    finally:
        connection.close()


def forever_request():
    """A gRPC ModelInferRequest of the model that never ends."""
    request = pb2.ModelInferRequest(model_name="forever")
    tensor = request.inputs.add(name="input_0", datatype="INT32", shape=[])
    tensor.contents.int_contents.append(1)
    return request


def in_flight(server, model):
    _, text = server.request("GET", "/metrics")
    for line in text.splitlines():
        if line.startswith('bef_serve_inference_in_flight{model="%s"' % model):
            return int(float(line.split()[1]))
    return 0


class Repository(serving_testlib.RepositoryTestCase):
    pass


class FilesTest(Repository):
    def test_a_loaded_version_keeps_its_bytes(self):
        add_model(self.root)
        server = self.serve()
        path = os.path.join(self.root, "add", "1", "model.bef")
        self.assertEqual(infer(server, "add", ADD_BODY)[1]["outputs"][0]["data"], [42])
        # An in-place rewrite of the same size with other bytes, then a
        # truncation (rsync --inplace, a full disk): the version answers as
        # before and the server lives.
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            f.write(b"\x5a" * size)
        self.assertEqual(infer(server, "add", ADD_BODY)[1]["outputs"][0]["data"], [42])
        os.truncate(path, 10)
        for _ in range(20):
            self.assertEqual(infer(server, "add", ADD_BODY)[1]["outputs"][0]["data"], [42])
        os.remove(path)
        self.assertEqual(infer(server, "add", ADD_BODY)[1]["outputs"][0]["data"], [42])
        self.assertIsNone(server.process.poll())
        # A load of the broken file keeps the working version.
        shutil.copy(PROGRAM, path)
        os.truncate(path, 10)
        status, _ = server.request("POST", "/v2/repository/models/add/load")
        self.assertEqual(status, 200)
        self.assertEqual(infer(server, "add", ADD_BODY)[1]["outputs"][0]["data"], [42])

    def test_fifos_devices_and_huge_files_never_block(self):
        add_model(self.root)
        # A FIFO as config.json, a FIFO and /dev/zero as model.bef.
        os.makedirs(os.path.join(self.root, "fifo_config", "1"))
        shutil.copy(PROGRAM, os.path.join(self.root, "fifo_config", "1", "model.bef"))
        os.mkfifo(os.path.join(self.root, "fifo_config", "config.json"))
        os.makedirs(os.path.join(self.root, "fifo_model", "1"))
        os.mkfifo(os.path.join(self.root, "fifo_model", "1", "model.bef"))
        os.makedirs(os.path.join(self.root, "zero", "1"))
        os.symlink("/dev/zero", os.path.join(self.root, "zero", "1", "model.bef"))
        # A 200 MiB config.json and a model.bef over --max_model_bytes
        # (sparse: nothing is written, nothing may be read).
        os.makedirs(os.path.join(self.root, "huge_config", "1"))
        shutil.copy(PROGRAM, os.path.join(self.root, "huge_config", "1", "model.bef"))
        with open(os.path.join(self.root, "huge_config", "config.json"), "wb") as f:
            f.truncate(200 << 20)
        os.makedirs(os.path.join(self.root, "huge_model", "1"))
        with open(os.path.join(self.root, "huge_model", "1", "model.bef"), "wb") as f:
            f.truncate(3 << 20)
        start = time.monotonic()
        server = self.serve("--max_model_bytes=2097152")
        self.assertLess(time.monotonic() - start, 10)
        index = {entry["name"]: entry for entry in server.request("POST", "/v2/repository/index")[1]}
        self.assertEqual(index["add"]["state"], "READY")
        for model, reason in (("fifo_config", "not a regular file"),
                              ("fifo_model", "is a FIFO, not a regular file"),
                              ("zero", "is a character device, not a regular file"),
                              ("huge_config", "is larger than 1048576 bytes"),
                              ("huge_model", "larger than 2097152 bytes")):
            self.assertEqual(index[model]["state"], "UNAVAILABLE", model)
            self.assertIn(reason, index[model]["reason"], model)
        # Loads while serving answer at once, and later loads still work.
        for model in ("fifo_config", "fifo_model", "zero", "huge_config"):
            start = time.monotonic()
            status, body = server.request("POST", "/v2/repository/models/%s/load" % model)
            self.assertEqual(status, 400, (model, body))
            self.assertLess(time.monotonic() - start, 5)
        self.assertEqual(server.request("POST", "/v2/repository/models/add/load")[0], 200)
        self.assertEqual(infer(server, "add", ADD_BODY)[1]["outputs"][0]["data"], [42])


class RunsEndTest(Repository):
    def setUp(self):
        super().setUp()
        add_model(self.root)
        forever_model(self.root)

    def test_clients_that_leave_cancel_their_runs(self):
        server = self.serve("--threads=4", "--grpc_port=0")
        cancelled_before = server.metric("bef_serve_cancelled_total")
        # Eight HTTP requests without timeout_ms, on four workers; the
        # clients give up after a second.
        def leave():
            try:
                infer(server, "forever", FOREVER_BODY, timeout=1)
            except (socket.timeout, TimeoutError, OSError):
                pass
        clients = [threading.Thread(target=leave) for _ in range(8)]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
        # Every run ends; the workers serve others again.
        self.assertTrue(wait_until(lambda: in_flight(server, "forever") == 0, 20),
                        in_flight(server, "forever"))
        start = time.monotonic()
        self.assertEqual(infer(server, "add", ADD_BODY)[1]["outputs"][0]["data"], [42])
        self.assertLess(time.monotonic() - start, 5)
        self.assertEqual(server.request("GET", "/v2/health/ready")[0], 200)
        self.assertTrue(wait_until(
            lambda: server.metric("bef_serve_cancelled_total") >= cancelled_before + 8, 10))

        # gRPC calls cancelled by their client end their runs too.
        channel = grpc.insecure_channel("127.0.0.1:%d" % server.grpc_port)
        stub = pb2_grpc.GRPCInferenceServiceStub(channel)
        request = forever_request()
        futures = [stub.ModelInfer.future(request) for _ in range(4)]
        time.sleep(0.5)
        for future in futures:
            future.cancel()
        self.assertTrue(wait_until(lambda: in_flight(server, "forever") == 0, 20))
        # A deadline ends a gRPC run with DEADLINE_EXCEEDED.
        with self.assertRaises(grpc.RpcError) as raised:
            stub.ModelInfer(request, timeout=0.5)
        self.assertEqual(raised.exception.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
        self.assertTrue(wait_until(lambda: in_flight(server, "forever") == 0, 20))
        channel.close()

    def test_the_server_ends_runs_past_max_run_secs(self):
        server = self.serve("--max_run_secs=1")
        start = time.monotonic()
        status, body = infer(server, "forever", FOREVER_BODY)
        self.assertEqual(status, 504, body)
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(server.metric("bef_serve_cancelled_total"), 1)
        # timeout_ms below the maximum still wins.
        start = time.monotonic()
        body = dict(FOREVER_BODY, parameters={"timeout_ms": 200})
        self.assertEqual(infer(server, "forever", body)[0], 504)
        self.assertLess(time.monotonic() - start, 0.9)

    def test_a_run_with_a_result_never_completed_ends_at_its_deadline(self):
        # issue #51: a result no kernel will ever complete (an asynchronous
        # tfrt.once cycle); the run still ends at timeout_ms and at
        # --max_run_secs, and holds no worker: runs after it answer.
        os.makedirs(os.path.join(self.root, "never", "1"))
        shutil.copy(FOREVER, os.path.join(self.root, "never", "1", "model.bef"))
        with open(os.path.join(self.root, "never", "config.json"), "w") as f:
            json.dump({"entry_function": "never"}, f)
        server = self.serve("--max_run_secs=1", "--threads=2")
        body = dict(FOREVER_BODY, parameters={"timeout_ms": 200})
        for _ in range(3):
            start = time.monotonic()
            self.assertEqual(infer(server, "never", body)[0], 504)
            self.assertLess(time.monotonic() - start, 10)
        start = time.monotonic()
        self.assertEqual(infer(server, "never", FOREVER_BODY)[0], 504)
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(infer(server, "add", ADD_BODY)[1]["outputs"][0]["data"], [42])

    def test_health_never_waits_behind_runs(self):
        # Every HTTP worker and every admitted gRPC call busy with runs
        # that never end.
        server = self.serve("--threads=2", "--max_concurrent_requests=4", "--grpc_port=0",
                            "--max_run_secs=60")
        channel = grpc.insecure_channel("127.0.0.1:%d" % server.grpc_port)
        stub = pb2_grpc.GRPCInferenceServiceStub(channel)
        request = forever_request()
        futures = [stub.ModelInfer.future(request) for _ in range(12)]
        http_clients = []
        for _ in range(2):
            connection = server.connection(timeout=60)
            connection.request("POST", "/v2/models/forever/infer", json.dumps(FOREVER_BODY),
                               {"Content-Type": "application/json"})
            http_clients.append(connection)
        self.assertTrue(wait_until(lambda: sum(f.done() for f in futures) >= 8, 20))
        time.sleep(0.2)
        refused = [f for f in futures if f.done()]
        self.assertEqual(len(refused), 8)
        for future in refused:
            self.assertEqual(future.exception().code(), grpc.StatusCode.RESOURCE_EXHAUSTED)
        for _ in range(5):
            self.assertTrue(stub.ServerLive(pb2.ServerLiveRequest(), timeout=2).live)
            self.assertTrue(stub.ServerReady(pb2.ServerReadyRequest(), timeout=2).ready)
            stub.ModelMetadata(pb2.ModelMetadataRequest(name="add"), timeout=2)
            self.assertEqual(server.request("GET", "/v2/health/live")[0], 200)
            self.assertEqual(server.request("GET", "/v2/models/add")[0], 200)
            self.assertEqual(server.request("POST", "/v2/repository/index")[0], 200)
        for future in futures:
            future.cancel()
        for connection in http_clients:
            connection.close()
        self.assertTrue(wait_until(lambda: in_flight(server, "forever") == 0, 20))
        channel.close()

    def start_known_short_spin(self, *flags):
        """A server with a `spin` version known to run short (its requests
        run on the I/O thread that read them); returns (server, spin, rate):
        spin(n) runs n iterations, about `rate` a second."""
        os.makedirs(os.path.join(self.root, "spin", "1"))
        shutil.copy(PROGRAM, os.path.join(self.root, "spin", "1", "model.bef"))
        with open(os.path.join(self.root, "spin", "config.json"), "w") as f:
            json.dump({"entry_function": "spin"}, f)
        add_model(self.root)
        server = self.serve(*flags)

        def spin(iterations, connection=None):
            body = {"inputs": [{"name": "input_0", "datatype": "INT32", "shape": [],
                                "data": [iterations]}]}
            if connection is not None:
                return server.request("POST", "/v2/models/spin/infer", body, connection=connection)
            return infer(server, "spin", body, timeout=60)

        def until_inline(count):
            # Short runs until `count` more ran inline (a loaded machine, or
            # a sanitizer, may make a run slower than a short one now and
            # then, which restarts the streak).
            target = server.metric("bef_serve_inline_requests_total") + count
            connection = server.connection()
            try:
                for _ in range(1000):
                    self.assertEqual(spin(10, connection)[0], 200)
                    if server.metric("bef_serve_inline_requests_total") >= target:
                        return True
                return False
            finally:
                connection.close()

        connection = server.connection()

        self.assertEqual(server.metric("bef_serve_inline_requests_total"), 0)
        for _ in range(15):  # fewer than 16 runs: never inline
            self.assertEqual(spin(10, connection)[0], 200)
        self.assertEqual(server.metric("bef_serve_inline_requests_total"), 0)
        self.assertTrue(until_inline(5))
        start = time.monotonic()
        self.assertEqual(spin(2000000)[0], 200)
        rate = 2000000 / max(time.monotonic() - start, 1e-3)
        # That run took longer than a short one: the version is known short
        # again only after a new streak.
        self.assertTrue(until_inline(1))
        connection.close()
        self.until_inline = until_inline
        return server, spin, rate

    def assert_everything_else_answers(self, server, spin):
        for _ in range(5):
            start = time.monotonic()
            self.assertEqual(server.request("GET", "/v2/health/live")[0], 200)
            self.assertEqual(server.request("GET", "/v2/models/add")[0], 200)
            self.assertEqual(infer(server, "add", ADD_BODY)[1]["outputs"][0]["data"], [42])
            self.assertEqual(spin(10)[0], 200)
            self.assertLess(time.monotonic() - start, 1)

    def test_a_short_version_turning_long_holds_only_its_connection(self):
        # A request of it that runs about 2 s holds one of the two I/O
        # threads and its own connection; the other thread answers
        # everything else at once (short runs of the same version inline).
        server, spin, rate = self.start_known_short_spin("--io_threads=2", "--threads=2")
        # Short runs go inline meanwhile unless one of them, slowed by the
        # machine, restarted the streak: up to 3 tries for that part.
        for _ in range(3):
            self.assertTrue(self.until_inline(1))
            answers = []
            long_run = threading.Thread(
                target=lambda: answers.append(spin(min(2 ** 31 - 1, int(rate * 2)))))
            before = server.metric("bef_serve_inline_requests_total")
            long_run.start()
            time.sleep(0.3)
            self.assert_everything_else_answers(server, spin)
            long_run.join()
            self.assertEqual(answers[0][0], 200)
            if server.metric("bef_serve_inline_requests_total") > before + 1:
                return
        self.fail("no short run went inline beside the long one")

    def test_runs_holding_every_io_thread_leave_the_sockets_to_the_rescue_thread(self):
        # One I/O thread, held by a known-short version's run that turned
        # long: the rescue thread serves the other sockets (and runs nothing
        # inline: short requests go to the workers).
        server, spin, rate = self.start_known_short_spin("--io_threads=1", "--threads=2")
        # The long run must start inline: a short run slowed by the machine
        # before it restarts the streak, and it then runs on a worker with
        # the I/O thread free; up to 3 tries.
        for _ in range(3):
            self.assertTrue(self.until_inline(1))
            answers = []
            before = server.metric("bef_serve_inline_requests_total")
            long_run = threading.Thread(
                target=lambda: answers.append(spin(min(2 ** 31 - 1, int(rate * 2)))))
            long_run.start()
            time.sleep(0.3)
            inline_before = server.metric("bef_serve_inline_requests_total")
            if inline_before == before + 1:
                break
            long_run.join()
        else:
            self.fail("the long run never started inline")
        self.assert_everything_else_answers(server, spin)
        self.assertEqual(server.metric("bef_serve_inline_requests_total"), inline_before)
        self.assertGreaterEqual(server.metric("bef_serve_io_rescues_total"), 1)
        long_run.join()
        self.assertEqual(answers[0][0], 200)
        # The long run ended the streak; after a new one the I/O thread runs
        # the version's requests inline again.
        self.assertTrue(self.until_inline(1))

    def test_a_client_leaving_an_inline_run_cancels_it(self):
        server, spin, rate = self.start_known_short_spin("--io_threads=1", "--threads=2")
        body = json.dumps({"inputs": [{"name": "input_0", "datatype": "INT32", "shape": [],
                                       "data": [min(2 ** 31 - 1, int(rate * 30))]}]})
        # The long run must start inline: a short run slowed by the machine
        # between the streak and it restarts the streak, and it then goes to
        # a worker (where leaving cancels it too); up to 5 tries.
        for _ in range(5):
            self.assertTrue(self.until_inline(1))
            inline_before = server.metric("bef_serve_inline_requests_total")
            client = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            client.sendall(("POST /v2/models/spin/infer HTTP/1.1\r\nHost: x\r\n"
                            "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                            % (len(body), body)).encode())
            self.assertTrue(wait_until(lambda: in_flight(server, "spin") == 1, 10))
            ran_inline = server.metric("bef_serve_inline_requests_total") == inline_before + 1
            cancelled = server.metric("bef_serve_cancelled_total")
            start = time.monotonic()
            client.close()
            # A 30 s run ends within the watchdog's poll once the client is gone.
            self.assertTrue(wait_until(lambda: in_flight(server, "spin") == 0, 10))
            self.assertLess(time.monotonic() - start, 5)
            self.assertEqual(server.metric("bef_serve_cancelled_total"), cancelled + 1)
            if ran_inline:
                return
        self.fail("the long run never started inline")

    def test_sigterm_ends_runs_at_the_end_of_the_drain(self):
        server = self.serve("--grpc_port=0", "--drain_secs=2")
        channel = grpc.insecure_channel("127.0.0.1:%d" % server.grpc_port)
        stub = pb2_grpc.GRPCInferenceServiceStub(channel)
        request = forever_request()
        grpc_call = stub.ModelInfer.future(request)  # no deadline
        answers = []

        def http_call():
            answers.append(infer(server, "forever", FOREVER_BODY, timeout=60))
        http_thread = threading.Thread(target=http_call)
        http_thread.start()
        time.sleep(0.5)
        code, out, err, seconds = server.stop(timeout=30)
        self.server = None
        http_thread.join(10)
        self.assertEqual(code, 0, err)
        self.assertIn("bef_serve: stopped", out)
        self.assertLess(seconds, 2 + 3, "SIGTERM took %.1f s with --drain_secs=2" % seconds)
        self.assertEqual(answers[0][0], 503, answers)
        self.assertIn("drain", answers[0][1]["error"])
        self.assertIn(grpc_call.exception().code(),
                      (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED))
        channel.close()


class ProtocolLetterTest(Repository):
    """The protocol as the clients people use speak it (issue #33)."""

    def setUp(self):
        super().setUp()
        add_model(self.root)
        os.makedirs(os.path.join(self.root, "scalars", "1"))
        shutil.copy(PROGRAM, os.path.join(self.root, "scalars", "1", "model.bef"))
        with open(os.path.join(self.root, "scalars", "config.json"), "w") as f:
            json.dump({"entry_function": "scalars"}, f)
        self.serve("--grpc_port=0", "--max_body_bytes=100000")

    def scalars_body(self, fp32=1.5, text="hi", binary_text=None):
        inputs = [{"name": "input_0", "datatype": "BOOL", "shape": [], "data": [True]},
                  {"name": "input_1", "datatype": "INT64", "shape": [], "data": [7]},
                  {"name": "input_2", "datatype": "FP32", "shape": [], "data": [fp32]},
                  {"name": "input_3", "datatype": "FP64", "shape": [], "data": [2.5]}]
        if binary_text is None:
            inputs.append({"name": "input_4", "datatype": "BYTES", "shape": [], "data": [text]})
            return json.dumps({"inputs": inputs}).encode(), {}
        inputs.append({"name": "input_4", "datatype": "BYTES", "shape": [],
                       "parameters": {"binary_data_size": 4 + len(binary_text)}})
        header = json.dumps({"inputs": inputs}).encode()
        body = header + len(binary_text).to_bytes(4, "little") + binary_text
        return body, {"Inference-Header-Content-Length": str(len(header)),
                      "Content-Type": "application/octet-stream"}

    def test_curl_d_as_the_docs_show_it(self):
        result = subprocess.run(
            ["curl", "-s", "-w", "\n%{http_code}", "-d", json.dumps(ADD_BODY),
             "http://127.0.0.1:%d/v2/models/add/infer" % self.server.port],
            capture_output=True, text=True, timeout=30)
        body, _, code = result.stdout.rpartition("\n")
        self.assertEqual(code, "200", result.stdout)
        self.assertEqual(json.loads(body)["outputs"][0]["data"], [42])

    def test_errors_have_the_protocol_form_everywhere_on_v2(self):
        for method, path, body, headers, status in (
                ("POST", "/v2/models/add/infer", b"x" * 200000, {}, 413),
                ("GET", "/v2/nothing/here", None, {}, 404),
                ("PUT", "/v2/models/add/infer", b"{}", {}, 405),
                ("POST", "/v2/models/add/infer", json.dumps(ADD_BODY),
                 {"Content-Encoding": "gzip"}, 415),
                ("POST", "/v2/models/nope/infer", json.dumps(ADD_BODY), {}, 404)):
            answer = self.server.request(method, path, body, headers=headers)
            self.assertEqual(answer[0], status, (path, answer))
            self.assertIsInstance(answer[1]["error"], str, (path, answer))

    def test_values_are_never_silently_changed(self):
        body, headers = self.scalars_body(fp32=1e39)
        status, answer = infer_raw(self.server, "scalars", body, headers)
        self.assertEqual(status, 400, answer)
        self.assertIn("out of range", answer["error"])
        # Bytes that are not UTF-8: refused in JSON, returned as binary data.
        body, headers = self.scalars_body(binary_text=b"\xff\xfe")
        status, answer = infer_raw(self.server, "scalars", body, headers)
        self.assertEqual(status, 400, answer)
        self.assertIn("not valid UTF-8", answer["error"])
        request = json.loads(body[:int(headers["Inference-Header-Content-Length"])])
        request["parameters"] = {"binary_data_output": True}
        header = json.dumps(request).encode()
        body = header + body[int(headers["Inference-Header-Content-Length"]):]
        headers["Inference-Header-Content-Length"] = str(len(header))
        connection = self.server.connection()
        connection.request("POST", "/v2/models/scalars/infer", body, headers)
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        self.assertEqual(response.status, 200, payload)
        self.assertTrue(payload.endswith(b"\x02\x00\x00\x00\xff\xfe"), payload[-16:])

    def test_requests_said_twice_or_too_deep_are_refused(self):
        body = json.dumps(ADD_BODY)
        self.assertEqual(infer_raw(self.server, "add", body, {
            "Inference-Header-Content-Length": str(len(body))})[0], 200)
        connection = self.server.connection()
        connection.putrequest("POST", "/v2/models/add/infer")
        connection.putheader("Content-Length", str(len(body)))
        connection.putheader("Inference-Header-Content-Length", str(len(body)))
        connection.putheader("Inference-Header-Content-Length", str(len(body)))
        connection.endheaders(body.encode())
        response = connection.getresponse()
        self.assertEqual(response.status, 400)
        self.assertIn("more than once", json.loads(response.read())["error"])
        connection.close()
        twice = dict(ADD_BODY, outputs=[{"name": "output_0"}, {"name": "output_0"}])
        status, answer = infer(self.server, "add", twice)
        self.assertEqual(status, 400, answer)
        self.assertIn("requested twice", answer["error"])
        deep = {"inputs": [dict(ADD_BODY["inputs"][0], data=[[40]]), ADD_BODY["inputs"][1]]}
        status, answer = infer(self.server, "add", deep)
        self.assertEqual(status, 400, answer)
        self.assertIn("nested deeper", answer["error"])

    def test_names_versions_and_head(self):
        self.assertEqual(self.server.request("GET", "/v2/models/%61dd")[0], 200)
        self.assertEqual(self.server.request("GET", "/v2/models/add/versions/1")[0], 200)
        for version in ("01", "+1", "1.0"):
            self.assertEqual(self.server.request("GET", "/v2/models/add/versions/" + version)[0],
                             404, version)
        for path in ("/v2/health/live", "/v2/health/ready", "/metrics", "/v2/models/add"):
            connection = self.server.connection()
            connection.request("HEAD", path)
            response = connection.getresponse()
            self.assertEqual(response.status, 200, path)
            self.assertEqual(response.read(), b"")
            self.assertGreater(int(response.getheader("Content-Length")), -1)
            connection.close()
        channel = grpc.insecure_channel("127.0.0.1:%d" % self.server.grpc_port)
        stub = pb2_grpc.GRPCInferenceServiceStub(channel)
        request = pb2.ModelInferRequest(model_name="m" * 60000)
        with self.assertRaises(grpc.RpcError) as raised:
            stub.ModelInfer(request, timeout=10)
        self.assertEqual(raised.exception.code(), grpc.StatusCode.NOT_FOUND)
        self.assertLess(len(raised.exception.details()), 400)
        request = pb2.ModelInferRequest(model_name="add")
        for name in ("a", "b"):
            tensor = request.inputs.add(name=name, datatype="INT32", shape=[])
            tensor.contents.int_contents.append(1)
            tensor.contents.fp32_contents.append(1.0)
        with self.assertRaises(grpc.RpcError) as raised:
            stub.ModelInfer(request, timeout=10)
        self.assertEqual(raised.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("fp32_contents", raised.exception.details())
        channel.close()


def infer_raw(server, model, body, headers):
    connection = server.connection()
    try:
        return server.request("POST", "/v2/models/%s/infer" % model, body,
                              connection=connection, headers=headers)
    finally:
        connection.close()


class FlagsTest(unittest.TestCase):
    def start(self, *flags):
        return subprocess.run([BEF_SERVE, "--port=0", *flags, PROGRAM], capture_output=True,
                              text=True, timeout=30)

    def test_out_of_range_flags_are_refused(self):
        for flag, message in (("--max_body_bytes=4294967296", "--max_body_bytes must be"),
                              ("--threads=4294967296", "--threads must be"),
                              ("--threads=0", "--threads must be"),
                              ("--io_threads=1000", "--io_threads must be"),
                              ("--max_concurrent_requests=-1", "--max_concurrent_requests"),
                              ("--max_header_bytes=10", "--max_header_bytes must be"),
                              ("--grpc_port=70000", "--grpc_port must be"),
                              ("--max_run_secs=0", "--max_run_secs must be"),
                              ("--max_model_bytes=0", "--max_model_bytes must be"),
                              ("--drain_secs=abc", "--drain_secs must be")):
            result = self.start(flag)
            self.assertEqual(result.returncode, 2, (flag, result.stderr))
            self.assertIn(message, result.stderr, flag)

    def test_a_work_queue_the_process_cannot_have_is_refused(self):
        result = self.start("--work_queue_type=mstd:100000")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("bef_serve: work queue mstd:100000: 100000 compute and 256 blocking threads "
                      "are more than this process may have", result.stderr)

    def test_the_single_threaded_queue_is_refused(self):
        # Its queued work runs only inside a caller's wait: a model whose
        # kernels span streams (every onnx-to-bef model) hung until its
        # 5-minute run limit.
        result = self.start("--work_queue_type=s")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("bef_serve: --work_queue_type=s: bef_serve needs a work queue with compute "
                      "threads (mstd:N)", result.stderr)

    def test_ipv6_literals_work_for_http_and_grpc(self):
        env = dict(os.environ)
        if "TSAN_OPTIONS" in env:
            # Debian's gRPC is not built for TSan (as serving_testlib.Server).
            env["TSAN_OPTIONS"] += ":suppressions=" + os.path.join(
                os.path.dirname(os.path.abspath(__file__)), "grpc_tsan_suppressions.txt")
        process = subprocess.Popen([BEF_SERVE, "--port=0", "--host=::1", "--grpc_port=0", PROGRAM],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=env)
        try:
            http_line = process.stdout.readline()
            grpc_line = process.stdout.readline()
            self.assertTrue(http_line.startswith("bef_serve: listening on http://[::1]:"),
                            (http_line, grpc_line))
            self.assertTrue(grpc_line.startswith("bef_serve: grpc listening on [::1]:"), grpc_line)
            http_port = int(http_line.rsplit(":", 1)[1])
            grpc_port = int(grpc_line.rsplit(":", 1)[1])
            connection = serving_testlib.http.client.HTTPConnection("::1", http_port, timeout=10)
            connection.request("GET", "/v2/health/live")
            self.assertEqual(connection.getresponse().status, 200)
            connection.close()
            channel = grpc.insecure_channel("[::1]:%d" % grpc_port)
            stub = pb2_grpc.GRPCInferenceServiceStub(channel)
            self.assertTrue(stub.ServerLive(pb2.ServerLiveRequest(), timeout=5).live)
            channel.close()
        finally:
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=30)


if __name__ == "__main__":
    BEF_SERVE, PROGRAM, FOREVER = sys.argv[1], sys.argv[2], sys.argv[3]
    serving_testlib.RepositoryTestCase.bef_serve = BEF_SERVE
    # The stubs generated from the .proto, at the runfiles' root.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    import grpc  # noqa: E402
    from tools.serving import grpc_predict_v2_pb2 as pb2  # noqa: E402
    from tools.serving import grpc_predict_v2_pb2_grpc as pb2_grpc  # noqa: E402
    unittest.main(argv=[sys.argv[0], "-v"])
