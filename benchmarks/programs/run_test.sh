#!/bin/bash
# The program benchmarks convert and run (benchmarks/programs/run.py at 1%
# size, one round): a program that stops converting or running fails here,
# not first in scripts/benchmarks.sh.
#   $1 run.py  $2 mlir-to-bef  $3 bef_executor  $4 bef_executor_with_author_kernels
set -euo pipefail
bin="$TEST_TMPDIR/bin"
mkdir -p "$bin/tools"
ln -sf "$PWD/$2" "$bin/tools/mlir-to-bef"
ln -sf "$PWD/$3" "$bin/tools/bef_executor"
mkdir -p "$bin/benchmarks"
ln -sf "$PWD/$4" "$bin/benchmarks/bef_executor_with_author_kernels"
table="$(python3 "$1" "$bin" "$TEST_TMPDIR/programs" 1 --scale=0.01)"
echo "$table"
rows=$(grep -c '^| [a-z0-9]' <<<"$table")
[[ "$rows" == 19 ]] || { echo "expected a header and 18 program rows, got $rows" >&2; exit 1; }
