#!/bin/bash
# Runs every benchmark and prints a table (docs/performance.md):
#   bash scripts/benchmarks.sh            # programs + microbenchmarks
#   BEF_BENCH_QUICK=1 bash scripts/benchmarks.sh   # programs only
# Program benchmarks run through bef_executor with tfrt_test.benchmark
# (20 measured runs, p50), malloc allocator, as TFRT was measured.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ "${BEF_SKIP_DEPS:-0}" == 1 ]] || bash scripts/install-deps.sh
bazel build --config=opt --config=ci //tools:bef_executor //benchmarks:all >/dev/null
bin=bazel-bin
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# p50 time in ns of `kind` (size n, queue q), divided by `per` work items.
program() {
  local kind="$1" n="$2" per="$3" queue="$4"
  "$bin/benchmarks/make_benchmark_bef" "$kind" "$n" "$work/$kind.bef" 20 30
  local p50
  p50=$("$bin/tools/bef_executor" --host_allocator_type=malloc \
        --work_queue_type="$queue" "$work/$kind.bef" |
        sed -n "s/^BM:$kind:Time 50%(ns): //p")
  awk -v t="$p50" -v p="$per" 'BEGIN { printf "%.2f", t / p }'
}

# Whole-process wall times in ms of an empty program (spawn + exec + run +
# exit, timed by the parent, benchmarks/process_timer.cc), 101 rounds, each
# running /bin/true (the machine's floor for any process), bef_executor on
# `s` and on `mstd:2` one after the other, so all three see the same
# machine. Prints the p50 of each and the p50 over rounds of s - /bin/true.
startup() {
  "$bin/benchmarks/make_benchmark_bef" empty 0 "$work/empty.bef"
  "$bin/benchmarks/process_timer" 101 /bin/true \
    -- "$bin/tools/bef_executor" --work_queue_type=s "$work/empty.bef" \
    -- "$bin/tools/bef_executor" --work_queue_type=mstd:2 "$work/empty.bef" |
    awk 'NR == 1 { floor = $1 } NR == 2 { s = $1; share = $2 } NR == 3 { m = $1 }
         END { print s, m, floor, share }'
}

echo "| program | unit | TFRT | target | this runtime |"
echo "|---|---|---|---|---|"
echo "| chain: 100,000 dependent tfrt.add.i32 | ns per add | 36-38 | <= 9 | $(program chain 100000 100000 s) |"
echo "| wide: 100,000 adds + reduction tree, s | ns per add | 141-152 | <= 35 | $(program wide 100000 199999 s) |"
echo "| wide, mstd:2 | ns per add | 99-126 | 1.6x faster than s | $(program wide 100000 199999 mstd:2) |"
echo "| repeat: tfrt.repeat.i32 1,000,000 | ns per iteration | 196-210 | <= 50 | $(program repeat 1000000 1000000 s) |"
echo "| add: benchmark.mlir (constant + add) | ns per run | 201 | <= 50 | $(program add 1 1 s) |"
echo "| fan-out: one value used by 10,000 adds | ns per add | - | - | $(program fanout 10000 10000 s) |"
echo "| star: 10,000 constants into one merge | ns per constant | - | - | $(program star 10000 10000 s) |"
read -r startup_s startup_mstd startup_floor startup_share <<<"$(startup)"
echo "| whole process, empty program, s | ms | 4.4 | <= 1 | $startup_s |"
echo "| whole process, empty program, mstd:2 | ms | 31 | <= 2 | $startup_mstd |"
echo "| whole process, /bin/true (the floor) | ms | - | - | $startup_floor |"
echo "| whole process, s above /bin/true in the same round | ms | - | - | $startup_share |"

if [[ "${BEF_BENCH_QUICK:-0}" != 1 ]]; then
  echo
  "$bin/benchmarks/async_benchmark" --benchmark_min_time=0.2 2>/dev/null
  "$bin/benchmarks/executor_benchmark" --benchmark_min_time=0.2 2>/dev/null
  "$bin/benchmarks/loader_benchmark" --benchmark_min_time=0.2 2>/dev/null
  "$bin/benchmarks/tensor_benchmark" --benchmark_min_time=0.2 2>/dev/null
  "$bin/benchmarks/tracing_benchmark" --benchmark_min_time=0.2 2>/dev/null
fi
