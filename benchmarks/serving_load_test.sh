#!/bin/bash
# usage: serving_load_test.sh SERVING_LOAD ARGS... -- PROTOCOL_FLAGS...: runs
# the load test once per protocol flag set (separated by `,`); each run's exit
# status says whether every good request got the right answer and none was
# lost.
set -euo pipefail
load="$1"
shift
common=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  common+=("$1")
  shift
done
shift || true
IFS=',' read -r -a variants <<< "${*:-}"
if [[ ${#variants[@]} -eq 0 ]]; then variants=(""); fi
for variant in "${variants[@]}"; do
  # shellcheck disable=SC2086
  "$load" "${common[@]}" $variant
done
