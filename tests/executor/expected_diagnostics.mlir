// The driver checks expected-error annotations like MLIR's verifier:
// same line, @+N, @-N, @above, @below, regexes, @unknown.
// RUN: mlir-to-bef %s | bef_executor 2>&1 | FileCheck %s

func.func @annotated() -> (i32, i32, i32, i32) {
  %a = "tfrt_test.fail"() : () -> i32 // expected-error {{something bad}}
  // expected-error @+1 {{bad happened}}
  %b = "tfrt_test.fail"() : () -> i32
  %c = "tfrt_test.fail"() : () -> i32
  // expected-error @-1 {{something bad happened}}
  // expected-error-re @+1 {{some{{[a-z]+}} bad}}
  %d = "tfrt_test.fail"() : () -> i32
  tfrt.return %a, %b, %c, %d : i32, i32, i32, i32
}
// CHECK: --- Running 'annotated':
// CHECK-NOT: error:
// CHECK: 'annotated' returned <<error: something bad happened>>,<<error: something bad happened>>,<<error: something bad happened>>,<<error: something bad happened>>
