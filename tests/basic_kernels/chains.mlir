// tfrt.new.chain, tfrt.merge.chains, tfrt.alias.value.
// RUN: mlir-to-bef %s | not bef_executor | FileCheck %s

// CHECK-LABEL: --- Running 'merge_orders_prints':
func.func @merge_orders_prints() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %a = tfrt.print.i32 %one, %ch0
  %b = tfrt.print.i32 %two, %ch0
  %m = tfrt.merge.chains %a, %b, %one : !tfrt.chain, !tfrt.chain, i32
  %three = tfrt.constant.i32 3
  %c = tfrt.print.i32 %three, %m
  tfrt.return %c : !tfrt.chain
}
// CHECK-DAG: int32 = 1
// CHECK-DAG: int32 = 2
// CHECK: int32 = 3
// CHECK-NEXT: 'merge_orders_prints' returned !tfrt.chain value

// CHECK-LABEL: --- Running 'merge_error':
func.func @merge_error() -> !tfrt.chain {
  %bad = "tfrt_test.fail"() : () -> i32
  %ch = tfrt.new.chain
  %m = tfrt.merge.chains %ch, %bad : !tfrt.chain, i32
  tfrt.return %m : !tfrt.chain
}
// CHECK: 'merge_error' returned <<error: something bad happened>>

// CHECK-LABEL: --- Running 'alias':
func.func @alias() -> (i32, i32) {
  %ch = tfrt.new.chain
  %x = tfrt.constant.i32 314
  %y = "tfrt.alias.value"(%ch, %x) : (!tfrt.chain, i32) -> i32
  %bad = "tfrt_test.fail"() : () -> i32
  %bad_chain = tfrt.merge.chains %bad : i32
  %z = "tfrt.alias.value"(%bad_chain, %x) : (!tfrt.chain, i32) -> i32
  tfrt.return %y, %z : i32, i32
}
// CHECK: 'alias' returned 314,<<error: something bad happened>>
