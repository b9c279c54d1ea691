"""bef_serve's container image (scripts/image.sh), run as Kubernetes runs it.

Podman cannot start containers in this sandbox (crun's setrlimit is
refused), so the test runs the image the way a container runtime does,
with the kernel's own tools: the OCI archive is unpacked (index, manifest,
config, layers), and the image's entrypoint runs as PID 1 of new mount and
PID namespaces (unshare), chrooted into the image's root file system made
read-only, as the image's user (uid 1000), with /proc, the usual /dev nodes
and the model repository mounted read-only at /mnt/models, and the
arguments of deploy/kubernetes/bef-serve.yaml (its ports swapped for free
ones: the container shares the test's network). Then:

  - the image: its size, user, ports, labels;
  - the image's mlir-to-bef converts the models, byte for byte as the
    tree's does;
  - it becomes ready; the docs' curl requests get the same bytes from it
    as from the bef_serve built in the tree; gRPC and HTTP load
    (serving_load) get right answers;
  - SIGTERM drains: a run in flight is answered, the server exits 0.

usage: python3 image_test.py ARCHIVE OPT_BAZEL_BIN  (run as root)
"""

import gzip
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import unittest
import urllib.request

import yaml

ARCHIVE = os.path.abspath(sys.argv[1])
BIN = os.path.abspath(sys.argv[2])
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
del sys.argv[1:]

MAX_IMAGE_BYTES = 150 << 20
CHROOT = shutil.which("chroot", path="/usr/sbin:/usr/bin:/sbin:/bin")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def unpack(archive, rootfs):
    """The OCI archive's image config; its layers extracted into rootfs."""
    with tarfile.open(archive) as outer:
        def blob(digest):
            algorithm, hex_digest = digest.split(":")
            return outer.extractfile("blobs/%s/%s" % (algorithm, hex_digest)).read()
        index = json.loads(outer.extractfile("index.json").read())
        manifest = json.loads(blob(index["manifests"][0]["digest"]))
        config = json.loads(blob(manifest["config"]["digest"]))
        for layer in manifest["layers"]:
            data = blob(layer["digest"])
            if layer["mediaType"].endswith("+gzip"):
                data = gzip.decompress(data)
            with tempfile.TemporaryFile() as f:
                f.write(data)
                f.seek(0)
                with tarfile.open(fileobj=f) as layer_tar:
                    layer_tar.extractall(rootfs, numeric_owner=True)
    return config


def tree_bytes(path):
    total = 0
    for directory, _, files in os.walk(path):
        for name in files:
            full = os.path.join(directory, name)
            if not os.path.islink(full):
                total += os.path.getsize(full)
    return total


def http(port, method, path, body=None, content_type="application/json"):
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), method=method,
                                     data=body.encode() if body is not None else None)
    if body is not None:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


class Container:
    """The image's entrypoint as a container runtime starts it."""

    def __init__(self, rootfs, config, repository, args):
        self.rootfs = rootfs
        user = config["config"]["User"]
        entrypoint = config["config"]["Entrypoint"]
        mounts = " && ".join([
            # The image's file system, read-only (readOnlyRootFilesystem).
            'mount --bind "$R" "$R"', 'mount -o remount,bind,ro "$R"',
            'mount -t proc proc "$R/proc"',
            'mount -t tmpfs -o size=1m,mode=755 tmpfs "$R/dev"',
            'for n in null zero random urandom; do touch "$R/dev/$n" &&'
            ' mount --bind "/dev/$n" "$R/dev/$n"; done',
            'mount --bind "$M" "$R/mnt/models"', 'mount -o remount,bind,ro "$R/mnt/models"',
        ])
        script = mounts + ' && cd "$R" && exec chroot --userspec="$U" "$R" "$@"'
        environment = dict(os.environ, R=rootfs, M=repository, U=user)
        self.start = time.monotonic()
        self.process = subprocess.Popen(
            ["unshare", "--mount", "--pid", "--fork", "--kill-child", "--", "/bin/sh", "-c",
             script, "sh"] + entrypoint + args,
            env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def pid1(self):
        """The entrypoint's pid as the host sees it (PID 1 inside)."""
        path = "/proc/%d/task/%d/children" % (self.process.pid, self.process.pid)
        for _ in range(100):
            with open(path) as f:
                children = f.read().split()
            if children:
                return int(children[0])
            time.sleep(0.05)
        raise AssertionError("the container's process did not start")

    def stop(self, timeout=60):
        try:
            out, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
        return self.process.returncode, out, err


class ImageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="bef-image-test.")
        cls.rootfs = os.path.join(cls.work, "rootfs")
        os.makedirs(cls.rootfs)
        cls.config = unpack(ARCHIVE, cls.rootfs)
        # What a runtime creates for its mounts.
        for directory in ("proc", "dev"):
            os.makedirs(os.path.join(cls.rootfs, directory), exist_ok=True)
        cls.repository = os.path.join(cls.work, "models")
        cls.make_repository()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    @classmethod
    def convert_in_image(cls, source, target):
        """`mlir-to-bef source -o target` by the image's converter, as its
        user, inside its root."""
        inside = os.path.join(cls.rootfs, "tmp", "convert")
        os.makedirs(inside, exist_ok=True)
        os.chown(inside, 1000, 1000)
        shutil.copy(source, os.path.join(inside, "in.mlir"))
        subprocess.run([CHROOT, "--userspec=1000:1000", cls.rootfs,
                        "/usr/local/bin/mlir-to-bef", "/tmp/convert/in.mlir",
                        "-o", "/tmp/convert/out.bef"], check=True,
                       env={"PATH": "/usr/local/bin"}, cwd="/")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy(os.path.join(inside, "out.bef"), target)
        shutil.rmtree(inside)

    @classmethod
    def make_repository(cls):
        # The docs' examples (examples/models) and serving_load's models.
        for source in sorted(
                os.path.join(d, f) for d, _, fs in os.walk(os.path.join(ROOT, "examples", "models"))
                for f in fs):
            relative = os.path.relpath(source, os.path.join(ROOT, "examples", "models"))
            target = os.path.join(cls.repository, relative)
            if source.endswith("model.mlir"):
                cls.convert_in_image(source, target[:-len(".mlir")] + ".bef")
            elif source.endswith("config.json"):
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy(source, target)
        serve_test = os.path.join(cls.work, "serve_test.bef")
        cls.convert_in_image(os.path.join(ROOT, "tests", "serving", "Inputs", "serve_test.mlir"),
                             serve_test)
        models = {
            "add_0": {"entry_function": "add", "inputs": [{"name": "a"}, {"name": "b"}],
                      "outputs": [{"name": "sum"}]},
            "echo": {"entry_function": "echo_tensor", "inputs": [{"name": "x"}],
                     "outputs": [{"name": "y"}]},
            "spin": {"entry_function": "spin"},
        }
        for name, config in models.items():
            os.makedirs(os.path.join(cls.repository, name, "1"))
            shutil.copy(serve_test, os.path.join(cls.repository, name, "1", "model.bef"))
            with open(os.path.join(cls.repository, name, "config.json"), "w") as f:
                json.dump(config, f)
        os.chmod(cls.work, 0o755)

    def deployment_args(self, http_port, grpc_port):
        with open(os.path.join(ROOT, "deploy", "kubernetes", "bef-serve.yaml")) as f:
            deployment = next(yaml.safe_load_all(f))
        [container] = deployment["spec"]["template"]["spec"]["containers"]
        args = []
        for arg in container["args"]:
            arg = re.sub(r"^--port=\d+$", "--port=%d" % http_port, arg)
            arg = re.sub(r"^--grpc_port=\d+$", "--grpc_port=%d" % grpc_port, arg)
            args.append(arg)
        return args

    def start_container(self):
        http_port, grpc_port = free_port(), free_port()
        container = Container(self.rootfs, self.config, self.repository,
                              self.deployment_args(http_port, grpc_port))
        container.http_port, container.grpc_port = http_port, grpc_port
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if container.process.poll() is not None:
                self.fail("the container exited: %s" % (container.stop(),))
            try:
                if http(http_port, "GET", "/v2/health/ready")[0] == 200:
                    container.ready_secs = time.monotonic() - container.start
                    return container
            except OSError:
                pass
            time.sleep(0.01)
        container.process.kill()
        self.fail("the container did not become ready in 30 s: %s" % (container.stop(),))

    def start_tree_server(self):
        port = free_port()
        process = subprocess.Popen(
            [os.path.join(BIN, "tools", "bef_serve"), "--model_repository=" + self.repository,
             "--port=%d" % port], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if http(port, "GET", "/v2/health/ready")[0] == 200:
                    return process, port
            except OSError:
                pass
            time.sleep(0.02)
        process.kill()
        self.fail("the tree's bef_serve did not become ready")

    def test_the_image(self):
        config = self.config["config"]
        self.assertEqual(config["User"], "1000:1000", "not root")
        self.assertEqual(config["Entrypoint"], ["/usr/local/bin/bef_serve"])
        self.assertIn("--model_repository=/mnt/models", config["Cmd"])
        self.assertEqual(set(config["ExposedPorts"]), {"8080/tcp", "8081/tcp"})
        labels = config["Labels"]
        with open(os.path.join(ROOT, "python", "bef", "__init__.py")) as f:
            version = re.search(r'^__version__ = "(.*)"$', f.read(), re.M).group(1)
        self.assertEqual(labels["org.opencontainers.image.version"], version)
        self.assertRegex(labels["org.opencontainers.image.revision"], r"^[0-9a-f]{40}$|^unknown$")
        size = tree_bytes(self.rootfs)
        print("image: %.1f MB unpacked" % (size / 1e6))
        self.assertLess(size, MAX_IMAGE_BYTES)
        for tool in ("bef_serve", "mlir-to-bef", "bef-to-mlir", "bef-opt", "bef_executor",
                     "bef-dump"):
            self.assertTrue(os.access(os.path.join(self.rootfs, "usr/local/bin", tool), os.X_OK))

    def test_the_image_converts_as_the_tree_does(self):
        # The same file at the same path (it is written into the BEF's
        # locations) inside the image and here, converted by each.
        source = os.path.join(ROOT, "tests", "serving", "Inputs", "serve_test.mlir")
        here = tempfile.mkdtemp(prefix="bef-image-convert.", dir="/tmp")
        try:
            inside = self.rootfs + here
            os.makedirs(inside)
            os.chown(inside, 1000, 1000)
            for directory in (here, inside):
                shutil.copy(source, os.path.join(directory, "serve_test.mlir"))
            subprocess.run([CHROOT, "--userspec=1000:1000", self.rootfs,
                            "/usr/local/bin/mlir-to-bef", here + "/serve_test.mlir",
                            "-o", here + "/image.bef"], check=True, env={"PATH": "/usr/local/bin"})
            subprocess.run([os.path.join(BIN, "tools", "mlir-to-bef"), here + "/serve_test.mlir",
                            "-o", here + "/tree.bef"], check=True)
            with open(inside + "/image.bef", "rb") as a, open(here + "/tree.bef", "rb") as b:
                self.assertEqual(a.read(), b.read())
        finally:
            shutil.rmtree(here, ignore_errors=True)
            shutil.rmtree(self.rootfs + here, ignore_errors=True)

    def test_serves_as_the_tree_does_and_drains(self):
        container = self.start_container()
        print("start to ready: %.3f s" % container.ready_secs)
        tree, tree_port = self.start_tree_server()
        try:
            add = json.dumps({"inputs": [
                {"name": "a", "shape": [], "datatype": "INT32", "data": [2]},
                {"name": "b", "shape": [], "datatype": "INT32", "data": [40]}]})
            fill = json.dumps({"inputs": [
                {"name": "x", "shape": [3], "datatype": "FP32", "data": [1, 2, 3]}]})
            requests = [
                ("GET", "/v2/health/live", None), ("GET", "/v2", None),
                ("GET", "/v2/models/add", None), ("POST", "/v2/models/add/infer", add),
                ("POST", "/v2/models/add/versions/1/infer", add),
                ("POST", "/v2/models/fill/infer", fill),
                ("POST", "/v2/models/nope/infer", add),
                ("POST", "/v2/models/add/infer", "{not json"),
            ]
            for method, path, body in requests:
                self.assertEqual(http(container.http_port, method, path, body),
                                 http(tree_port, method, path, body), (method, path))
            self.assertEqual(json.loads(http(container.http_port, "POST",
                                             "/v2/models/add/infer", add)[1])["outputs"][0]["data"],
                             [84])
            # curl -d, as the docs show it (application/x-www-form-urlencoded).
            curl = subprocess.run(
                ["curl", "-s", "localhost:%d/v2/models/add/versions/1/infer" % container.http_port,
                 "-d", add], capture_output=True, text=True, check=True)
            self.assertEqual(json.loads(curl.stdout)["outputs"][0]["data"], [42])
            index = [(m["name"], m.get("version"), m["state"]) for m in
                     json.loads(http(container.http_port, "POST", "/v2/repository/index")[1])]
            self.assertIn(("add", "2", "READY"), index)

            # gRPC and HTTP under load, answers checked by serving_load.
            load = os.path.join(BIN, "benchmarks", "serving_load")
            for protocol in ("grpc", "http"):
                result = subprocess.run(
                    [load, "--target=127.0.0.1:%d" % container.http_port,
                     "--grpc_target=127.0.0.1:%d" % container.grpc_port,
                     "--protocol=" + protocol, "--mix=all", "--seconds=2", "--clients=4"],
                    capture_output=True, text=True, timeout=60)
                self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
                self.assertRegex(result.stdout + result.stderr, r" 0 errors, 0 lost")

            # SIGTERM, as the kubelet sends it to PID 1: a run in flight is
            # answered, then the server exits by itself.
            start = time.monotonic()
            http(container.http_port, "POST", "/v2/models/spin/infer", json.dumps(
                {"inputs": [{"name": "input_0", "shape": [], "datatype": "INT32",
                             "data": [2000000]}]}))
            rate = 2000000 / max(time.monotonic() - start, 1e-3)
            answers = []
            spin = json.dumps({"inputs": [{"name": "input_0", "shape": [], "datatype": "INT32",
                                           "data": [min(2 ** 31 - 1, int(rate * 1.5))]}]})
            thread = threading.Thread(target=lambda: answers.append(
                http(container.http_port, "POST", "/v2/models/spin/infer", spin)))
            thread.start()
            time.sleep(0.3)
            os.kill(container.pid1(), signal.SIGTERM)
            thread.join(60)
            code, out, err = container.stop()
            self.assertEqual(len(answers), 1)
            self.assertEqual(answers[0][0], 200, answers)
            self.assertEqual(code, 0, (out, err))
            self.assertIn("bef_serve: stopped", out)
        finally:
            if container.process.poll() is None:
                container.process.kill()
                container.stop()
            tree.kill()
            tree.communicate()


if __name__ == "__main__":
    unittest.main(verbosity=2)
