#!/bin/bash
# usage: mutate_test.sh MUTATE_BINARY SEED RUNS CORPUS...
# Runs the mutation driver; a crash keeps the input that caused it in the
# test's outputs (bazel-testlogs/.../test.outputs/current_input).
set -euo pipefail
binary="$1"; seed="$2"; runs="$3"; shift 3
out="${TEST_UNDECLARED_OUTPUTS_DIR:-${TMPDIR:-/tmp}}"
"$binary" "$seed" "$runs" "$out/current_input" "$@"
rm -f "$out/current_input"
