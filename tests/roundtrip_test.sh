#!/bin/bash
# usage: roundtrip_test.sh <mlir-to-bef> <bef-to-mlir>
# For every .mlir program under tests/ that converts (files with
# `// -----` chunks are converted chunk by chunk by their RUN lines and are
# skipped here): BEF -> MLIR (with locations) -> BEF must give the same bytes.
# Programs using `_tfrt_cost` are skipped: that attribute only steers stream
# analysis and is not encoded, so it cannot come back (as in TFRT).
set -uo pipefail
to_bef="$PWD/$1"; to_mlir="$PWD/$2"
tmp="${TEST_TMPDIR:-/tmp}"
checked=0; failed=0; skipped=0
while IFS= read -r -d '' file; do
  if grep -q '^// -----' "$file" || grep -q '_tfrt_cost' "$file"; then
    skipped=$((skipped + 1)); continue
  fi
  # Run from the file's directory so locations name the file as RUN lines do.
  dir="$(dirname "$file")"; base="$(basename "$file")"
  if ! (cd "$dir" && "$to_bef" "$base" > "$tmp/a.bef" 2>/dev/null); then
    skipped=$((skipped + 1)); continue
  fi
  if ! (cd "$dir" && "$to_mlir" --mlir-print-debuginfo "$tmp/a.bef" > "$tmp/b.mlir" 2> "$tmp/err.txt"); then
    echo "FAIL $file: bef-to-mlir failed: $(cat "$tmp/err.txt")"; failed=$((failed + 1)); continue
  fi
  if ! (cd "$dir" && "$to_bef" "$tmp/b.mlir" > "$tmp/c.bef" 2> "$tmp/err.txt"); then
    echo "FAIL $file: mlir-to-bef of the round trip failed: $(cat "$tmp/err.txt")"; failed=$((failed + 1)); continue
  fi
  if ! cmp -s "$tmp/a.bef" "$tmp/c.bef"; then
    echo "FAIL $file: bytes differ after the round trip: $(cmp "$tmp/a.bef" "$tmp/c.bef")"
    failed=$((failed + 1)); continue
  fi
  checked=$((checked + 1))
done < <(find tests -name '*.mlir' -not -path '*/Output/*' -print0 | sort -z)
echo "round trips: $checked identical, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$checked" -gt 0 ]
