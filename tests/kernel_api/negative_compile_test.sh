#!/bin/bash
# Negative-compile tests of the kernel ABI (docs/writing-kernels.md): each
# case under cases/ is a kernel a author might write. A case with
# "// EXPECT: TEXT" lines must fail to compile with every TEXT in the
# compiler's output (the message BEF_KERNEL gives); a case with
# "// EXPECT-COMPILES" must compile (so a failure is the signature's, not
# the harness's include paths).
#   $1 the cases directory; the include/ tree is found beside it in the runfiles.
set -euo pipefail
cases="$1"
include="$(cd "$(dirname "$0")/../../include" && pwd)"
compiler="${CXX:-g++}"
passed=0
failed=0
for case_file in "$cases"/*.cc; do
  name="$(basename "$case_file")"
  output="$("$compiler" -std=c++20 -fsyntax-only -I"$include" "$case_file" 2>&1)" && status=0 || status=$?
  if grep -q "^// EXPECT-COMPILES" "$case_file"; then
    if [[ $status == 0 ]]; then
      passed=$((passed + 1))
    else
      echo "FAIL $name: expected to compile; the compiler said:"; echo "$output" | head -20
      failed=$((failed + 1))
    fi
    continue
  fi
  if [[ $status == 0 ]]; then
    echo "FAIL $name: compiled; expected an error"
    failed=$((failed + 1))
    continue
  fi
  ok=1
  while IFS= read -r expected; do
    if ! grep -qF -- "$expected" <<<"$output"; then
      echo "FAIL $name: no '$expected' in the compiler's output:"; echo "$output" | grep -E "error" | head -5
      ok=0
    fi
  done < <(sed -n 's|^// EXPECT: ||p' "$case_file")
  if [[ $ok == 1 ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed cases passed, $failed failed"
[[ $failed == 0 && $passed -gt 0 ]]
