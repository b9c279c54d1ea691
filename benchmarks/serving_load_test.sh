#!/bin/bash
# usage: serving_load_test.sh SERVING_LOAD ARGS...: runs the load test; its
# exit status says whether every good request got the right answer.
set -euo pipefail
exec "$@"
