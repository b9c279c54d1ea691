#!/bin/bash
# usage: python_test.sh SCRIPT ARGS...: runs a Python test script.
set -euo pipefail
exec python3 "$@"
