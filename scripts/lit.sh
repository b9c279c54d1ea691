#!/bin/bash
# Runs the program test suite (tests/**/*.mlir) with lit, outside Bazel:
#   bash scripts/lit.sh [lit args, e.g. tests/basic_kernels -v]
# Builds the tools first; uses Debian's LLVM 22 lit, FileCheck, not, count.
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build //tools:bef-dump //tools:bef-opt //tools:bef-to-mlir \
  //tools:bef_executor //tools:mlir-to-bef >/dev/null 2>&1
export PATH="$PWD/bazel-bin/tools:/usr/lib/llvm-22/bin:$PATH"
if [ $# -eq 0 ]; then set -- tests; fi
# Scratch files go outside the source tree.
exec_root="$(mktemp -d)"
trap 'rm -rf "$exec_root"' EXIT
python3 /usr/lib/llvm-22/bin/lit -s --param "exec_root=$exec_root" "$@"
