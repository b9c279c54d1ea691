#!/bin/bash
# The C++ side of the call-overhead benchmark runs and prints its three
# cases (a few calls: a smoke test, not a timing).
set -euo pipefail
output="$("$1" "$2" 200)"
echo "$output"
for name in empty add tensor_1mb; do
  grep -qE "^$name [0-9.]+$" <<<"$output" || { echo "missing: $name"; exit 1; }
done
