// Unannotated kernel errors are printed with the op's location and the
// driver exits 1; --print_error_code adds the status code.
// RUN: mlir-to-bef %s | not bef_executor 2>&1 | FileCheck %s
// RUN: mlir-to-bef %s | not bef_executor --print_error_code 2>&1 | FileCheck %s --check-prefix=CODE

func.func @fails() -> i32 {
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}
// CHECK: unexpected_error.mlir:[[@LINE-3]]:10: error: unexpected error: runtime error: something bad happened
// CHECK-NEXT: {{^}}  %bad = "tfrt_test.fail"() : () -> i32
// CHECK-NEXT: {{^}}         ^
// CHECK-NEXT: 'fails' returned <<error: something bad happened>>
// CODE: 'fails' returned <<error: something bad happened, code: INTERNAL>>
