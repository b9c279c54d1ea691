#!/bin/bash
# Builds the `bef` Python wheel (docs/python.md) offline and copies it to
# dist/; with --install VENV, also creates VENV (a fresh venv that sees
# Debian's NumPy) and installs the wheel into it; with --check, installs
# into a temporary venv and runs an example from outside the tree.
#
#   bash scripts/python.sh                      # dist/bef-*.whl
#   bash scripts/python.sh --install ~/bef-venv # and a venv with it
#   bash scripts/python.sh --check
set -euo pipefail
cd "$(dirname "$0")/.."
install_dir="" check=0
while (($#)); do
  case "$1" in
    --install) install_dir="$2"; shift 2 ;;
    --check) check=1; shift ;;
    *) echo "usage: $0 [--install VENV] [--check]" >&2; exit 2 ;;
  esac
done
[[ "${BEF_SKIP_DEPS:-0}" == 1 ]] || bash scripts/install-deps.sh
bazel build --config=ci //python:wheel
mkdir -p dist
bin="$(bazel info --config=ci bazel-bin 2>/dev/null)"
wheel="$(ls "$bin"/python/bef-*.whl)"
cp -f "$wheel" dist/
wheel="dist/$(basename "$wheel")"
chmod 644 "$wheel"
echo "built $wheel"

install_into() {  # VENV
  /usr/bin/python3 -m venv --system-site-packages "$1"
  # --no-deps: NumPy comes from Debian (python3-numpy) through the system
  # site-packages.
  "$1/bin/pip" install --no-index --no-cache-dir --quiet --force-reinstall --no-deps "$wheel"
  "$1/bin/python" -c "import numpy" ||
    { echo "NumPy is missing: apt-get install python3-numpy" >&2; return 1; }
}

if [[ -n "$install_dir" ]]; then
  install_into "$install_dir"
  echo "installed into $install_dir: $install_dir/bin/python -c 'import bef'"
fi
if ((check)); then
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
  install_into "$scratch/venv"
  cp examples/python_example.py "$scratch/"
  (cd "$scratch" && ./venv/bin/python python_example.py)
fi
