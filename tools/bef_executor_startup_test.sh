#!/bin/bash
# bef_executor's start-up stays cheap (docs/performance.md): the dynamic
# loader maps no libtbb (loaded only for an mstd queue) and, outside
# sanitizer builds, no shared libstdc++, libgcc_s or libm, and functions are
# bound on first call (no BIND_NOW); an mstd queue still works, through the
# libbef_tbb_arena.so plugin (tools/tbb_arena_plugin.cc). None of this is a
# rule for kernels: a kernel that calls a libm function bef_executor does
# not call makes it load libm at start (then add the function to
# tools/libm_on_demand.cc to keep the start cheap).
#   $1 bef_executor  $2 "static" or "sanitizer"  $3 a BEF program
set -euo pipefail
binary="$1" build="$2" program="$3"
needed="$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
echo "NEEDED: $needed"
if grep -q '^libtbb' <<<"$needed"; then
  echo "bef_executor links libtbb" >&2
  exit 1
fi
if [[ "$build" == static ]] && grep -qE '^(libstdc\+\+|libgcc_s|libm\.)' <<<"$needed"; then
  echo "bef_executor links the shared libstdc++, libgcc_s or libm (a new libm" \
    "function belongs in tools/libm_on_demand.cc)" >&2
  exit 1
fi
if [[ "$build" == static ]] && readelf -d "$binary" | grep -E '\((FLAGS|FLAGS_1)\).*\b(BIND_NOW|NOW)\b' >/dev/null; then
  echo "bef_executor binds every function at start (BIND_NOW)" >&2
  exit 1
fi
output="$("$binary" --work_queue_type=mstd:2 "$program")"
echo "$output"
grep -q '^Choosing Multi-threaded C++ work queue (2 threads, 256 blocking threads) work queue\.$' <<<"$output"
