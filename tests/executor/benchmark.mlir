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


// A body whose result is ready asynchronously, after a 2 ms sleep: runs are
// timed until then, in nanoseconds (the TSC ticks are converted, at
// 1-4 GHz they would read 2-8 million).
func.func @bench_sleep() {
  tfrt_test.benchmark "sleep"() duration_secs = 1, max_count = 5, num_warmup_runs = 1 {
    %t = tfrt.constant.i32 2000
    %done = "tfrt_test.blocking.usleep"(%t) : (i32) -> !tfrt.chain
    tfrt.return %done : !tfrt.chain
  }
  tfrt.return
}
// CHECK-LABEL: --- Running 'bench_sleep':
// CHECK: BM:sleep:Count: 5
// CHECK-NEXT: BM:sleep:Time Min(ns): {{2[0-9]{6}$}}
