// Error-reporting test kernels, error propagation and expected-error
// annotations (matched diagnostics are not printed; exit status 0).
// RUN: mlir-to-bef %s | bef_executor 2>&1 | FileCheck %s

// CHECK-LABEL: --- Running 'fail_and_propagate':
func.func @fail_and_propagate() -> (i32, i32, i32) {
  %bad = "tfrt_test.fail"() : () -> i32 // expected-error {{something bad happened}}
  %one = tfrt.constant.i32 1
  // Strict kernels propagate the error without running.
  %sum = tfrt.add.i32 %bad, %one
  %ok, %partial = "tfrt_test.partial_fail"() : () -> (i32, i32) // expected-error {{something bad happened}}
  tfrt.return %sum, %ok, %partial : i32, i32, i32
}
// CHECK-NEXT: 'fail_and_propagate' returned <<error: something bad happened>>,1,<<error: something bad happened>>

// CHECK-LABEL: --- Running 'async_errors':
func.func @async_errors() -> (i32, i32, i32, i32) {
  %a = "tfrt_test.report_error_async"() : () -> i32 // expected-error {{something bad happened asynchronously}}
  %zero = tfrt.constant.i32 0
  %one = tfrt.constant.i32 1
  %b = "tfrt_test.report_error_concrete_async"(%zero) : (i32) -> i32
  %c = "tfrt_test.report_error_concrete_async"(%one) : (i32) -> i32 // expected-error {{something bad happened asynchronously}}
  %d = "tfrt_test.report_error_indirect_async"(%one) : (i32) -> i32 // expected-error {{something bad happened asynchronously}}
  tfrt.return %a, %b, %c, %d : i32, i32, i32, i32
}
// CHECK-NEXT: 'async_errors' returned <<error: something bad happened asynchronously>>,0,<<error: something bad happened asynchronously>>,<<error: something bad happened asynchronously>>

// CHECK-LABEL: --- Running 'error_chain':
func.func @error_chain() -> !tfrt.chain {
  %ch = tfrt.new.chain
  %e = "tfrt_test.error_chain"(%ch) : (!tfrt.chain) -> !tfrt.chain // expected-error {{error chain}}
  %x = tfrt.constant.i32 1
  %p = tfrt.print.i32 %x, %e
  tfrt.return %p : !tfrt.chain
}
// The print never runs: its chain is an error.
// CHECK-NEXT: 'error_chain' returned <<error: error chain>>
// CHECK-NOT: int32
