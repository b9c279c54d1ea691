#!/bin/bash
# usage: replay_test.sh REPLAY_BINARY CORPUS_DIR...
set -euo pipefail
binary="$1"; shift
"$binary" "$@"
