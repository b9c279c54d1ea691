#!/usr/bin/env python3
"""bef_serve's tiny requests against nginx, with the load tools people use
(the serving issue's targets): in each round, interleaved,

  - HTTP/1.1: wrk (2 threads, 8 keep-alive connections) POSTing the
    protocol's JSON `add` of two INT32s to bef_serve, and the same request
    to nginx (one worker, unlimited keep-alive requests) answering the
    same JSON answer from memory;
  - gRPC: h2load (8 connections x 8 streams, 2 threads) sending the same
    ModelInfer request bytes to bef_serve's gRPC port, and to nginx over
    HTTP/2 without TLS (h2c) answering a body of the same size as
    bef_serve's answer with a `grpc-status: 0` trailer.

Prints each row's median requests per second over the rounds with the
range, and the ratios the issue sets targets for: gRPC / nginx h2c (>= 0.5),
gRPC / bef_serve's HTTP/1.1 (>= 0.7), HTTP/1.1 / nginx HTTP/1.1 (>= 0.7).
Every gRPC answer of bef_serve is checked once before the rounds (a
gRPC error is an HTTP 200 that h2load would count as done).

usage: serving_yardsticks.py BEF_SERVE SERVE_TEST.bef [ROUNDS [SECONDS]]
  needs wrk, h2load (Debian's nghttp2-client) and nginx; Debian's python3
  with grpcio for the check (scripts/install-deps.sh installs it).
"""
import os
import re
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

REQUEST_JSON = ('{"inputs":[{"name":"a","shape":[],"datatype":"INT32","data":[2]},'
                '{"name":"b","shape":[],"datatype":"INT32","data":[40]}]}')
ANSWER_JSON = ('{"model_name":"add","model_version":"1","outputs":[{"data":[42],'
               '"datatype":"INT32","name":"sum","shape":[]}]}')
MODEL_INFER = "/inference.GRPCInferenceService/ModelInfer"


# ---- Protobuf by hand (grpc_predict_v2.proto's field numbers).
def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, payload):
    """A length-delimited field (strings, messages)."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def model_infer_request():
    def tensor(name, value):
        contents = field(2, varint(value))  # int_contents, packed
        return field(1, name.encode()) + field(2, b"INT32") + field(5, contents)
    return field(1, b"add") + field(5, tensor("a", 2)) + field(5, tensor("b", 40))


def grpc_frame(message):
    return b"\x00" + struct.pack(">I", len(message)) + message


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nothing listens on %d" % port)


def check_grpc(port, request):
    """bef_serve's answer to `request`: its size, after checking it is OK."""
    check = ("import grpc, sys\n"
             "channel = grpc.insecure_channel('127.0.0.1:%d')\n"
             "call = channel.unary_unary('%s')\n"
             "answer = call(sys.stdin.buffer.read(), timeout=10)\n"
             "print(len(answer))\n" % (port, MODEL_INFER))
    result = subprocess.run(["/usr/bin/python3", "-c", check], input=request,
                            capture_output=True, timeout=60)
    if result.returncode != 0:
        raise RuntimeError("bef_serve's gRPC answer is not OK: %s" % result.stderr.decode())
    return int(result.stdout)


def start_bef_serve(bef_serve, program, work):
    repository = os.path.join(work, "repository")
    os.makedirs(os.path.join(repository, "add", "1"))
    shutil.copy(program, os.path.join(repository, "add", "1", "model.bef"))
    with open(os.path.join(repository, "add", "config.json"), "w") as f:
        f.write('{"entry_function": "add", "inputs": [{"name": "a"}, {"name": "b"}], '
                '"outputs": [{"name": "sum"}]}')
    http_port, grpc_port = free_port(), free_port()
    server = subprocess.Popen(
        [bef_serve, "--port=%d" % http_port, "--grpc_port=%d" % grpc_port,
         "--work_queue_type=mstd:2", "--model_repository=" + repository],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "bef_serve.log"), "w"))
    wait_for_port(http_port)
    wait_for_port(grpc_port)
    return server, http_port, grpc_port


def start_nginx(work, grpc_answer_bytes):
    root = os.path.join(work, "nginx")
    os.makedirs(os.path.join(root, "logs"))
    http_port, h2c_port = free_port(), free_port()
    # A text body of the gRPC answer's size: h2load counts bytes, not content.
    grpc_body = "x" * grpc_answer_bytes
    with open(os.path.join(root, "nginx.conf"), "w") as f:
        f.write("""
worker_processes 1;
daemon off;
pid %(root)s/nginx.pid;
error_log %(root)s/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path %(root)s/body;
  proxy_temp_path %(root)s/proxy;
  fastcgi_temp_path %(root)s/fastcgi;
  uwsgi_temp_path %(root)s/uwsgi;
  scgi_temp_path %(root)s/scgi;
  keepalive_requests 1000000;
  http2_max_requests 1000000;
  server {
    listen 127.0.0.1:%(http)d;
    location / {
      default_type application/json;
      return 200 '%(answer)s';
    }
  }
  server {
    listen 127.0.0.1:%(h2c)d http2;
    location / {
      default_type application/grpc;
      add_trailer grpc-status 0 always;
      return 200 '%(grpc_body)s';
    }
  }
}
""" % {"root": root, "http": http_port, "h2c": h2c_port, "answer": ANSWER_JSON,
       "grpc_body": grpc_body})
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    server = subprocess.Popen([nginx, "-p", root, "-c", os.path.join(root, "nginx.conf")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_port(http_port)
    wait_for_port(h2c_port)
    return server, http_port, h2c_port


def wrk(port, script, seconds):
    out = subprocess.run(["wrk", "-t2", "-c8", "-d%ds" % seconds, "-s", script,
                          "http://127.0.0.1:%d/v2/models/add/infer" % port],
                         capture_output=True, text=True, timeout=seconds + 60).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        raise RuntimeError("wrk saw errors:\n" + out)
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))


def h2load(port, data, seconds):
    out = subprocess.run(
        ["h2load", "-t2", "-c8", "-m8", "-D", str(seconds), "-d", data,
         "-H", "content-type: application/grpc", "-H", "te: trailers",
         "http://127.0.0.1:%d%s" % (port, MODEL_INFER)],
        capture_output=True, text=True, timeout=seconds + 60).stdout
    done = re.search(r"requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed",
                     out)
    if not done or done.group(3) != "0" or done.group(1) != done.group(2):
        raise RuntimeError("h2load saw failures:\n" + out)
    return float(re.search(r"finished in [\d.]+m?s, ([\d.]+) req/s", out).group(1))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    bef_serve, program = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    seconds = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    for tool in ("wrk", "h2load"):
        if shutil.which(tool) is None:
            sys.exit("%s is not installed (apt-get install wrk nghttp2-client)" % tool)
    work = tempfile.mkdtemp()
    servers = []
    try:
        request = grpc_frame(model_infer_request())
        data = os.path.join(work, "model_infer.bin")
        with open(data, "wb") as f:
            f.write(request)
        script = os.path.join(work, "post.lua")
        with open(script, "w") as f:
            f.write('wrk.method = "POST"\nwrk.body = \'%s\'\n'
                    'wrk.headers["Content-Type"] = "application/json"\n' % REQUEST_JSON)
        bef, bef_http, bef_grpc = start_bef_serve(bef_serve, program, work)
        servers.append(bef)
        answer_bytes = check_grpc(bef_grpc, model_infer_request())
        nginx, nginx_http, nginx_h2c = start_nginx(work, answer_bytes + 5)
        servers.append(nginx)
        rows = {
            "nginx HTTP/1.1 (wrk)": lambda: wrk(nginx_http, script, seconds),
            "bef_serve HTTP/1.1 (wrk)": lambda: wrk(bef_http, script, seconds),
            "nginx h2c (h2load)": lambda: h2load(nginx_h2c, data, seconds),
            "bef_serve gRPC (h2load)": lambda: h2load(bef_grpc, data, seconds),
        }
        results = {name: [] for name in rows}
        for round_number in range(rounds):
            for name, run in rows.items():
                results[name].append(run())
                print("round %d, %s: %.0f req/s" % (round_number + 1, name,
                                                     results[name][-1]), flush=True)
        median = {name: statistics.median(values) for name, values in results.items()}
        print()
        print("| row | req/s: median (range) |")
        print("|---|---|")
        for name, values in results.items():
            print("| %s | %.0f (%.0f-%.0f) |" % (name, median[name], min(values), max(values)))
        print()
        for what, ratio, target in (
                ("gRPC / nginx h2c", median["bef_serve gRPC (h2load)"] /
                 median["nginx h2c (h2load)"], 0.5),
                ("gRPC / bef_serve HTTP/1.1", median["bef_serve gRPC (h2load)"] /
                 median["bef_serve HTTP/1.1 (wrk)"], 0.7),
                ("HTTP/1.1 / nginx HTTP/1.1", median["bef_serve HTTP/1.1 (wrk)"] /
                 median["nginx HTTP/1.1 (wrk)"], 0.7)):
            print("%s: %.2fx (target >= %.1fx: %s)" % (what, ratio, target,
                                                       "met" if ratio >= target else "not met"))
    finally:
        for server in servers:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
