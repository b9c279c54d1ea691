#!/bin/bash
# usage: golden_run_test.sh SCRIPT path/to/tool
# Runs SCRIPT GOLDEN_DIR TOOL_DIR (the tool's directory goes first on PATH).
set -euo pipefail
script="$1"
bin_dir="$(cd "$(dirname "$2")" && pwd)"
golden="$(cd ../golden/files && pwd)"
exec python3 "$script" "$golden" "$bin_dir"
