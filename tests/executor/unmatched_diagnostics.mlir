// An annotation that matches nothing and a diagnostic without annotation are
// both reported; the driver exits 1.
// RUN: mlir-to-bef %s | not bef_executor 2>&1 | FileCheck %s

func.func @mismatch() -> i32 {
  %a = "tfrt_test.fail"() : () -> i32 // expected-error {{something else}}
  tfrt.return %a : i32
}
// CHECK-DAG: unmatched_diagnostics.mlir:6:8: error: unexpected error: runtime error: something bad happened
// CHECK-DAG: unmatched_diagnostics.mlir:6:42: error: expected error "something else" was not produced
