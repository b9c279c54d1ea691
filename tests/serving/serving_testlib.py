"""What the bef_serve tests share: a server on a free loopback port, JSON
requests over http.client, raw HTTP over sockets, the server's memory."""
import http.client
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest


class Server:
    """bef_serve on --port=0 with FLAGS and PROGRAM (None: the flags name a
    --model_repository); `port` once it listens."""

    def __init__(self, binary, program, *flags, env=None, wrapper=()):
        if "TSAN_OPTIONS" in os.environ and any(f.startswith("--grpc_port=") for f in flags):
            # Debian's gRPC is not built for TSan (grpc_tsan_suppressions.txt).
            env = dict(env or os.environ)
            env["TSAN_OPTIONS"] += ":suppressions=" + os.path.join(
                os.path.dirname(os.path.abspath(__file__)), "grpc_tsan_suppressions.txt")
        self.process = subprocess.Popen(
            [*wrapper, binary, "--port=0", *flags] + ([program] if program else []),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=env)
        line = self.process.stdout.readline()
        if "listening on http://127.0.0.1:" not in line:
            self.process.kill()
            raise RuntimeError("bef_serve did not start: %r %s" %
                               (line, self.process.stderr.read()))
        self.port = int(line.rsplit(":", 1)[1])
        self.grpc_port = None
        if any(flag.startswith("--grpc_port=") for flag in flags):
            line = self.process.stdout.readline()
            if "grpc listening on 127.0.0.1:" not in line:
                self.process.kill()
                raise RuntimeError("bef_serve did not serve gRPC: %r" % line)
            self.grpc_port = int(line.rsplit(":", 1)[1])

    def connection(self, timeout=30):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, connection=None, headers=None):
        """(status, JSON or text) of one request (on `connection` if given)."""
        own = connection is None
        connection = connection or self.connection()
        data = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
        connection.request(method, path, body=data, headers=headers or {})
        response = connection.getresponse()
        payload = response.read()
        if own:
            connection.close()
        content_type = response.getheader("Content-Type", "")
        if content_type.startswith("application/json"):
            return response.status, json.loads(payload)
        return response.status, payload.decode()

    def run(self, name, body, connection=None):
        return self.request("POST", "/v1/functions/%s:run" % name, body, connection)

    def metric(self, name):
        _, text = self.request("GET", "/metrics")
        for line in text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        raise KeyError(name)

    def memory_kb(self, field):
        """VmRSS or VmHWM of the server, in KiB."""
        with open("/proc/%d/status" % self.process.pid) as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise KeyError(field)

    def stop(self, timeout=60):
        """SIGTERM; (exit code, stdout, stderr, seconds to exit)."""
        start = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=timeout)
        return self.process.returncode, out, err, time.monotonic() - start

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


def spin_iterations_for(server, seconds):
    """How many `spin` iterations take about `seconds` on this build."""
    server.run("spin", {"args": [1000]})  # warm: the first run inflates the function
    start = time.monotonic()
    server.run("spin", {"args": [2000000]})
    rate = 2000000 / max(time.monotonic() - start, 1e-3)
    return max(1000, min(2 ** 31 - 1, int(rate * seconds)))


def raw_exchange(port, data, timeout=10, shutdown_write=False):
    """Sends `data` on a fresh connection and reads until the server closes
    or one response with Content-Length is complete: (status, headers dict
    with lower-case names, body bytes, seconds)."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered early and stopped reading
        if shutdown_write:
            sock.shutdown(socket.SHUT_WR)
        return read_response(sock, start)


def read_response(sock, start=None):
    start = time.monotonic() if start is None else start
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if not lines[0].startswith("HTTP/1.1 "):
        return None, {}, received, time.monotonic() - start
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body, time.monotonic() - start


def raise_open_file_limit(needed):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(needed, soft)), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def wait_until(predicate, seconds):
    """Whether `predicate()` became true within `seconds` (asked every 50 ms)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


class RepositoryTestCase(unittest.TestCase):
    """A test with a model repository of its own (`self.root`, removed after
    it, modes restored) and at most one server on it (`serve`, killed after
    it). Subclasses set `bef_serve` to the binary."""
    bef_serve = None

    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.server = None

    def tearDown(self):
        if self.server is not None:
            self.server.kill()
        for path, dirs, _ in os.walk(self.root):
            for name in dirs:
                try:
                    os.chmod(os.path.join(path, name), 0o755, follow_symlinks=False)
                except (OSError, NotImplementedError):
                    pass
        os.chmod(self.root, 0o755)
        shutil.rmtree(self.root, ignore_errors=True)

    def serve(self, *flags, wrapper=(), env=None):
        self.server = Server(self.bef_serve, None, "--model_repository=" + self.root, *flags,
                             wrapper=wrapper, env=env)
        return self.server
