#!/bin/bash
# Quickstart example: installs what is missing, builds, and runs the example
# end to end, printing its output.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ "${BEF_SKIP_DEPS:-0}" == 1 ]] || bash scripts/install-deps.sh
bazel build --config=ci //tools:make-example-bef //tools:bef-dump //tools:bef_executor
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
bazel-bin/tools/make-example-bef "$out/example.bef"
echo
bazel-bin/tools/bef-dump --summary "$out/example.bef"
echo
bazel-bin/tools/bef_executor "$out/example.bef"
