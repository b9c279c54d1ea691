// The print kernels: exact line formats, ordering by chains.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s

// CHECK-LABEL: --- Running 'print_all':
func.func @print_all() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %t = tfrt.constant.i1 true
  %ch1 = tfrt.print.i1 %t, %ch0
  %i = tfrt.constant.i32 -1
  %ch2 = tfrt.print.i32 %i, %ch1
  %l = tfrt.constant.i64 43
  %ch3 = tfrt.print.i64 %l, %ch2
  %f = tfrt.constant.f32 312.27136
  %ch4 = tfrt.print.f32 %f, %ch3
  %d = tfrt.constant.f64 312.27137
  %ch5 = tfrt.print.f64 %d, %ch4
  tfrt.return %ch5 : !tfrt.chain
}
// CHECK-NEXT: int1 = 1
// CHECK-NEXT: int32 = -1
// CHECK-NEXT: int64 = 43
// CHECK-NEXT: f32 = 312.271362
// CHECK-NEXT: f64 = 312.271370
// CHECK-NEXT: 'print_all' returned !tfrt.chain value
