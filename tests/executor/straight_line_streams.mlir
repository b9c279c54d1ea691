// Functions of direct kernels run straight line whatever streams the
// converter's stream analysis gave their kernels (a shared constant gets a
// stream of its own; independent branches get theirs). The results are the
// dataflow executor's: the traced run below takes the dataflow path (tracing
// turns the fast paths off) and must print the same.
// RUN: mlir-to-bef %s -o %t.bef
// RUN: bef-dump %t.bef | FileCheck %s --check-prefix=STREAMS
// RUN: bef_executor %t.bef | FileCheck %s
// RUN: bef_executor --work_queue_type=mstd:2 %t.bef | FileCheck %s
// RUN: bef_executor --trace_file=%t.json %t.bef | FileCheck %s

// The converter spreads 'branches' over three streams.
// STREAMS: tfrt.constant.i64() {value = 40 : i64}{{.*}} stream 1
// STREAMS: tfrt.constant.i64() {value = 2 : i64}{{.*}} stream 2

// CHECK-LABEL: --- Running 'chain':
func.func @chain() -> i32 {
  %one = tfrt.constant.i32 1
  %v0 = tfrt.add.i32 %one, %one
  %v1 = tfrt.add.i32 %v0, %one
  %v2 = tfrt.add.i32 %v1, %one
  %v3 = tfrt.add.i32 %v2, %one
  %v4 = tfrt.add.i32 %v3, %one
  tfrt.return %v4 : i32
}
// CHECK-NEXT: 'chain' returned 6

// CHECK-LABEL: --- Running 'branches':
func.func @branches() -> (i32, i64, i32) {
  %a = tfrt.constant.i32 7
  %b = tfrt.constant.i64 40
  %c = tfrt.constant.i64 2
  %x = tfrt.add.i32 %a, %a
  %y = tfrt.add.i64 %b, %c
  %z = tfrt.add.i32 %x, %a
  tfrt.return %x, %y, %z : i32, i64, i32
}
// CHECK-NEXT: 'branches' returned 14,42,21

// CHECK-LABEL: --- Running 'compare':
func.func @compare() -> (i1, i32) {
  %a = tfrt.constant.i32 3
  %b = tfrt.constant.i32 4
  %s = tfrt.add.i32 %a, %b
  %e = tfrt.equal.i32 %s, %s
  tfrt.return %e, %s : i1, i32
}
// CHECK-NEXT: 'compare' returned 1,7

// tfrt.new.chain and tfrt.merge.chains are chain-only kernels: the straight
// line runs them as nothing.
// CHECK-LABEL: --- Running 'chains':
func.func @chains() -> (!tfrt.chain, i32) {
  %ch = tfrt.new.chain
  %a = tfrt.constant.i32 2
  %b = tfrt.add.i32 %a, %a
  %m = tfrt.merge.chains %ch, %b : !tfrt.chain, i32
  %n = tfrt.merge.chains %m, %ch : !tfrt.chain, !tfrt.chain
  tfrt.return %n, %b : !tfrt.chain, i32
}
// CHECK-NEXT: 'chains' returned !tfrt.chain value,4
