#!/bin/bash
# usage: manifests_test.sh SCRIPT ARGS...: Debian's Python (python3-yaml).
set -euo pipefail
exec /usr/bin/python3 "$@"
