// Stream ids from the converter's stream analysis, for the worked examples
// of executor-semantics.md §5.3, and the max-cost log lines.
// RUN: mlir-to-bef --print-stream-analysis %s 2>%t.log | bef-dump - | FileCheck %s
// RUN: FileCheck %s --check-prefix=LOG < %t.log

// No threshold: the new.chain kernel gets its own stream (1); the constant,
// the print, the return and the root are stream 0.
// CHECK-LABEL: function @no_threshold
// CHECK: [0] pseudo {{.*}} stream 0
// CHECK-NEXT: [1] tfrt.constant.i32() {{.*}} stream 0
// CHECK-NEXT: [2] tfrt.new.chain() {{.*}} stream 1
// CHECK-NEXT: [3] tfrt.print.i32({{.*}} stream 0
func.func @no_threshold() -> !tfrt.chain {
  %x = tfrt.constant.i32 1
  %c = tfrt.new.chain
  %p = tfrt.print.i32 %x, %c
  tfrt.return %p : !tfrt.chain
}
// LOG: StreamAnalysis: max_cost for function no_threshold is 3

// Threshold 1 (function attribute): every kernel is expensive; the return
// and the root are stream 0, then streams in reverse creation order.
// CHECK-LABEL: function @threshold_one
// CHECK: [0] pseudo {{.*}} stream 0
// CHECK-NEXT: [1] tfrt.new.chain() {{.*}} stream 5
// CHECK-NEXT: [2] vt.constant() {{.*}} stream 3
// CHECK-NEXT: [3] vt.constant() {{.*}} stream 4
// CHECK-NEXT: [4] vt.add({{.*}} stream 3
// CHECK-NEXT: [5] vt.print({{.*}} stream 3
// CHECK-NEXT: [6] vt.constant() {{.*}} stream 2
// CHECK-NEXT: [7] vt.constant() {{.*}} stream 1
func.func @threshold_one() attributes {tfrt.cost_threshold = 1 : i64} {
  %ch = tfrt.new.chain
  %v1 = "vt.constant"() {value = 1 : i32} : () -> !vt.value
  %v2 = "vt.constant"() {value = 2 : i32} : () -> !vt.value
  %v3 = "vt.add"(%v1, %v2) : (!vt.value, !vt.value) -> !vt.value
  %p = "vt.print"(%v3, %ch) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  %v4 = "vt.constant"() {value = 4 : i32} : () -> !vt.value
  %v5 = "vt.constant"() {value = 5 : i32} : () -> !vt.value
  tfrt.return
}
// LOG: StreamAnalysis: max_cost for function threshold_one is 3
