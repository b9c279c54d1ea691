#!/bin/bash
# Builds bef_serve's container image offline (docs/serving.md, "Container
# image"): an OCI image in local container storage and an OCI archive under
# dist/.
#
#   bash scripts/image.sh          # localhost/bef-serve:<version>
#   IMAGE_NAME=registry.example.com/bef-serve bash scripts/image.sh
#
# The image holds no distribution: the project's own binaries, built here
# with -c opt and stripped (bef_serve, the converter tools, bef_executor,
# bef-dump), and exactly the shared libraries they load, copied from this
# Debian 12 system (the dynamic loader's answer, `ldd`, for each binary and
# plugin), plus /etc/passwd and /etc/group naming the non-root user it runs
# as (uid 1000), /tmp, and /mnt/models, the default model repository (where
# KServe's storage initializer puts a model). Its entrypoint is bef_serve
# with the ports and flags of the manifests in deploy/; labels name the
# version and the commit.
#
# Prints the image's name, then the archive's path (stdout; progress goes to
# stderr). Needs buildah (Debian's package; scripts/install-deps.sh installs
# it) and root, as buildah does.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v buildah >/dev/null || {
  echo "image.sh: buildah is not installed (apt-get install buildah)" >&2
  exit 1
}
# The project's version is the Python package's (python/bef/__init__.py).
version="$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' python/bef/__init__.py)"
[[ -n "$version" ]] || { echo "image.sh: no __version__ in python/bef/__init__.py" >&2; exit 1; }
revision="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
name="${IMAGE_NAME:-localhost/bef-serve}:${version}"
archive="dist/bef-serve-${version}.oci.tar"

tools=(bef_serve mlir-to-bef bef-to-mlir bef-opt bef_executor bef-dump)
targets=()
for tool in "${tools[@]}"; do targets+=("//tools:$tool"); done
bazel build --config=opt "${targets[@]}" //lib/host:libbef_tbb_arena.so \
  //kernels/cpu:libbef_onednn.so >&2
bin="$(bazel info --config=opt bazel-bin 2>/dev/null)"

rootfs="$(mktemp -d)"
container=""
cleanup() {
  [[ -n "$container" ]] && buildah rm "$container" >/dev/null 2>&1 || true
  rm -rf "$rootfs"
}
trap cleanup EXIT

mkdir -p "$rootfs/usr/local/bin" "$rootfs/etc" "$rootfs/tmp" "$rootfs/mnt/models"
chmod 1777 "$rootfs/tmp"
binaries=()
for tool in "${tools[@]}"; do
  install -m 755 "$bin/tools/$tool" "$rootfs/usr/local/bin/$tool"
  binaries+=("$rootfs/usr/local/bin/$tool")
done
# bef_executor's oneTBB plugin, where it looks first: beside the binary.
install -m 755 "$bin/lib/host/libbef_tbb_arena.so" "$rootfs/usr/local/bin/libbef_tbb_arena.so"
binaries+=("$rootfs/usr/local/bin/libbef_tbb_arena.so")
# The oneDNN plugin of the eigen.* kernels (kernels/cpu/onednn.h), beside
# the binaries too; oneDNN itself comes with the libraries below.
install -m 755 "$bin/kernels/cpu/libbef_onednn.so" "$rootfs/usr/local/bin/libbef_onednn.so"
binaries+=("$rootfs/usr/local/bin/libbef_onednn.so")
strip --strip-unneeded "${binaries[@]}"

# Every shared library the binaries and the plugin load (and the loader
# itself), at the path the loader found it at.
libraries="$(for binary in "${binaries[@]}"; do ldd "$binary"; done |
  awk '/=> \// {print $3} /^[ \t]*\/[^ ]+ \(0x/ {print $1}' | sort -u)"
for library in $libraries; do
  mkdir -p "$rootfs$(dirname "$library")"
  cp -L "$library" "$rootfs$library"
done
missing="$(for binary in "${binaries[@]}"; do ldd "$binary"; done | grep 'not found' || true)"
[[ -z "$missing" ]] || { echo "image.sh: unresolved libraries: $missing" >&2; exit 1; }
for binary in "${binaries[@]}"; do
  interpreter="$(readelf -l "$binary" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')"
  [[ -z "$interpreter" || -e "$rootfs$interpreter" ]] || {
    echo "image.sh: $binary's loader $interpreter is not in the image" >&2
    exit 1
  }
done

cat > "$rootfs/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/usr/sbin/nologin
bef:x:1000:1000:bef_serve:/tmp:/usr/sbin/nologin
PASSWD
cat > "$rootfs/etc/group" <<'GROUP'
root:x:0:
bef:x:1000:
GROUP

container="$(buildah from scratch)"
buildah copy "$container" "$rootfs" / >/dev/null
buildah config \
  --user 1000:1000 \
  --workingdir /tmp \
  --env PATH=/usr/local/bin \
  --port 8080/tcp --port 8081/tcp \
  --entrypoint '["/usr/local/bin/bef_serve"]' \
  --cmd '["--model_repository=/mnt/models", "--host=0.0.0.0", "--port=8080", "--grpc_port=8081", "--repository_poll_secs=10", "--drain_secs=20"]' \
  --stop-signal SIGTERM \
  --label org.opencontainers.image.title=bef-serve \
  --label org.opencontainers.image.description="bef_serve: BEF programs over the Open Inference Protocol (HTTP :8080, gRPC :8081)" \
  --label org.opencontainers.image.version="$version" \
  --label org.opencontainers.image.revision="$revision" \
  --label org.opencontainers.image.licenses=Apache-2.0 \
  "$container"
previous="$(buildah images --quiet "$name" 2>/dev/null || true)"
buildah commit --rm "$container" "$name" >/dev/null
container=""
# The image this name had before, now untagged, is dropped.
if [[ -n "$previous" && "$previous" != "$(buildah images --quiet "$name")" ]]; then
  buildah rmi "$previous" >/dev/null 2>&1 || true
fi
mkdir -p dist
rm -f "$archive"
buildah push "$name" "oci-archive:$archive:$name" >/dev/null 2>&1
echo "image.sh: $name ($(du -m "$archive" | cut -f1) MB archive: $archive)" >&2
echo "$name"
echo "$archive"
