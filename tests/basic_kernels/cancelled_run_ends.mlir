// A run ends at its cancellation even when a kernel of it never completes
// its result: bef_executor waits for the results or the request's
// cancellation (FunctionRun::Done), runs what is still queued, and prints
// the cancellation's error for what stays pending. (It used to wait for
// ever; docs/executor-semantics.md §4.)
// RUN: mlir-to-bef %s -o %t.bef
// (What stays pending is never freed: under ASan, leaks are not counted.)
// RUN: env ASAN_OPTIONS=detect_leaks=0 bef_executor --functions=never_ends_until_cancelled %t.bef 2>&1 | FileCheck %s
// RUN: env ASAN_OPTIONS=detect_leaks=0 bef_executor --work_queue_type=mstd:2 --functions=never_ends_until_cancelled %t.bef 2>&1 | FileCheck %s

// @loop's tfrt.once of itself comes from the continuation of a condition
// that a millisecond's sleep on a blocking thread completes (never on the
// evaluation's stack): not seen as a re-entry, so its placeholder waits for
// the evaluation that waits for it. Nothing of it ever completes.
func.func @loop() -> i32 {
  %us = tfrt.constant.i32 1000
  %slept = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  %true = tfrt.constant.i1 1
  %t = "tfrt_test.identity"(%slept, %true) : (!tfrt.chain, i1) -> i1
  %r = tfrt.if %t : () -> i32 {
    %x = tfrt.once @loop() : () -> (i32)
    tfrt.return %x : i32
  } else {
    %c = tfrt.constant.i32 0
    tfrt.return %c : i32
  }
  tfrt.return %r : i32
}

// Once the cycle is in place (200 ms later), the run cancels its request.
// CHECK-LABEL: --- Running 'never_ends_until_cancelled':
// CHECK: 'never_ends_until_cancelled' returned <<error: Cancelled>>,0
func.func @never_ends_until_cancelled() -> (i32, i32) {
  %x = tfrt.once @loop() : () -> (i32)
  %us = tfrt.constant.i32 200000
  %slept = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  %zero, %ch = "tfrt_test.cancel"(%slept) : (!tfrt.chain) -> (i32, !tfrt.chain)
  tfrt.return %x, %zero : i32, i32
}
