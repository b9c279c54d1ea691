#!/usr/bin/env python3
"""The example model repository (examples/models) served as
scripts/serve-examples.sh serves it, answering the curl requests of
docs/serving.md.

usage: examples_test.py BEF_SERVE MLIR_TO_BEF EXAMPLES_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serving_testlib  # noqa: E402

BEF_SERVE = MLIR_TO_BEF = EXAMPLES = None


def curl(*args):
    out = subprocess.run(["curl", "-sS", *args], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout) if out.stdout else None


class ExamplesTest(unittest.TestCase):
    def test_the_documented_requests(self):
        repository = tempfile.mkdtemp()
        try:
            for model in os.listdir(EXAMPLES):
                for version in os.listdir(os.path.join(EXAMPLES, model)):
                    source = os.path.join(EXAMPLES, model, version, "model.mlir")
                    if os.path.isfile(source):
                        os.makedirs(os.path.join(repository, model, version))
                        subprocess.run([MLIR_TO_BEF, source, "-o",
                                        os.path.join(repository, model, version, "model.bef")],
                                       check=True, timeout=60)
                config = os.path.join(EXAMPLES, model, "config.json")
                if os.path.isfile(config):
                    shutil.copy(config, os.path.join(repository, model))
            server = serving_testlib.Server(BEF_SERVE, None, "--model_repository=" + repository)
            try:
                base = "http://127.0.0.1:%d" % server.port
                body = curl(base + "/v2/models/add")
                self.assertEqual(body["versions"], ["1", "2"])
                self.assertEqual([i["name"] for i in body["inputs"]], ["a", "b"])
                request = json.dumps({"inputs": [
                    {"name": "a", "shape": [], "datatype": "INT32", "data": [2]},
                    {"name": "b", "shape": [], "datatype": "INT32", "data": [40]}]})
                answer = curl(base + "/v2/models/add/infer", "-H",
                              "Content-Type: application/json", "-d", request)
                self.assertEqual(answer["outputs"][0]["data"], [84])  # version 2
                answer = curl(base + "/v2/models/add/versions/1/infer", "-H",
                              "Content-Type: application/json", "-d", request)
                self.assertEqual(answer["outputs"][0]["data"], [42])
                answer = curl(base + "/v2/models/fill/infer", "-H",
                              "Content-Type: application/json", "-d", json.dumps({"inputs": [
                                  {"name": "x", "shape": [3], "datatype": "FP32",
                                   "data": [1, 2, 3]}]}))
                self.assertEqual(answer["outputs"], [{"name": "y", "datatype": "FP32",
                                                      "shape": [3], "data": [2.5, 2.5, 2.5]}])
                index = curl("-X", "POST", base + "/v2/repository/index")
                self.assertEqual(sorted((e["name"], e["version"], e["state"]) for e in index),
                                 [("add", "1", "READY"), ("add", "2", "READY"),
                                  ("fill", "1", "READY")])
            finally:
                code, out, err, _ = server.stop()
                self.assertEqual(code, 0, err)
        finally:
            shutil.rmtree(repository)


if __name__ == "__main__":
    BEF_SERVE, MLIR_TO_BEF, EXAMPLES = sys.argv[1], sys.argv[2], sys.argv[3]
    unittest.main(argv=[sys.argv[0], "-v"])
