#!/bin/bash
# python_test: installs the wheel into a fresh venv (offline: --no-index;
# NumPy and pytest come from Debian through --system-site-packages), runs an
# example with it from outside the source tree, then runs python/tests with
# the installed package.
#   python_test.sh WHEEL PYTHON_TEST_BEF MLIR_TO_BEF BEF_DUMP EXAMPLE [sanitizer]
#
# `sanitizer` (the ASan+UBSan pass): the extensions are instrumented and the
# interpreter is not, so the sanitizer runtimes are preloaded into Python;
# leak checking is off (the interpreter keeps memory until exit, by design)
# and the RSS test is skipped (ASan's quarantine holds freed memory).
set -euo pipefail
wheel="$(realpath "$1")"
export BEF_PYTHON_TEST_BEF="$(realpath "$2")"
export BEF_MLIR_TO_BEF="$(realpath "$3")"
export BEF_DUMP="$(realpath "$4")"
example="$(realpath "$5")"
tests="$(realpath "$(dirname "$0")/tests")"
scratch="${TEST_TMPDIR:-$(mktemp -d)}"

venv="$scratch/venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
# Offline: NumPy (the wheel's one requirement) is Debian's, seen through the
# system site-packages, so pip resolves it without an index.
"$venv/bin/pip" install --no-index --no-cache-dir --quiet "$wheel"

if [[ "${6:-}" == sanitizer ]]; then
  export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
  export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
  export PYTHONMALLOC=malloc  # every Python object through ASan's allocator
  export BEF_SANITIZER=1
fi

# The walk-through of docs/python.md, from outside the source tree: `import
# bef` must find the installed package.
cp "$example" "$scratch/python_example.py"
cd "$scratch"
"$venv/bin/python" python_example.py
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$tests"
