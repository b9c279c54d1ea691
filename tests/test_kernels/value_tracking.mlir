// vt.* kernels show when values are constructed, moved and destroyed, and
// the tutorial kernels print coordinates.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s

// CHECK-LABEL: --- Running 'lifetimes':
func.func @lifetimes() -> !tfrt.chain {
  %ch = tfrt.new.chain
  %a = "vt.constant"() {value = 100 : i32} : () -> !vt.value
  %b = "vt.constant"() {value = 20 : i32} : () -> !vt.value
  %c = "vt.add"(%a, %b) : (!vt.value, !vt.value) -> !vt.value
  %p = "vt.print"(%c, %ch) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  %x = tfrt.constant.i32 2
  %y = tfrt.constant.i32 4
  %xy = "tfrt_tutorial.create_coordinate"(%x, %y) : (i32, i32) -> !my.coordinate
  %p2 = "tfrt_tutorial.print_coordinate"(%xy, %p) : (!my.coordinate, !tfrt.chain) -> !tfrt.chain
  tfrt.return %p2 : !tfrt.chain
}
// CHECK-NEXT: constructed vt.value(100)
// CHECK-NEXT: move constructed vt.value(100)
// CHECK-NEXT: constructed vt.value(20)
// CHECK-NEXT: move constructed vt.value(20)
// CHECK-NEXT: constructed vt.value(120)
// CHECK-NEXT: move constructed vt.value(120)
// CHECK: print vt_value(120)
// CHECK: (2, 4)
// CHECK: 'lifetimes' returned !tfrt.chain value
