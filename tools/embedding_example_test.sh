#!/bin/bash
# The embedding example builds, runs, and prints the expected answers.
set -euo pipefail
output="$("$1")"
echo "$output"
grep -q '^add_one(41) = 42$' <<<"$output"
grep -q '^add_one(44) = 45$' <<<"$output"
grep -q '^after the deadline: DEADLINE_EXCEEDED: Deadline exceeded$' <<<"$output"
