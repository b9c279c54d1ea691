#!/bin/bash
# The Python package's call overhead against the C++ embedding API
# (docs/performance.md, "Python"): builds the wheel and the C++ side,
# installs the wheel into a temporary venv and runs
# benchmarks/python_call_overhead.py (rounds alternate C++ and Python).
#
#   bash scripts/python-benchmarks.sh [--rounds N] [--calls N] [--work_queue SPEC]
set -euo pipefail
cd "$(dirname "$0")/.."
[[ "${BEF_SKIP_DEPS:-0}" == 1 ]] || bash scripts/install-deps.sh
BEF_SKIP_DEPS=1 bash scripts/python.sh > /dev/null
bazel build --config=ci //benchmarks:embedding_call_overhead //benchmarks:call_overhead_bef
bin="$(bazel info --config=ci bazel-bin 2>/dev/null)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$scratch/venv"
"$scratch/venv/bin/pip" install --no-index --no-cache-dir --quiet --no-deps dist/bef-*.whl
cp benchmarks/python_call_overhead.py "$scratch/"
cd "$scratch"
./venv/bin/python python_call_overhead.py --cpp "$bin/benchmarks/embedding_call_overhead" \
  --bef "$bin/benchmarks/call_overhead.bef" "$@"
