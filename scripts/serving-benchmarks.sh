#!/bin/bash
# The serving numbers of docs/performance.md: serving_load against bef_serve
# (-c opt, mstd:2, 8 keep-alive clients, both on this machine), every
# protocol and payload, ROUNDS interleaved rounds of SECONDS each:
#
#   scalar: `add` of two INT32s (--mix=scalar), over /v1/, the protocol's
#           HTTP/JSON and gRPC (one call at a time per client, and 8 in
#           flight per client as h2load's -m8: serving_load's asynchronous
#           gRPC client), and HTTP/JSON with 1,000 idle keep-alive and
#           200 slowloris connections held open;
#   tensor: `echo` of a 1 MiB INT32 tensor (--mix=tensor), HTTP/JSON, HTTP
#           binary tensor data, gRPC;
#   and first the memory of eight concurrent ~15 MiB JSON bodies
#   (benchmarks/json_memory.py);
#   nginx (when installed): the same client's tiny requests against nginx
#   answering an `add` answer of the same size from memory (`return 200`,
#   2 worker processes, as a front end on this 2-core machine is run), the
#   baseline of the serving issue's tiny-request target.
#
#   and then (when wrk and h2load are installed: apt-get install wrk
#   nghttp2-client) benchmarks/serving_yardsticks.py: the serving issue's
#   targets measured with the tools people use, interleaved -- wrk against
#   bef_serve's and nginx's HTTP/1.1, h2load against bef_serve's gRPC and
#   nginx's h2c, the same request bytes.
#
#   bash scripts/serving-benchmarks.sh            # 2 rounds of 60 s
#   SECONDS_EACH=10 ROUNDS=1 bash scripts/serving-benchmarks.sh
#   ONLY=scalar bash ...                          # only rows whose name holds it
#   OTHER_SERVER=/path/to/bef_serve bash ...      # adds /v1/ scalar runs of it
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${SECONDS_EACH:-60}"
rounds="${ROUNDS:-2}"
bazel build --config=opt //tools:bef_serve //benchmarks:serving_load \
  //tests/serving:serve_test_bef >&2
bin="$(bazel info --config=opt bazel-bin 2>/dev/null)"
load() {
  "$bin/benchmarks/serving_load" --server="${SERVER:-$bin/tools/bef_serve}" \
    --program="$bin/tests/serving/serve_test.bef" --seconds="$seconds" "$@" 2>&1 | tail -1
}
runs=(
  "v1 scalar|--protocol=v1 --mix=scalar"
  "http scalar|--protocol=http --mix=scalar"
  "grpc scalar|--protocol=grpc --mix=scalar"
  "grpc scalar, 8 calls in flight per client|--protocol=grpc --mix=scalar --calls_per_client=8"
  "http scalar, 1,200 hostile connections|--protocol=http --mix=scalar --idle_connections=1000 --slowloris_connections=200"
  "http tensor 1 MiB JSON|--protocol=http --mix=tensor"
  "http tensor 1 MiB binary|--protocol=http --binary --mix=tensor"
  "grpc tensor 1 MiB|--protocol=grpc --mix=tensor"
)
# nginx answering from memory on a free loopback port, for the baseline row.
nginx_dir=""
nginx_port=""
start_nginx() {
  local nginx_bin
  nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
  [[ -x "$nginx_bin" ]] || return 0
  nginx_dir="$(mktemp -d)"
  nginx_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  mkdir -p "$nginx_dir/logs"
  cat > "$nginx_dir/nginx.conf" <<CONF
worker_processes 2;
daemon off;
pid $nginx_dir/nginx.pid;
error_log $nginx_dir/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $nginx_dir/body;
  proxy_temp_path $nginx_dir/proxy;
  fastcgi_temp_path $nginx_dir/fastcgi;
  uwsgi_temp_path $nginx_dir/uwsgi;
  scgi_temp_path $nginx_dir/scgi;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$nginx_port;
    location / {
      default_type application/json;
      return 200 '{"model_name":"add_0","model_version":"1","outputs":[{"data":[-1234567],"datatype":"INT32","name":"output_0","shape":[]}]}';
    }
  }
}
CONF
  "$nginx_bin" -p "$nginx_dir" -c "$nginx_dir/nginx.conf" &
  nginx_pid=$!
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$nginx_port") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nginx did not start: $(cat "$nginx_dir/logs/error.log")" >&2
  nginx_port=""
}
stop_nginx() {
  if [[ -n "${nginx_pid:-}" ]]; then
    kill "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
  fi
  [[ -n "$nginx_dir" ]] && rm -rf "$nginx_dir"
}
trap stop_nginx EXIT
start_nginx
if [[ -n "$nginx_port" ]]; then
  runs=("nginx scalar, the same JSON answer from memory|--protocol=http --mix=scalar --target=127.0.0.1:$nginx_port --answer_from_memory"
        "${runs[@]}")
fi

# Memory of eight concurrent ~15 MiB JSON bodies (the protocol's form).
[[ -n "${ONLY:-}" ]] || echo "json memory: $(python3 benchmarks/json_memory.py "${SERVER:-$bin/tools/bef_serve}" \
  "$bin/tests/serving/serve_test.bef")"
for ((round = 1; round <= rounds; ++round)); do
  for run in "${runs[@]}"; do
    name="${run%%|*}" flags="${run#*|}"
    [[ -z "${ONLY:-}" || "$name" == *"$ONLY"* ]] || continue
    # shellcheck disable=SC2086
    echo "round $round, $name: $(load $flags)"
    if [[ -n "${OTHER_SERVER:-}" && "$name" == "v1 scalar" ]]; then
      # shellcheck disable=SC2086
      echo "round $round, $name (OTHER_SERVER): $(SERVER="$OTHER_SERVER" load $flags)"
    fi
  done
done

if [[ -z "${ONLY:-}" || "yardsticks" == *"$ONLY"* ]]; then
  if command -v wrk >/dev/null && command -v h2load >/dev/null; then
    echo
    python3 benchmarks/serving_yardsticks.py "${SERVER:-$bin/tools/bef_serve}" \
      "$bin/tests/serving/serve_test.bef" "$rounds" "$((seconds < 10 ? seconds : 10))"
  else
    echo "(wrk or h2load is not installed: apt-get install wrk nghttp2-client for the yardsticks)"
  fi
fi
