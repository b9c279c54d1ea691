#!/bin/bash
# The whole test suite: installs what is missing (Debian packages), then runs
#   normal  every test target;
#   asan    every test target under ASan + UBSan, except those tagged
#           no_sanitizers (huge stack-depth runs);
#   tsan    the targets tagged `concurrency` under ThreadSanitizer;
#   fuzz    each libFuzzer target (scripts/fuzz.sh) with clang-14, ASan and
#           UBSan on a fixed number of inputs from seed 1 (deterministic;
#           bef_file 30,000, bef_exec 10,000): a finding fails it;
#   image   builds the container image (scripts/image.sh) and runs it as
#           Kubernetes would (tests/image/image_test.py);
# and prints "N passed, N failed" over all passes. Exit status 0 only when
# every test passed.
#
#   bash scripts/test.sh            # all passes
#   BEF_TEST_PASSES=normal bash scripts/test.sh
set -uo pipefail
cd "$(dirname "$0")/.."
[[ "${BEF_SKIP_DEPS:-0}" == 1 ]] || bash scripts/install-deps.sh || exit 1

passes=${BEF_TEST_PASSES:-"normal asan tsan fuzz image"}
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
rc=0
for pass in $passes; do
  if [[ "$pass" == fuzz ]]; then
    echo "=== test pass: fuzz"
    for run in bef_file:30000 bef_exec:10000; do
      target="${run%%:*}" runs="${run##*:}"
      if FUZZ_RUNS="$runs" BEF_SKIP_DEPS=1 bash scripts/fuzz.sh "$target" 300; then
        echo "//tools/fuzz:${target}_fuzzer_${runs}_runs PASSED" | tee -a "$log"
      else
        echo "//tools/fuzz:${target}_fuzzer_${runs}_runs FAILED" | tee -a "$log"
        rc=1
      fi
    done
    # The converter's text input: MLIR's libraries come from the Bazel
    # build, so its target runs under the mutation driver (tools/fuzz/BUILD),
    # with another seed than the normal pass's test.
    mutate=(bazel-bin/tools/fuzz/mlir_text_fuzzer_mutate 3 5000 "$(mktemp)"
            "${BEF_GOLDEN_DIR:-../shared/spec/golden}" tools/fuzz/mlir_seeds)
    if bazel build --config=ci //tools/fuzz:mlir_text_fuzzer_mutate &&
       FUZZ_TIMEOUT=30 "${mutate[@]}"; then
      echo "//tools/fuzz:mlir_text_fuzzer_5000_runs PASSED" | tee -a "$log"
    else
      echo "//tools/fuzz:mlir_text_fuzzer_5000_runs FAILED" | tee -a "$log"
      rc=1
    fi
    continue
  fi
  if [[ "$pass" == image ]]; then
    echo "=== test pass: image"
    if built="$(bash scripts/image.sh)" &&
       bazel build --config=opt //benchmarks:serving_load //tests/serving:serve_test_bef &&
       /usr/bin/python3 tests/image/image_test.py "$(echo "$built" | tail -1)" \
         "$(bazel info --config=opt bazel-bin 2>/dev/null)"; then
      echo "//tests/image:image_test PASSED" | tee -a "$log"
    else
      echo "//tests/image:image_test FAILED" | tee -a "$log"
      rc=1
    fi
    continue
  fi
  case "$pass" in
    normal) flags=() ;;
    asan) flags=(--config=asan --test_tag_filters=-no_sanitizers --build_tests_only) ;;
    tsan) flags=(--config=tsan --test_tag_filters=concurrency --build_tests_only) ;;
    *) echo "unknown pass $pass"; exit 2 ;;
  esac
  echo "=== test pass: $pass"
  bazel test --config=ci "${flags[@]}" //... 2>&1 | tee -a "$log"
  status=${PIPESTATUS[0]}
  # Bazel exit 4 = build fine but no test targets: a failure here.
  [[ $status == 0 ]] || rc=$status
done

passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FAILED TO BUILD)' "$log")
echo "${passed} passed, ${failed} failed"
if [[ $rc == 0 && $failed != 0 ]]; then rc=1; fi
if [[ $rc == 0 && $passed == 0 ]]; then rc=1; fi
exit "$rc"
