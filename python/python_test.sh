#!/bin/bash
# python_test: installs the wheel into a fresh venv (offline: --no-index;
# NumPy and pytest come from Debian through --system-site-packages), runs an
# example with it from outside the source tree, then runs python/tests with
# the installed package.
#   python_test.sh WHEEL PYTHON_TEST_BEF MLIR_TO_BEF BEF_DUMP EXAMPLE [asan|tsan]
#
# asan, tsan (the sanitizer passes): the extensions are instrumented and the
# interpreter is not, so the sanitizer runtime is preloaded into Python and
# Python allocates with malloc (which the sanitizers see). ASan: leak
# checking is off (the interpreter keeps memory until exit, by design).
# TSan: the interpreter's GIL hand-offs are pthread mutexes, which TSan
# sees; tests/tsan_suppressions.txt names the uninstrumented libraries.
# Both skip the RSS test (the sanitizers hold freed memory); TSan also
# skips the fork test (it does not support threads started after a
# multi-threaded process forks).
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

# The runtime extension never holds MLIR (only bef.converter's does: LLVM
# and MLIR are linked statically, so they show in its symbols, not in its
# libraries).
site="$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['platlib'])")"
has_mlir() { nm -D --defined-only "$1" | grep MLIRContext >/dev/null; }  # all of nm read
if ldd "$site/bef/_runtime.so" | grep -E "libMLIR|libLLVM" || has_mlir "$site/bef/_runtime.so"; then
  echo "bef/_runtime.so holds MLIR/LLVM"; exit 1
fi
has_mlir "$site/bef/_converter.so" || { echo "bef/_converter.so: no MLIR"; exit 1; }

case "${6:-}" in
  asan)
    export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
    export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
    export PYTHONMALLOC=malloc BEF_SANITIZER=asan ;;
  tsan)
    export LD_PRELOAD="$(gcc -print-file-name=libtsan.so)"
    export TSAN_OPTIONS="${TSAN_OPTIONS:-}:suppressions=$(realpath "$(dirname "$0")/tests/tsan_suppressions.txt")"
    export PYTHONMALLOC=malloc BEF_SANITIZER=tsan ;;
esac

# The walk-through of docs/python.md, from outside the source tree: `import
# bef` must find the installed package.
cp "$example" "$scratch/python_example.py"
cd "$scratch"
"$venv/bin/python" python_example.py
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$tests"
