#!/bin/bash
# The serving numbers of docs/performance.md: serving_load against bef_serve
# (-c opt, mstd:2, 8 keep-alive clients, both on this machine), every
# protocol and payload, ROUNDS interleaved rounds of SECONDS each:
#
#   scalar: `add` of two INT32s (--mix=scalar), over /v1/, the protocol's
#           HTTP/JSON and gRPC, and HTTP/JSON with 1,000 idle keep-alive and
#           200 slowloris connections held open;
#   tensor: `echo` of a 1 MiB INT32 tensor (--mix=tensor), HTTP/JSON, HTTP
#           binary tensor data, gRPC;
#   and first the memory of eight concurrent ~15 MiB JSON bodies
#   (benchmarks/json_memory.py).
#
#   bash scripts/serving-benchmarks.sh            # 2 rounds of 60 s
#   SECONDS_EACH=10 ROUNDS=1 bash scripts/serving-benchmarks.sh
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
  "http scalar, 1,200 hostile connections|--protocol=http --mix=scalar --idle_connections=1000 --slowloris_connections=200"
  "http tensor 1 MiB JSON|--protocol=http --mix=tensor"
  "http tensor 1 MiB binary|--protocol=http --binary --mix=tensor"
  "grpc tensor 1 MiB|--protocol=grpc --mix=tensor"
)
# Memory of eight concurrent ~15 MiB JSON bodies (the protocol's form).
echo "json memory: $(python3 benchmarks/json_memory.py "${SERVER:-$bin/tools/bef_serve}" \
  "$bin/tests/serving/serve_test.bef")"
for ((round = 1; round <= rounds; ++round)); do
  for run in "${runs[@]}"; do
    name="${run%%|*}" flags="${run#*|}"
    # shellcheck disable=SC2086
    echo "round $round, $name: $(load $flags)"
    if [[ -n "${OTHER_SERVER:-}" && "$name" == "v1 scalar" ]]; then
      # shellcheck disable=SC2086
      echo "round $round, $name (OTHER_SERVER): $(SERVER="$OTHER_SERVER" load $flags)"
    fi
  done
done
