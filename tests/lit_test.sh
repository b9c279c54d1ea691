#!/bin/bash
# usage: lit_test.sh <lit.py> <test dir> <tool>...
# Puts each <tool> on PATH (so RUN lines can say `mlir-to-bef`, `FileCheck`)
# and runs LLVM's lit on <test dir>; lit's scratch files go to $TEST_TMPDIR.
set -euo pipefail
lit="$1"; testdir="$2"; shift 2
bin="$TEST_TMPDIR/bin"
mkdir -p "$bin"
for tool in "$@"; do
  case "$tool" in /*) src="$tool" ;; *) src="$PWD/$tool" ;; esac
  ln -sf "$src" "$bin/$(basename "$tool")"
done
export PATH="$bin:$PATH"
exec python3 "$lit" -sv --param "exec_root=$TEST_TMPDIR/lit" "$testdir"
