#!/bin/bash
# onnx_test: installs the `bef` wheel into a fresh venv (offline; NumPy,
# ONNX and gRPC come from Debian through --system-site-packages), then runs
# onnx_models_test.py with it: the onnx-to-bef command the wheel installs,
# bef_executor, bef_serve and ONNX Runtime (node + /opt/onnxruntime-node,
# from scripts/install-deps.sh).
#   onnx_test.sh WHEEL BEF_EXECUTOR MLIR_TO_BEF BEF_SERVE [asan]
set -euo pipefail
wheel="$(realpath "$1")"
export BEF_EXECUTOR="$(realpath "$2")"
export BEF_MLIR_TO_BEF="$(realpath "$3")"
export BEF_SERVE="$(realpath "$4")"
test_file="$(cd "$(dirname "$0")" && pwd)/onnx_models_test.py"
export BEF_RUNFILES="$PWD"  # the generated gRPC stubs (tools/serving/*_pb2.py)
scratch="${TEST_TMPDIR:-$(mktemp -d)}"

venv="$scratch/venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --no-index --no-cache-dir --quiet "$wheel"
export BEF_ONNX_TO_BEF="$venv/bin/onnx-to-bef"

if [[ "${5:-}" == asan ]]; then
  # As python_test.sh: the extensions are instrumented, the interpreter is not.
  export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
  export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
  export PYTHONMALLOC=malloc
fi
# bazel's PATH has no node of its own on some machines: Debian's is /usr/bin/node.
export PATH="$PATH:/usr/bin"
exec "$venv/bin/python" "$test_file"
