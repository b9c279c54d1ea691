#!/bin/bash
# usage: golden_run_test.sh run_golden.py path/to/bef_executor
set -euo pipefail
script="$1"
bin_dir="$(cd "$(dirname "$2")" && pwd)"
golden="$(cd ../golden/files && pwd)"
exec python3 "$script" "$golden" "$bin_dir"
