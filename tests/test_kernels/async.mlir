// Asynchronous test kernels: values produced by work-queue tasks.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// CHECK-LABEL: --- Running 'async_values':
func.func @async_values() -> (i32, i32, i32, i32, i1, i64, i64) {
  %a = "tfrt_test.async_constant.i32"() {value = 21 : i32} : () -> i32
  %b = "tfrt_test.async_copy.i32"(%a) : (i32) -> i32
  %c = "tfrt_test.async_copy_2.i32"(%b) : (i32) -> i32
  %d = "tfrt_test.async_add.i32"(%b, %c) : (i32, i32) -> i32
  %e = "tfrt_test.async_constant.i1"() {value = 5 : i8} : () -> i1
  %f = tfrt.constant.i64 9
  %g = "tfrt_test.copy.with_delay.i64"(%f) : (i64) -> i64
  %h = "tfrt_test.async_copy.with_delay.i64"(%g) : (i64) -> i64
  %i = "tfrt_test.async_copy.with_delay.i32"(%d) : (i32) -> i32
  tfrt.return %a, %b, %d, %i, %e, %g, %h : i32, i32, i32, i32, i1, i64, i64
}
// CHECK-NEXT: 'async_values' returned 21,21,42,42,1,9,9

// CHECK-LABEL: --- Running 'do_async':
func.func @do_async() -> (i32, i32) {
  %x = tfrt.constant.i32 20
  %y = tfrt.constant.i32 22
  %s, %p = tfrt_test.do.async %x, %y : (i32, i32) -> (i32, i32) {
    %a = tfrt.add.i32 %x, %y
    %m = tfrt.mul.i32 %x, %y
    tfrt.return %a, %m : i32, i32
  }
  tfrt.return %s, %p : i32, i32
}
// CHECK-NEXT: 'do_async' returned 42,440

// CHECK-LABEL: --- Running 'forwarding':
func.func @forwarding() -> (i32, i64, i32, i32, i32, i64, i32) {
  %ch = tfrt.new.chain
  %a = tfrt.constant.i32 8
  %b = tfrt.constant.i64 80
  %fa, %fb = "tfrt_test.identity"(%ch, %a, %b) : (!tfrt.chain, i32, i64) -> (i32, i64)
  %ia = "tfrt_test.make_indirect"(%fa) : (i32) -> i32
  %ma = "tfrt_test.multi_arg_result"(%ia) : (i32) -> i32
  %c1, %c2, %c3 = tfrt_test.count3.i32 %ma
  %d1, %d2, %d3 = tfrt_test.count3.i64 %fb
  %sum = "tfrt_test.sum"(%c1, %c2, %c3) : (i32, i32, i32) -> i32
  tfrt.return %ma, %fb, %c1, %c3, %sum, %d3, %ia : i32, i64, i32, i32, i32, i64, i32
}
// CHECK-NEXT: 'forwarding' returned 8,80,9,11,30,83,8
