#!/bin/bash
# process_timer (the start-up rows of scripts/benchmarks.sh): one line of
# two numbers per command, the first command's difference 0, a slower
# command above it; a command that fails or cannot start fails the timer.
#   $1 process_timer
set -uo pipefail
timer="$1"
output="$("$timer" 5 /bin/true -- /bin/sleep 0.01)" || { echo "timer failed" >&2; exit 1; }
echo "$output"
[[ "$(wc -l <<<"$output")" == 2 ]] || { echo "expected 2 lines" >&2; exit 1; }
grep -qxE '[0-9]+\.[0-9]{2} 0\.00' <<<"$(sed -n 1p <<<"$output")" || { echo "bad first line" >&2; exit 1; }
awk 'NR == 2 && !($1 >= 10 && $2 >= 5) { exit 1 }' <<<"$output" || { echo "sleep 0.01 not above 10 ms" >&2; exit 1; }
if "$timer" 2 /bin/true -- /bin/false 2>/dev/null; then echo "a failing command passed" >&2; exit 1; fi
if "$timer" 2 /nonexistent/program 2>/dev/null; then echo "a missing program passed" >&2; exit 1; fi
if "$timer" 0 /bin/true 2>/dev/null; then echo "0 rounds accepted" >&2; exit 1; fi
echo PASS
