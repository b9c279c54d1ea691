// tfrt.call (arguments, several results, recursion) and tfrt.if.
// RUN: mlir-to-bef %s | not bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | not bef_executor --work_queue_type=mstd:2 | FileCheck %s

// CHECK: --- Not running 'factorial' because it has arguments.
func.func @factorial(%n: i64) -> i64 {
  %one = tfrt.constant.i64 1
  %done = "tfrt.lessequal.i64"(%n, %one) : (i64, i64) -> i1
  %r = tfrt.if %done, %n : (i64) -> (i64) {
    %c = tfrt.constant.i64 1
    tfrt.return %c : i64
  } else {
    %m1 = tfrt.constant.i64 -1
    %prev = tfrt.add.i64 %n, %m1
    %sub = tfrt.call @factorial(%prev) : (i64) -> i64
    %p = tfrt.mul.i64 %n, %sub
    tfrt.return %p : i64
  }
  tfrt.return %r : i64
}

// CHECK: --- Not running 'swap' because it has arguments.
func.func @swap(%a: i32, %b: i32) -> (i32, i32) {
  tfrt.return %b, %a : i32, i32
}

// CHECK-LABEL: --- Running 'calls':
func.func @calls() -> (i32, i32, i64) {
  %a = tfrt.constant.i32 1
  %b = tfrt.constant.i32 2
  %x, %y = tfrt.call @swap(%a, %b) : (i32, i32) -> (i32, i32)
  %five = tfrt.constant.i64 5
  %f = tfrt.call @factorial(%five) : (i64) -> i64
  tfrt.return %x, %y, %f : i32, i32, i64
}
// CHECK-NEXT: 'calls' returned 2,1,120

// CHECK-LABEL: --- Running 'if_branches':
func.func @if_branches() -> (i32, i32) {
  %t = tfrt.constant.i1 true
  %f = tfrt.constant.i1 false
  %v = tfrt.constant.i32 10
  %a = tfrt.if %t, %v : (i32) -> i32 {
    %d = tfrt.add.i32 %v, %v
    tfrt.return %d : i32
  } else {
    tfrt.return %v : i32
  }
  %b = tfrt.if %f, %v : (i32) -> (i32) {
    %d = tfrt.add.i32 %v, %v
    tfrt.return %d : i32
  } else {
    %d = tfrt.mul.i32 %v, %v
    tfrt.return %d : i32
  }
  tfrt.return %a, %b : i32, i32
}
// CHECK-NEXT: 'if_branches' returned 20,100

// CHECK-LABEL: --- Running 'if_without_else':
func.func @if_without_else() -> !tfrt.chain {
  %f = tfrt.constant.i1 false
  %ch = tfrt.new.chain
  tfrt.if %f, %ch : (!tfrt.chain) -> () {
    %x = tfrt.constant.i32 1
    %ch1 = tfrt.print.i32 %x, %ch
    tfrt.return
  }
  tfrt.return %ch : !tfrt.chain
}
// CHECK-NEXT: 'if_without_else' returned !tfrt.chain value

// CHECK-LABEL: --- Running 'if_error_condition':
func.func @if_error_condition() -> i32 {
  %bad = "tfrt_test.fail"() : () -> i32
  %zero = tfrt.constant.i32 0
  %cond = tfrt.equal.i32 %bad, %zero
  %v = tfrt.constant.i32 1
  %r = tfrt.if %cond, %v : (i32) -> i32 {
    tfrt.return %v : i32
  } else {
    tfrt.return %v : i32
  }
  tfrt.return %r : i32
}
// CHECK: 'if_error_condition' returned <<error: something bad happened>>
