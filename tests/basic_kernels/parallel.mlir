// tfrt.parallel_for.i32 and tfrt.parallel_call.i32 complete when every block
// has run; the blocks may run in any order.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// CHECK-LABEL: --- Running 'parallel_for_async_body':
func.func @parallel_for_async_body() -> !tfrt.chain {
  %start = tfrt.constant.i32 0
  %end = tfrt.constant.i32 9
  %block = tfrt.constant.i32 3
  %ch = tfrt.new.chain
  %done = tfrt.parallel_for.i32 %start to %end fixed %block, %ch : !tfrt.chain {
    %ch1 = tfrt.print.i32 %start, %ch
    %ch2 = tfrt.print.i32 %end, %ch1
    tfrt.return %ch2 : !tfrt.chain
  }
  tfrt.return %done : !tfrt.chain
}
// CHECK-DAG: int32 = 0
// CHECK-DAG: int32 = 3
// CHECK-DAG: int32 = 6
// CHECK-DAG: int32 = 9
// CHECK: 'parallel_for_async_body' returned !tfrt.chain value

// CHECK-LABEL: --- Running 'parallel_for_empty':
func.func @parallel_for_empty() -> !tfrt.chain {
  %start = tfrt.constant.i32 4
  %block = tfrt.constant.i32 2
  %end = tfrt.constant.i32 4
  %done = tfrt.parallel_for.i32 %start to %end fixed %block {
    %ch = tfrt.new.chain
    %ch1 = tfrt.print.i32 %start, %ch
    tfrt.return
  }
  tfrt.return %done : !tfrt.chain
}
// CHECK-NEXT: 'parallel_for_empty' returned !tfrt.chain value

// CHECK: --- Not running 'range' because it has arguments.
func.func @range(%start: i32, %end: i32, %ch: !tfrt.chain) -> !tfrt.chain {
  %n = "tfrt.minus.i32"(%end, %start) : (i32, i32) -> i32
  %ch1 = tfrt.print.i32 %n, %ch
  tfrt.return %ch1 : !tfrt.chain
}

// CHECK-LABEL: --- Running 'parallel_call':
func.func @parallel_call() -> !tfrt.chain {
  %start = tfrt.constant.i32 0
  %end = tfrt.constant.i32 5
  %block = tfrt.constant.i32 5
  %ch = tfrt.new.chain
  %done = tfrt.parallel_call.i32 %start to %end fixed %block @range(%ch) : !tfrt.chain
  tfrt.return %done : !tfrt.chain
}
// CHECK-NEXT: int32 = 5
// CHECK-NEXT: 'parallel_call' returned !tfrt.chain value
