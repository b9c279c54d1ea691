#!/bin/bash
# The command-line tools against files that change, never end or cannot be
# written (issue #33, docs/reliability.md "Files"): bef_executor and
# bef-dump never die of a signal on a file another process truncates and
# rewrites while they read it; /dev/zero fails at once with the loader's
# message; a FIFO is read as a stream; output that cannot be written
# (/dev/full) exits non-zero.
#   $1 bef_executor  $2 bef-dump  $3 mlir-to-bef
set -uo pipefail
executor="$1" dump="$2" converter="$3"
work="$(mktemp -d "${TEST_TMPDIR:-/tmp}/hostile_files.XXXXXX")"
trap 'kill "$writer" 2>/dev/null; rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# A program of 20,000 kernels (about 400 KB of BEF): reads of it overlap the
# writer's changes.
{
  echo 'func.func @main() -> i32 {'
  echo '  %c0 = tfrt.constant.i32 1'
  for ((i = 1; i <= 20000; ++i)); do echo "  %c$i = tfrt.add.i32 %c$((i - 1)), %c0"; done
  echo "  tfrt.return %c20000 : i32"
  echo '}'
} >"$work/chain.mlir"
"$converter" "$work/chain.mlir" -o "$work/chain.bef" || { echo "conversion failed" >&2; exit 1; }
size=$(stat -c %s "$work/chain.bef")
cp "$work/chain.bef" "$work/changing.bef"

# 1. A file truncated and rewritten in place while the tools read it.
(
  while true; do
    truncate -s $((size / 3)) "$work/changing.bef"
    dd if="$work/chain.bef" of="$work/changing.bef" conv=notrunc status=none
  done
) &
writer=$!
signals=0
runs=0
deadline=$((SECONDS + 20))
while ((runs < 200 && SECONDS < deadline)); do
  "$executor" "$work/changing.bef" >/dev/null 2>&1
  status=$?
  ((status >= 128)) && { signals=$((signals + 1)); echo "bef_executor died: status $status" >&2; }
  "$dump" --summary "$work/changing.bef" >/dev/null 2>&1
  status=$?
  ((status >= 128)) && { signals=$((signals + 1)); echo "bef-dump died: status $status" >&2; }
  runs=$((runs + 1))
done
kill "$writer"
wait "$writer" 2>/dev/null
echo "runs against a changing file: $runs, deaths by a signal: $signals"
((signals == 0)) || fail "tools died of a signal on a changing file"
((runs >= 20)) || fail "only $runs runs"

# 2. /dev/zero: the loader's message at once, not a read to the end.
start=$SECONDS
output="$(timeout 10 "$executor" /dev/zero 2>&1)"
status=$?
echo "bef_executor /dev/zero: status $status: $output"
((status == 1)) || fail "bef_executor /dev/zero exited $status"
grep -q 'invalid BEF file header' <<<"$output" || fail "bef_executor /dev/zero: $output"
output="$(timeout 10 "$dump" /dev/zero 2>&1)"
status=$?
((status == 1)) || fail "bef-dump /dev/zero exited $status"
((SECONDS - start < 8)) || fail "/dev/zero took $((SECONDS - start)) s"

# 3. A FIFO is read as a stream, waiting for its writer as `cat` does: the
# writer opens it a second after the reader (a read end without a writer
# reads end-of-file at once), and again before it. bef_executor opens its
# input once: a check that opened and closed it first let the writer in
# and then left it without a reader (SIGPIPE), and the load waited for a
# writer forever (seen under ASan, where the load comes later).
mkfifo "$work/program.fifo"
(sleep 1; cat "$work/chain.bef" >"$work/program.fifo") &
output="$(timeout 20 "$executor" "$work/program.fifo" 2>&1)"
status=$?
((status == 0)) && grep -q "'main' returned 20001" <<<"$output" ||
  fail "bef_executor on a FIFO opened before its writer: status $status: $(tail -2 <<<"$output")"
wait
cat "$work/chain.bef" >"$work/program.fifo" &
output="$(timeout 20 "$executor" "$work/program.fifo" 2>&1)"
status=$?
((status == 0)) && grep -q "'main' returned 20001" <<<"$output" ||
  fail "bef_executor on a FIFO: status $status: $(tail -2 <<<"$output")"
wait

# 4. Output that cannot be written.
"$dump" "$work/chain.bef" >/dev/full 2>"$work/err"
status=$?
((status != 0)) || fail "bef-dump > /dev/full exited 0"
grep -q 'cannot write' "$work/err" || fail "bef-dump > /dev/full: $(cat "$work/err")"
"$executor" "$work/chain.bef" >/dev/full 2>"$work/err"
status=$?
((status != 0)) || fail "bef_executor > /dev/full exited 0"

echo "$failures failures"
((failures == 0))
