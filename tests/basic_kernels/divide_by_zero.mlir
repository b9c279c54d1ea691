// Division by zero reports one diagnostic at the op and errors both results.
// RUN: mlir-to-bef %s | not bef_executor 2>&1 | FileCheck %s

// CHECK-LABEL: --- Running 'int_div_zero':
func.func @int_div_zero() -> (i32, i32) {
  %a = tfrt.constant.i32 7
  %z = tfrt.constant.i32 0
  %q, %r = tfrt.div.i32 %a, %z
  tfrt.return %q, %r : i32, i32
}
// CHECK: divide_by_zero.mlir:[[@LINE-3]]:12: error: unexpected error: runtime error: Divide by zero
// CHECK: 'int_div_zero' returned <<error: Divide by zero>>,<<error: Divide by zero>>

// CHECK-LABEL: --- Running 'float_div_zero':
func.func @float_div_zero() -> f64 {
  %a = tfrt.constant.f64 1.0
  %z = tfrt.constant.f64 0.0
  %q = "tfrt.div.f64"(%a, %z) : (f64, f64) -> f64
  tfrt.return %q : f64
}
// CHECK: divide_by_zero.mlir:[[@LINE-3]]:8: error: unexpected error: runtime error: Divide by zero
// CHECK: 'float_div_zero' returned <<error: Divide by zero>>
