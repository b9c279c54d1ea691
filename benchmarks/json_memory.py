#!/usr/bin/env python3
"""Eight concurrent ~15 MiB Open Inference Protocol JSON bodies (3.2 million
FP32 values each) to one bef_serve: peak RSS growth over idle, RSS 5 s
later, wall time (docs/performance.md, "Serving"; issue #34's target: growth
under 512 MiB, back within 64 MiB of idle).

usage: json_memory.py BEF_SERVE SERVE_TEST.bef
"""
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time


def main(binary, program):
    root = tempfile.mkdtemp()
    try:
        os.makedirs(os.path.join(root, "consume", "1"))
        shutil.copy(program, os.path.join(root, "consume", "1", "model.bef"))
        with open(os.path.join(root, "consume", "config.json"), "w") as f:
            json.dump({"entry_function": "consume",
                       "inputs": [{"name": "t", "datatype": "FP32", "shape": [-1]}]}, f)
        server = subprocess.Popen([binary, "--port=0", "--model_repository=" + root,
                                   "--max_body_bytes=20000000"], stdout=subprocess.PIPE, text=True)
        port = int(server.stdout.readline().rsplit(":", 1)[1])
        count = 3_200_000
        body = ('{"inputs": [{"name": "t", "datatype": "FP32", "shape": [%d], "data": [' % count +
                ",".join(["1.25"] * count) + "]}]}").encode()

        def status(field):
            with open("/proc/%d/status" % server.pid) as lines:
                for line in lines:
                    if line.startswith(field):
                        return int(line.split()[1]) // 1024
            return 0

        def post():
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            connection.request("POST", "/v2/models/consume/infer", body,
                               {"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            connection.close()
            assert response.status == 200, response.status

        idle = status("VmRSS:")
        start = time.monotonic()
        clients = [threading.Thread(target=post) for _ in range(8)]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
        seconds = time.monotonic() - start
        time.sleep(5)
        peak = status("VmHWM:")
        print("8 x %.1f MiB JSON: idle %d MiB, peak %d MiB (+%d MiB), 5 s later %d MiB, %.1f s" %
              (len(body) / 2 ** 20, idle, peak, peak - idle, status("VmRSS:"), seconds))
        server.terminate()
        server.wait()
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
