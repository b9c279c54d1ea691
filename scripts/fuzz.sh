#!/bin/bash
# Builds a libFuzzer target with clang-14 (ASan + UBSan + libFuzzer) and runs
# it on a copy of the golden corpus.
#
#   bash scripts/fuzz.sh                      # bef_file, 600 s
#   bash scripts/fuzz.sh bef_file 60          # target, seconds
#   bash scripts/fuzz.sh bef_exec 60          # full execution with limits
#   FUZZ_JOBS=2 bash scripts/fuzz.sh ...      # parallel jobs
#   FUZZ_RUNS=20000 bash scripts/fuzz.sh ...  # a fixed number of inputs from
#                                             # seed 1 (deterministic; the suite)
#   FUZZ_TIMEOUT=10 bash scripts/fuzz.sh ...  # an input slower than 10 s is a
#                                             # finding (libFuzzer's default: 1200)
#
# The build uses the system's Abseil and oneTBB directly (no Bazel): clang
# and Bazel's g++ toolchain do not mix. Findings are written to
# build/fuzz/<target>/ (crash-*, leak-*, timeout-*).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-bef_file}"
seconds="${2:-600}"
jobs="${FUZZ_JOBS:-1}"

need=()
command -v clang++-14 >/dev/null || need+=(clang-14)
dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q 'ok installed' || need+=(libclang-rt-14-dev)
if ((${#need[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
bash scripts/install-deps.sh

out="build/fuzz/$target"
mkdir -p "$out/corpus"
golden="${BEF_GOLDEN_DIR:-../shared/spec/golden}"
cp -n "$golden"/*.bef "$out/corpus/" 2>/dev/null || true

sources=(lib/format/*.cc lib/async/*.cc lib/host/*.cc lib/loader/*.cc lib/support/*.cc)
if [[ "$target" == bef_exec ]]; then
  sources+=(lib/executor/*.cc lib/tensor/*.cc kernels/basic/*.cc kernels/test/*.cc
            kernels/tensor/*.cc)
fi
sources=($(printf '%s\n' "${sources[@]}" | grep -v '_test\.cc$'))
absl_libs=$(pkg-config --libs absl_status absl_statusor absl_strings \
  absl_str_format absl_cord absl_flat_hash_map absl_time)
echo "building $out/${target}_fuzzer"
# One object per source, compiled in parallel (every core), then linked.
objects="$out/objects"
mkdir -p "$objects"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined -Iinclude -I.)
printf '%s\n' "tools/fuzz/${target}_fuzzer.cc" "${sources[@]}" |
  xargs -P "$(nproc)" -I{} sh -c \
    'clang++-14 "$@" -c {} -o "'"$objects"'/$(echo {} | tr / _).o"' _ "${flags[@]}"
clang++-14 -fsanitize=fuzzer,address,undefined "$objects"/*.o \
  $absl_libs -ltbb -lpthread -o "$out/${target}_fuzzer"
rm -rf "$objects"

limits=(-max_total_time="$seconds")
if [[ -n "${FUZZ_TIMEOUT:-}" ]]; then limits+=(-timeout="$FUZZ_TIMEOUT"); fi
if [[ -n "${FUZZ_RUNS:-}" ]]; then
  limits+=(-runs="$FUZZ_RUNS" -seed=1)
  echo "fuzzing $target: $FUZZ_RUNS inputs from seed 1 (at most ${seconds}s)"
else
  echo "fuzzing $target for ${seconds}s (${jobs} job(s))"
fi
cd "$out"
./"${target}_fuzzer" "${limits[@]}" -jobs="$jobs" -workers="$jobs" \
  -print_final_stats=1 -rss_limit_mb=4096 -max_len=65536 corpus 2>&1 | tail -25
