#!/bin/bash
# python_test: installs the wheel into a fresh venv (offline: --no-index;
# NumPy and pytest come from Debian through --system-site-packages), runs an
# example with it from outside the source tree, then runs python/tests with
# the installed package.
#   python_test.sh WHEEL PYTHON_TEST_BEF MLIR_TO_BEF BEF_DUMP
set -euo pipefail
wheel="$(realpath "$1")"
export BEF_PYTHON_TEST_BEF="$(realpath "$2")"
export BEF_MLIR_TO_BEF="$(realpath "$3")"
export BEF_DUMP="$(realpath "$4")"
tests="$(realpath "$(dirname "$0")/tests")"
scratch="${TEST_TMPDIR:-$(mktemp -d)}"

venv="$scratch/venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --no-index --no-cache-dir --quiet "$wheel"

cd "$scratch"  # never the source tree: `import bef` must find the installed package
"$venv/bin/python" - <<'PY'
import numpy as np, bef
program = bef.load(bef.mlir_to_bef("""
func.func @scale(%t: !tfrt_tensor.tensor, %c0: !tfrt.chain) -> (!tfrt_tensor.tensor, !tfrt.chain) {
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %t, %c0 2.0 : f32
  tfrt.return %t, %c1 : !tfrt_tensor.tensor, !tfrt.chain
}
"""), work_queue="mstd:2")
print(bef.__file__)
print(program.functions["scale"])
print(program.run("scale", np.zeros((2, 3), np.float32)))
PY
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$tests"
