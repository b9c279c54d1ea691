// tfrt_test.cancel cancels the request: later kernels see Cancelled.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --print_error_code | FileCheck %s --check-prefix=CODE

// CHECK-LABEL: --- Running 'cancel_then_work':
func.func @cancel_then_work() -> (i32, i32) {
  %ch = tfrt.new.chain
  %zero, %ch1 = "tfrt_test.cancel"(%ch) : (!tfrt.chain) -> (i32, !tfrt.chain)
  %four = tfrt.constant.i32 4
  %sum = tfrt.add.i32 %four, %zero
  tfrt.return %zero, %sum : i32, i32
}
// CHECK-NEXT: 'cancel_then_work' returned 0,<<error: Cancelled>>
// CODE: 'cancel_then_work' returned 0,<<error: Cancelled, code: CANCELLED>>
