// bef-to-mlir rebuilds the module: regions from anonymous functions, symbol
// attributes under their op-defined names, native and sync functions,
// locations (--mlir-print-debuginfo) and the generic form.
// RUN: mlir-to-bef %s | bef-to-mlir | FileCheck %s
// RUN: mlir-to-bef %s | bef-to-mlir --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: mlir-to-bef %s | bef-to-mlir --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: mlir-to-bef --disable-optional-sections %s | not bef-to-mlir - 2>&1 | FileCheck %s --check-prefix=NOOPT

// CHECK: func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}
func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}

// CHECK: func.func @sync_add(%arg0: i32, %arg1: i32) -> i32 attributes {tfrt.sync}
func.func @sync_add(%a: i32, %b: i32) -> i32 attributes {tfrt.sync} {
  %c = "tfrt_test.sync_sum_attributes"() {x = 1 : i32} : () -> i32
  tfrt.return %c : i32
}

func.func @pick(%x: i32) -> i32 {
  tfrt.return %x : i32
}

// CHECK-LABEL: func.func @control(
func.func @control(%c: i1, %x: i32) -> (i32, i32, i32) {
  // CHECK: tfrt.cond %arg0 @pick @pick (%arg1) : (i32) -> (i32)
  %a = tfrt.cond %c @pick @pick (%x) : (i32) -> (i32)
  // CHECK: tfrt.case %{{.*}} [@pick, @pick] (%arg1) : (i32) -> (i32)
  %i = tfrt.constant.i32 1
  // LOC: = loc("{{.*}}bef_to_mlir.mlir":[[@LINE-1]]:8)
  %b = tfrt.case %i [@pick, @pick] (%x) : (i32) -> (i32)
  // CHECK: tfrt.if %arg0, %arg1 : (i32) -> (i32)  {
  // CHECK-NEXT: tfrt.add.i32 %arg1, %arg1
  // CHECK: } else  {
  %r = tfrt.if %c, %x : (i32) -> (i32) {
    %d = tfrt.add.i32 %x, %x
    tfrt.return %d : i32
  } else {
    tfrt.return %x : i32
  }
  tfrt.return %a, %b, %r : i32, i32, i32
}
// GENERIC: "tfrt.constant.i32"() <{value = 1 : i32}> : () -> i32
// NOOPT: <stdin>:0:0: warning: Missing AttributeTypes, AttributeNames or RegisterTypes sections.
// Without the optional sections registered ops fail verification.
// NOOPT: error: 'tfrt.{{.*}}' op
