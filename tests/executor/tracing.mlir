// bef_executor --trace_file writes a Chrome Trace Event timeline: a span per
// kernel (with its function and location), per function execution and per
// work-queue task, nested per thread (tests/executor/check_trace.py). The
// program's output is unchanged.
// RUN: mlir-to-bef %s -o %t.bef
// RUN: bef_executor --work_queue_type=mstd:2 --trace_file=%t.json %t.bef | FileCheck %s
// RUN: python3 %S/check_trace.py %t.json tfrt.add.i32=13 tfrt.call=2 callee=2 main=1 tfrt_test.async_add.i32=1 | FileCheck %s --check-prefix=TRACE
// RUN: bef_executor --trace_file=%t.s.json %t.bef | FileCheck %s
// RUN: python3 %S/check_trace.py %t.s.json tfrt.add.i32=13 main=1 | FileCheck %s --check-prefix=TRACE
// An unwritable trace file is an error after the run.
// RUN: not bef_executor --trace_file=%t.missing/dir/trace.json %t.bef 2>&1 | FileCheck %s --check-prefix=BAD

func.func @callee(%x: i32) -> i32 {
  %one = tfrt.constant.i32 1
  %y = tfrt.add.i32 %x, %one
  tfrt.return %y : i32
}

// CHECK-LABEL: --- Running 'main':
func.func @main() -> i32 {
  %a = tfrt.constant.i32 1
  %b = tfrt.call @callee(%a) : (i32) -> i32
  %c = "tfrt_test.async_add.i32"(%b, %a) : (i32, i32) -> i32
  %d = tfrt.call @callee(%c) : (i32) -> i32
  %n = tfrt.constant.i32 10
  %e, %unused = tfrt.repeat.i32 %n, %d, %a : i32, i32 {
    %w = tfrt.add.i32 %d, %a
    tfrt.return %w, %a : i32, i32
  }
  %f = tfrt.add.i32 %e, %a
  tfrt.return %f : i32
}
// CHECK-NEXT: 'main' returned 15
// TRACE: trace ok
// BAD: cannot open trace file '{{.*}}trace.json' for writing
