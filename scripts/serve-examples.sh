#!/bin/bash
# Serves the example model repository (examples/models): builds bef_serve and
# mlir-to-bef, converts each examples/models/<model>/<version>/model.mlir to
# model.bef in a repository under bazel-bin's sibling directory, then runs
#
#   bef_serve --model_repository=DIR --port=8000 --grpc_port=8001 [ARGS...]
#
# in the foreground (Ctrl-C or SIGTERM stops it). docs/serving.md's curl
# examples talk to it.
#
#   bash scripts/serve-examples.sh                 # ports 8000 (HTTP), 8001 (gRPC)
#   bash scripts/serve-examples.sh --port=9000     # any bef_serve flag
set -euo pipefail
cd "$(dirname "$0")/.."
[[ "${BEF_SKIP_DEPS:-0}" == 1 ]] || bash scripts/install-deps.sh >&2
bazel build --config=opt //tools:bef_serve //tools:mlir-to-bef >&2
bin="$(bazel info --config=opt bazel-bin 2>/dev/null)"
repository="$(mktemp -d /tmp/bef-example-models.XXXXXX)"
for source in examples/models/*/*/model.mlir; do
  version_dir="${source%/model.mlir}"
  model_dir="${version_dir%/*}"
  target="$repository/${model_dir#examples/models/}/${version_dir##*/}"
  mkdir -p "$target"
  "$bin/tools/mlir-to-bef" "$source" -o "$target/model.bef"
  [[ -f "$model_dir/config.json" ]] && cp "$model_dir/config.json" "$repository/${model_dir#examples/models/}/"
done
echo "serve-examples: repository $repository" >&2
"$bin/tools/bef_serve" --model_repository="$repository" --port=8000 --grpc_port=8001 "$@" &
server=$!
trap 'kill -TERM "$server" 2>/dev/null' TERM INT
status=0
wait "$server" || status=$?
wait "$server" 2>/dev/null || true  # after a signal: until it has drained
rm -rf "$repository"
exit "$status"
