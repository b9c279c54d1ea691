// tfrt_test.benchmark runs its region and prints BM: statistics lines.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s

func.func @bench() {
  %c = tfrt.constant.i32 1
  tfrt_test.benchmark "add.i32"(%c : i32) duration_secs = 1, max_count = 50, num_warmup_runs = 3 {
    %x = tfrt.add.i32 %c, %c
    tfrt.return %x : i32
  }
  tfrt.return
}
// CHECK: BM:add.i32:Duration(ns): {{[0-9]+}}
// CHECK-NEXT: BM:add.i32:Count: 50
// CHECK-NEXT: BM:add.i32:Time Min(ns): {{[0-9]+}}
// CHECK-NEXT: BM:add.i32:Time 50%(ns): {{[0-9]+}}
// CHECK-NEXT: BM:add.i32:Time 95%(ns): {{[0-9]+}}
// CHECK-NEXT: BM:add.i32:Time 99%(ns): {{[0-9]+}}
// CHECK-NEXT: BM:add.i32:CPU Min(ns): {{[0-9]+}}
// CHECK-NEXT: BM:add.i32:CPU 50%(ns): {{[0-9]+}}
// CHECK-NEXT: BM:add.i32:CPU 95%(ns): {{[0-9]+}}
// CHECK-NEXT: BM:add.i32:CPU 99%(ns): {{[0-9]+}}
// CHECK-NEXT: BM:add.i32:CPU utilization(percent): {{[0-9.]+e[+-][0-9]+}}

