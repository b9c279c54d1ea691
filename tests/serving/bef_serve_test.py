#!/usr/bin/env python3
"""End-to-end test of bef_serve: starts it on a free loopback port with the
BEF of tests/serving/Inputs/serve_test.mlir and talks HTTP/JSON to it.

usage: bef_serve_test.py BEF_SERVE PROGRAM.bef
"""
import os
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serving_testlib  # noqa: E402

BEF_SERVE = None
PROGRAM = None


def Server(*flags):
    return serving_testlib.Server(BEF_SERVE, PROGRAM, *flags)


class BefServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()

    @classmethod
    def tearDownClass(cls):
        code, out, err, _ = cls.server.stop()
        assert code == 0 and "bef_serve: stopped" in out, (code, out, err)

    def test_lists_functions_with_signatures(self):
        status, body = self.server.request("GET", "/v1/functions")
        self.assertEqual(status, 200)
        functions = {f["name"]: f for f in body["functions"]}
        self.assertEqual(functions["add"], {"name": "add", "arguments": ["i32", "i32"],
                                            "results": ["i32"]})
        self.assertEqual(functions["fill"]["arguments"], ["!tfrt_tensor.tensor", "!tfrt.chain"])

    def test_scalars_round_trip(self):
        self.assertEqual(self.server.run("add", {"args": [2, 40]}), (200, {"results": [42]}))
        status, body = self.server.run(
            "scalars", {"args": [True, -9000000000, 1.5, "-inf", "a \"word\""]})
        self.assertEqual(status, 200)
        self.assertEqual(body["results"], [True, -9000000000, 1.5, "-inf", "a \"word\""])

    def test_tensors(self):
        tensor = {"dtype": "f32", "shape": [2, 3], "values": [1, 2, 3, 4, 5, 6]}
        self.assertEqual(self.server.run("fill", {"args": [tensor, None]}),
                         (200, {"results": [{"dtype": "f32", "shape": [2, 3],
                                             "values": [2.5] * 6}, None]}))
        for dtype, values in [("i1", [True, False]), ("i8", [-128, 127]),
                              ("i64", [-(2 ** 63), 2 ** 63 - 1]), ("ui8", [0, 255]),
                              ("ui64", [0, 2 ** 64 - 1]), ("f64", [0.5, "nan"]),
                              ("string", ["a", ""])]:
            tensor = {"dtype": dtype, "shape": [2], "values": values}
            self.assertEqual(self.server.run("echo_tensor", {"args": [tensor]}),
                             (200, {"results": [tensor]}), dtype)
        self.assertEqual(self.server.run("constant_tensor", {}),
                         (200, {"results": [{"dtype": "i32", "shape": [2, 2],
                                             "values": [1, 2, 3, 4]}]}))

    def test_runtime_error_has_message_and_location(self):
        status, body = self.server.run("fail", {"args": [1]})
        self.assertEqual(status, 500)
        self.assertEqual(body["error"]["code"], "INTERNAL")
        self.assertEqual(body["error"]["message"], "something bad happened")
        self.assertRegex(body["error"]["location"], r"serve_test\.mlir:\d+:\d+$")

    def test_deadline_cancels_the_run(self):
        start = time.monotonic()
        status, body = self.server.run("spin", {"args": [2000000000], "deadline_ms": 50})
        self.assertEqual(status, 504)
        self.assertEqual(body["error"]["code"], "DEADLINE_EXCEEDED")
        self.assertLess(time.monotonic() - start, 20)
        # A generous deadline does not disturb a short run.
        self.assertEqual(self.server.run("spin", {"args": [1000], "deadline_ms": 60000}),
                         (200, {"results": [1000]}))

    def test_bad_requests_get_4xx_and_clear_messages(self):
        cases = [
            ("add", '{"args": [2', 400, "the body is not valid JSON"),
            ("add", "[1, 2]", 400, "the body must be a JSON object"),
            ("add", {"args": [1]}, 400, "'add' takes 2 arguments, the request has 1"),
            ("add", {"args": [1, "x"]}, 400, "argument 1 must be an integer"),
            ("add", {"args": [1, 2 ** 40]}, 400, "argument 1 is out of range"),
            ("add", {"args": [1, 2], "extra": 1}, 400, "unknown field 'extra'"),
            ("add", {"args": [1, 2], "deadline_ms": -1}, 400, "must be a positive number"),
            ("echo_tensor", {"args": [{"dtype": "f32", "shape": [2], "values": [1]}]}, 400,
             "argument 0 has 1 values, its shape needs 2"),
            ("echo_tensor", {"args": [{"dtype": "q8", "shape": [], "values": [1]}]}, 400,
             "unsupported dtype 'q8'"),
            ("echo_tensor", {"args": [5]}, 400, "must be a tensor"),
            ("nope", {}, 404, "no function named 'nope'"),
        ]
        for name, body, want_status, want_message in cases:
            status, answer = self.server.run(name, body)
            self.assertEqual(status, want_status, (name, body, answer))
            self.assertIn(want_message, answer["error"]["message"], (name, body))
        # Statuses and code names from the one status mapping; a name the
        # request gave is echoed at most 200 bytes long.
        status, answer = self.server.run("f" * 5000, {})
        self.assertEqual((status, answer["error"]["code"]), (404, "NOT_FOUND"))
        self.assertEqual(answer["error"]["message"],
                         "no function named '" + "f" * 200 + "... (5000 bytes)'")
        status, answer = self.server.run("add", {"args": [1]})
        self.assertEqual(answer["error"]["code"], "INVALID_ARGUMENT")
        status, answer = self.server.request("GET", "/v2/other")
        # Outside /v1/, the Open Inference Protocol's error form.
        self.assertEqual(status, 404)
        self.assertIn("no such endpoint", answer["error"])
        status, answer = self.server.run("add", b"x" * (17 << 20))
        self.assertEqual(status, 413)

    def test_deeply_nested_json_is_refused_and_the_server_lives(self):
        # 60,000 nested arrays in a 120 KB body: once a SIGSEGV (the parsed
        # tree was copied and destroyed recursively); now refused while
        # parsing, at a documented depth.
        body = '{"args": [' + "[" * 60000 + "]" * 60000 + ', 1]}'
        status, answer = self.server.run("add", body)
        self.assertEqual(status, 400, answer)
        self.assertIn("more than 64 levels deep", answer["error"]["message"])
        # 64 levels are fine as JSON (and wrong as an argument).
        body = '{"args": [' + "[" * 62 + "]" * 62 + ', 1]}'
        status, answer = self.server.run("add", body)
        self.assertEqual(status, 400, answer)
        self.assertIn("argument 0 must be an integer", answer["error"]["message"])
        self.assertEqual(self.server.run("add", {"args": [1, 2]}), (200, {"results": [3]}))

    def test_health_and_metrics(self):
        self.assertEqual(self.server.request("GET", "/healthz"), (200, "ok\n"))
        self.server.run("add", {"args": [1, 2]})
        status, text = self.server.request("GET", "/metrics")
        self.assertEqual(status, 200)
        for name in ["bef_serve_requests_total", "bef_serve_bad_requests_total",
                     "bef_serve_runtime_errors_total", "bef_serve_cancelled_total",
                     "bef_serve_in_flight", 'bef_serve_run_latency_seconds_bucket{le="+Inf"}',
                     "bef_serve_run_latency_seconds_count"]:
            self.assertRegex(text, r"(?m)^%s \d+" % name.replace("{", r"\{").replace("+", r"\+"))

    def test_runs_known_short_run_on_the_io_thread(self):
        # After 16 short runs in a row the program is known short
        # (ShortRunStreak): its next runs are counted as run inline, with
        # the same answers. (A run slowed by the machine restarts the
        # streak: up to 200 runs.)
        before = self.server.metric("bef_serve_inline_requests_total")
        for _ in range(200):
            self.assertEqual(self.server.run("add", {"args": [3, 4]}), (200, {"results": [7]}))
            if self.server.metric("bef_serve_inline_requests_total") >= before + 5:
                break
        self.assertGreaterEqual(self.server.metric("bef_serve_inline_requests_total"), before + 5)

    def test_concurrent_keep_alive_clients(self):
        errors = []

        def client(offset):
            connection = self.server.connection()
            try:
                for i in range(200):
                    status, body = self.server.run("add", {"args": [offset, i]}, connection)
                    if (status, body) != (200, {"results": [offset + i]}):
                        errors.append((offset, i, status, body))
                    if i % 50 == 0:  # a bad request in between disturbs nothing
                        status, _ = self.server.run("add", {"args": []}, connection)
                        if status != 400:
                            errors.append(("bad", status))
            finally:
                connection.close()

        threads = [threading.Thread(target=client, args=(1000 * t,)) for t in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(errors, [])


class ShutdownTest(unittest.TestCase):
    def test_sigterm_drains_the_requests_in_flight(self):
        server = Server()
        # A run of about a second, whatever the build (sanitizers are slow).
        start = time.monotonic()
        server.run("spin", {"args": [100000]})
        iterations = int(100000 / max(time.monotonic() - start, 1e-3))
        answers = []

        def slow():
            answers.append(server.run("spin", {"args": [iterations]}))

        thread = threading.Thread(target=slow)
        thread.start()
        time.sleep(0.2)  # the run is in flight
        code, out, err, _ = server.stop()
        thread.join()
        self.assertEqual(code, 0, err)  # the server's stderr, e.g. a TSan report
        self.assertIn("bef_serve: stopped", out)
        self.assertEqual(answers, [(200, {"results": [iterations]})])

    def test_bad_input_file(self):
        process = subprocess.run([BEF_SERVE, "--port=0", "/nonexistent.bef"],
                                 capture_output=True, text=True)
        self.assertEqual(process.returncode, 1)
        self.assertIn("nonexistent.bef", process.stderr)


if __name__ == "__main__":
    BEF_SERVE, PROGRAM = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0], "-v"])
