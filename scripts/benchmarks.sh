#!/bin/bash
# Runs every benchmark and prints the tables of docs/performance.md:
#   bash scripts/benchmarks.sh            # programs, converter, microbenchmarks
#   BEF_BENCH_QUICK=1 bash scripts/benchmarks.sh   # programs only
#   BEF_BENCH_ROUNDS=N (default 5) rounds of the program table
#   BEF_CONVERTER_REFERENCE="tfrt_translate --mlir-to-bef": another
#     translator beside mlir-to-bef in the converter rows (same bytes checked)
# Program benchmarks are what users run: MLIR text
# (benchmarks/programs/generate.py) converted by mlir-to-bef and run by
# bef_executor with tfrt_test.benchmark (20 measured runs, p50), malloc
# allocator, as TFRT was measured, on `s` and `mstd:2`, interleaved
# (benchmarks/programs/run.py).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ "${BEF_SKIP_DEPS:-0}" == 1 ]] || bash scripts/install-deps.sh
bazel build --config=opt --config=ci //tools:bef_executor //tools:mlir-to-bef //tools:bef-opt \
  //benchmarks:all >/dev/null
bin=bazel-bin
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Whole-process wall times in ms of an empty program (spawn + exec + run +
# exit, timed by the parent, benchmarks/process_timer.cc), 101 rounds, each
# running /bin/true (the machine's floor for any process), bef_executor on
# `s` and on `mstd:2` one after the other, so all three see the same
# machine. Prints the p50 of each and the p50 over rounds of s - /bin/true.
startup() {
  printf 'func.func @main() {\n  tfrt.return\n}\n' > "$work/empty.mlir"
  "$bin/tools/mlir-to-bef" "$work/empty.mlir" -o "$work/empty.bef"
  "$bin/benchmarks/process_timer" 101 /bin/true \
    -- "$bin/tools/bef_executor" --work_queue_type=s "$work/empty.bef" \
    -- "$bin/tools/bef_executor" --work_queue_type=mstd:2 "$work/empty.bef" |
    awk 'NR == 1 { floor = $1 } NR == 2 { s = $1; share = $2 } NR == 3 { m = $1 }
         END { print s, m, floor, share }'
}

python3 benchmarks/programs/run.py "$bin" "$work/programs" "${BEF_BENCH_ROUNDS:-5}"
echo
# What handing work between two threads costs on this machine (beside the
# mstd:2 column, whose async rows hand tasks between its two threads).
"$bin/benchmarks/thread_handoff" 5
echo
echo "| start-up | unit | TFRT | target | this runtime |"
echo "|---|---|---|---|---|"
read -r startup_s startup_mstd startup_floor startup_share <<<"$(startup)"
echo "| whole process, empty program, s | ms | 4.4 | <= 1 | $startup_s |"
echo "| whole process, empty program, mstd:2 | ms | 31 | <= 2 | $startup_mstd |"
echo "| whole process, /bin/true (the floor) | ms | - | - | $startup_floor |"
echo "| whole process, s above /bin/true in the same round | ms | - | - | $startup_share |"

if [[ "${BEF_BENCH_QUICK:-0}" != 1 ]]; then
  echo
  # The converter, whole process (1,000 to 1,000,000 adds; about a minute).
  python3 benchmarks/converter_rows.py "$bin/tools/mlir-to-bef" "$bin/tools/bef-opt" \
    "$work/converter" 3 ${BEF_CONVERTER_REFERENCE:+"$BEF_CONVERTER_REFERENCE"}
  echo
  "$bin/benchmarks/async_benchmark" --benchmark_min_time=0.2 2>/dev/null
  "$bin/benchmarks/executor_benchmark" --benchmark_min_time=0.2 2>/dev/null
  "$bin/benchmarks/loader_benchmark" --benchmark_min_time=0.2 2>/dev/null
  "$bin/benchmarks/tensor_benchmark" --benchmark_min_time=0.2 2>/dev/null
  "$bin/benchmarks/tracing_benchmark" --benchmark_min_time=0.2 2>/dev/null
fi
