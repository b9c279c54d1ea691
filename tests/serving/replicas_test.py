#!/usr/bin/env python3
"""Three bef_serve replicas behind nginx (Debian's nginx-light) on loopback,
HTTP and gRPC upstreams: serving_load drives the protocol through nginx, one
replica is killed mid-run, and no request may be lost or answered wrongly
(nginx retries on another replica). The nginx configuration is the one
docs/serving.md shows.

usage: replicas_test.py BEF_SERVE SERVING_LOAD SERVE_TEST.bef
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serving_testlib  # noqa: E402

BEF_SERVE = SERVING_LOAD = PROGRAM = None
NGINX = "/usr/sbin/nginx"

NGINX_CONF = """
{user}
worker_processes 1;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  client_body_temp_path {prefix}/body;
  proxy_temp_path {prefix}/proxy;
  fastcgi_temp_path {prefix}/fastcgi;
  uwsgi_temp_path {prefix}/uwsgi;
  scgi_temp_path {prefix}/scgi;
  client_max_body_size 16m;

  upstream bef_http {{
{http_servers}
    keepalive 64;
  }}
  upstream bef_grpc {{
{grpc_servers}
  }}

  server {{
    listen 127.0.0.1:{http_port};
    location / {{
      proxy_pass http://bef_http;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # Inference is idempotent: a request a replica dropped is retried.
      proxy_next_upstream error timeout http_502 http_503 non_idempotent;
      proxy_next_upstream_tries 3;
    }}
  }}
  server {{
    listen 127.0.0.1:{grpc_port} http2;
    location / {{
      grpc_pass grpc://bef_grpc;
      grpc_next_upstream error timeout http_502 http_503 non_idempotent;
      grpc_next_upstream_tries 3;
    }}
  }}
}}
"""


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_repository(root, models):
    def model(name, config):
        os.makedirs(os.path.join(root, name, "1"))
        shutil.copy(PROGRAM, os.path.join(root, name, "1", "model.bef"))
        with open(os.path.join(root, name, "config.json"), "w") as f:
            f.write(config)
    for i in range(models):
        model("add_%d" % i, '{"entry_function": "add", "inputs": [{"name": "a"}, {"name": "b"}],'
                            ' "outputs": [{"name": "sum"}]}')
    model("echo", '{"entry_function": "echo_tensor", "inputs": [{"name": "x"}],'
                  ' "outputs": [{"name": "y"}]}')
    model("spin", '{"entry_function": "spin"}')


class ReplicasTest(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(NGINX):
            self.fail("nginx is not installed (scripts/install-deps.sh installs nginx-light)")
        self.directory = tempfile.mkdtemp()
        make_repository(os.path.join(self.directory, "models"), 3)
        self.replicas = [serving_testlib.Server(
            BEF_SERVE, None, "--model_repository=" + os.path.join(self.directory, "models"),
            "--grpc_port=0", "--threads=4") for _ in range(3)]
        self.http_port, self.grpc_port = free_port(), free_port()
        conf = os.path.join(self.directory, "nginx.conf")
        with open(conf, "w") as f:
            f.write(NGINX_CONF.format(
                user="user root root;" if os.geteuid() == 0 else "",
                prefix=self.directory, http_port=self.http_port, grpc_port=self.grpc_port,
                http_servers="\n".join("    server 127.0.0.1:%d max_fails=1 fail_timeout=30s;"
                                       % r.port for r in self.replicas),
                grpc_servers="\n".join("    server 127.0.0.1:%d max_fails=1 fail_timeout=30s;"
                                       % r.grpc_port for r in self.replicas)))
        self.nginx = subprocess.Popen([NGINX, "-p", self.directory, "-c", conf, "-e",
                                       os.path.join(self.directory, "error.log")],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.http_port), timeout=1).close()
                socket.create_connection(("127.0.0.1", self.grpc_port), timeout=1).close()
                break
            except OSError:
                if self.nginx.poll() is not None:
                    self.fail("nginx did not start: %s" % self.nginx.stderr.read().decode())
                time.sleep(0.05)

    def tearDown(self):
        self.nginx.send_signal(signal.SIGQUIT)
        try:
            self.nginx.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.nginx.kill()
            self.nginx.communicate()
        for replica in self.replicas:
            replica.kill()
        shutil.rmtree(self.directory)

    def load_while_a_replica_dies(self, protocol, victim):
        load = subprocess.Popen(
            [SERVING_LOAD, "--target=127.0.0.1:%d" % self.http_port,
             "--grpc_target=127.0.0.1:%d" % self.grpc_port, "--protocol=" + protocol,
             "--models=3", "--seconds=6", "--clients=6"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(2.5)
        self.replicas[victim].process.send_signal(signal.SIGKILL)  # mid-run, without warning
        out, err = load.communicate(timeout=120)
        # Every request answered, none wrongly. Over HTTP nothing fails:
        # nginx resends what the dead replica dropped. Over gRPC a call the
        # dead replica had begun to answer cannot be resent (nginx has
        # passed its response on) nor retried by the client (its response
        # began): it ends INTERNAL (RST_STREAM), one at most per call in
        # flight on that replica, of the 6 clients' (docs/serving.md).
        with open(os.path.join(self.directory, "error.log")) as f:
            nginx_log = f.read()[-4000:]
        self.assertRegex(out, r"serving: \d+ requests, \d+ errors, 0 lost",
                         "\n".join((err, "nginx error.log:", nginx_log)))
        errors = int(re.search(r"(\d+) errors", out).group(1))
        if protocol == "http" or errors == 0:
            self.assertEqual((load.returncode, errors), (0, 0), out + err)
        else:
            error_lines = [line for line in err.splitlines() if ": status " in line]
            self.assertEqual(len(error_lines), errors, err)
            for line in error_lines:
                self.assertRegex(line, r"status 13: Received RST_STREAM", err)
            self.assertLessEqual(errors, 6, out + err)
        return out

    def test_no_request_is_lost_when_a_replica_dies(self):
        print(self.load_while_a_replica_dies("http", 1), file=sys.stderr)
        print(self.load_while_a_replica_dies("grpc", 2), file=sys.stderr)
        # The one replica left answered everything since.
        status, body = self.replicas[0].request("GET", "/v2/health/ready")
        self.assertEqual(status, 200)


if __name__ == "__main__":
    BEF_SERVE, SERVING_LOAD, PROGRAM = sys.argv[1], sys.argv[2], sys.argv[3]
    unittest.main(argv=[sys.argv[0], "-v"])
