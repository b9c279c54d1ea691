#!/bin/bash
# Quickstart example: installs what is missing, builds the tools, converts
# examples/hello.mlir to BEF with mlir-to-bef, lists it with bef-dump, runs
# it with bef_executor and prints it back as MLIR with bef-to-mlir.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ "${BEF_SKIP_DEPS:-0}" == 1 ]] || bash scripts/install-deps.sh
bazel build --config=ci //tools:mlir-to-bef //tools:bef-to-mlir //tools:bef-dump \
  //tools:bef_executor
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
set -x
bazel-bin/tools/mlir-to-bef examples/hello.mlir -o "$out/hello.bef"
bazel-bin/tools/bef-dump --summary "$out/hello.bef"
bazel-bin/tools/bef_executor "$out/hello.bef"
bazel-bin/tools/bef-to-mlir "$out/hello.bef"
