// Calls of straight-line functions (tfrt.call, tfrt.if, tfrt.cond) run in
// place on the caller's straight line, and tfrt.repeat.i32 / tfrt.while
// bodies made of them run every iteration on payloads. The results are the
// dataflow executor's: the traced run below takes the dataflow path
// (tracing turns the fast paths off) and must print the same, on `s` and on
// `mstd:2`.
// RUN: mlir-to-bef %s -o %t.bef
// RUN: bef_executor %t.bef | FileCheck %s
// RUN: bef_executor --work_queue_type=mstd:2 %t.bef | FileCheck %s
// RUN: bef_executor --trace_file=%t.json %t.bef | FileCheck %s
// RUN: bef_executor --work_queue_type=mstd:2 --trace_file=%t2.json %t.bef | FileCheck %s

func.func private @add_one(%x: i32) -> i32 {
  %one = tfrt.constant.i32 1
  %y = tfrt.add.i32 %x, %one
  tfrt.return %y : i32
}

// Two results, one of them an argument passed on.
func.func private @sum_and_pass(%x: i32, %y: i32) -> (i32, i32) {
  %s = tfrt.add.i32 %x, %y
  tfrt.return %s, %y : i32, i32
}

// CHECK-LABEL: --- Running 'call':
func.func @call() -> (i32, i32, i32) {
  %a = tfrt.constant.i32 40
  %b = tfrt.call @add_one(%a) : (i32) -> i32
  %c = tfrt.call @add_one(%b) : (i32) -> i32
  %s, %p = tfrt.call @sum_and_pass(%c, %a) : (i32, i32) -> (i32, i32)
  tfrt.return %c, %s, %p : i32, i32, i32
}
// CHECK-NEXT: 'call' returned 42,82,40

func.func private @twice(%x: i32) -> i32 {
  %y = tfrt.call @add_one(%x) : (i32) -> i32
  %z = tfrt.call @add_one(%y) : (i32) -> i32
  tfrt.return %z : i32
}

// CHECK-LABEL: --- Running 'nested_calls':
func.func @nested_calls() -> i32 {
  %a = tfrt.constant.i32 1
  %b = tfrt.call @twice(%a) : (i32) -> i32
  %c = tfrt.call @twice(%b) : (i32) -> i32
  tfrt.return %c : i32
}
// CHECK-NEXT: 'nested_calls' returned 5

// Both branches taken; the else branch passes its argument on.
// CHECK-LABEL: --- Running 'if_both_ways':
func.func @if_both_ways() -> (i32, i32, i64) {
  %a = tfrt.constant.i32 10
  %b = tfrt.constant.i32 20
  %lt = "tfrt.lessequal.i32"(%a, %b) : (i32, i32) -> i1
  %gt = "tfrt.lessequal.i32"(%b, %a) : (i32, i32) -> i1
  %x = tfrt.if %lt, %a : (i32) -> (i32) {
    %y = tfrt.call @twice(%a) : (i32) -> i32
    tfrt.return %y : i32
  } else {
    tfrt.return %a : i32
  }
  %z = tfrt.if %gt, %b : (i32) -> (i32) {
    %y = tfrt.call @add_one(%b) : (i32) -> i32
    tfrt.return %y : i32
  } else {
    tfrt.return %b : i32
  }
  %w = tfrt.if %gt : () -> (i64) {
    %c = tfrt.constant.i64 1
    tfrt.return %c : i64
  } else {
    %c = tfrt.constant.i64 2
    tfrt.return %c : i64
  }
  tfrt.return %x, %z, %w : i32, i32, i64
}
// CHECK-NEXT: 'if_both_ways' returned 12,20,2

// tfrt.cond is tfrt.if with named branch functions.
func.func private @then_branch(%x: i32) -> i32 {
  %y = tfrt.add.i32 %x, %x
  tfrt.return %y : i32
}
func.func private @else_branch(%x: i32) -> i32 {
  tfrt.return %x : i32
}
// CHECK-LABEL: --- Running 'cond':
func.func @cond() -> (i32, i32) {
  %t = tfrt.constant.i1 true
  %f = tfrt.constant.i1 false
  %a = tfrt.constant.i32 21
  %x = tfrt.cond %t @then_branch @else_branch(%a) : (i32) -> (i32)
  %y = tfrt.cond %f @then_branch @else_branch(%a) : (i32) -> (i32)
  tfrt.return %x, %y : i32, i32
}
// CHECK-NEXT: 'cond' returned 42,21

// Chains go through calls too.
func.func private @touch(%ch: !tfrt.chain, %x: i32) -> (!tfrt.chain, i32) {
  %m = tfrt.merge.chains %ch, %x : !tfrt.chain, i32
  %y = tfrt.add.i32 %x, %x
  tfrt.return %m, %y : !tfrt.chain, i32
}
// CHECK-LABEL: --- Running 'chain_call':
func.func @chain_call() -> (!tfrt.chain, i32) {
  %ch = tfrt.new.chain
  %a = tfrt.constant.i32 3
  %c, %b = tfrt.call @touch(%ch, %a) : (!tfrt.chain, i32) -> (!tfrt.chain, i32)
  tfrt.return %c, %b : !tfrt.chain, i32
}
// CHECK-NEXT: 'chain_call' returned !tfrt.chain value,6

// A repeat whose body calls, and one whose body branches.
// CHECK-LABEL: --- Running 'repeat_call_and_if':
func.func @repeat_call_and_if() -> (i32, i32) {
  %n = tfrt.constant.i32 1000
  %x = tfrt.constant.i32 0
  %r = tfrt.repeat.i32 %n, %x : i32 {
    %y = tfrt.call @add_one(%x) : (i32) -> i32
    tfrt.return %y : i32
  }
  %s = tfrt.repeat.i32 %n, %x : i32 {
    %hundred = tfrt.constant.i32 100
    %small = "tfrt.lessequal.i32"(%x, %hundred) : (i32, i32) -> i1
    %y = tfrt.if %small, %x : (i32) -> (i32) {
      %z = tfrt.call @add_one(%x) : (i32) -> i32
      tfrt.return %z : i32
    } else {
      tfrt.return %x : i32
    }
    tfrt.return %y : i32
  }
  tfrt.return %r, %s : i32, i32
}
// CHECK-NEXT: 'repeat_call_and_if' returned 1000,101

func.func private @step(%i: i32, %last: i32) -> (i32, i32, i1) {
  %one = tfrt.constant.i32 1
  %next = tfrt.add.i32 %i, %one
  %more = "tfrt.lessequal.i32"(%next, %last) : (i32, i32) -> i1
  tfrt.return %next, %last, %more : i32, i32, i1
}

func.func private @double_until(%x: i32, %limit: i32) -> (i32, i32, i1) {
  %y = tfrt.call @then_branch(%x) : (i32) -> i32
  %more = "tfrt.lessequal.i32"(%y, %limit) : (i32, i32) -> i1
  tfrt.return %y, %limit, %more : i32, i32, i1
}

// While loops whose bodies run on the straight line; one that never runs.
// CHECK-LABEL: --- Running 'while':
func.func @while() -> (i32, i32, i32, i32) {
  %t = tfrt.constant.i1 true
  %f = tfrt.constant.i1 false
  %zero = tfrt.constant.i32 0
  %one = tfrt.constant.i32 1
  %last = tfrt.constant.i32 999
  %limit = tfrt.constant.i32 1000
  %i, %l = tfrt.while %t @step(%zero, %last) parallel_iterations(1) : (i32, i32) -> (i32, i32)
  %j, %m = tfrt.while %f @step(%zero, %last) parallel_iterations(1) : (i32, i32) -> (i32, i32)
  %d, %n = tfrt.while %t @double_until(%one, %limit) parallel_iterations(1) : (i32, i32) -> (i32, i32)
  tfrt.return %i, %j, %d, %l : i32, i32, i32, i32
}
// CHECK-NEXT: 'while' returned 1000,0,1024,999

// A recursive function is no straight line (its calls nest without end):
// planning gives up and the dataflow executor runs it.
func.func private @fib(%n: i32) -> i32 {
  %one = tfrt.constant.i32 1
  %small = "tfrt.lessequal.i32"(%n, %one) : (i32, i32) -> i1
  %r = tfrt.if %small, %n : (i32) -> (i32) {
    tfrt.return %n : i32
  } else {
    %minus_one = tfrt.constant.i32 -1
    %minus_two = tfrt.constant.i32 -2
    %a = tfrt.add.i32 %n, %minus_one
    %b = tfrt.add.i32 %n, %minus_two
    %fa = tfrt.call @fib(%a) : (i32) -> i32
    %fb = tfrt.call @fib(%b) : (i32) -> i32
    %s = tfrt.add.i32 %fa, %fb
    tfrt.return %s : i32
  }
  tfrt.return %r : i32
}
// CHECK-LABEL: --- Running 'recursion':
func.func @recursion() -> i32 {
  %n = tfrt.constant.i32 15
  %r = tfrt.call @fib(%n) : (i32) -> i32
  tfrt.return %r : i32
}
// CHECK-NEXT: 'recursion' returned 610

// A callee with a kernel that is not direct (printing) keeps its caller on
// the dataflow path.
func.func private @print_and_add(%ch: !tfrt.chain, %x: i32) -> (!tfrt.chain, i32) {
  %c = tfrt.print.i32 %x, %ch
  %y = tfrt.add.i32 %x, %x
  tfrt.return %c, %y : !tfrt.chain, i32
}
// CHECK-LABEL: --- Running 'not_straight':
func.func @not_straight() -> i32 {
  %ch = tfrt.new.chain
  %a = tfrt.constant.i32 5
  %c, %b = tfrt.call @print_and_add(%ch, %a) : (!tfrt.chain, i32) -> (!tfrt.chain, i32)
  tfrt.return %b : i32
}
// CHECK-NEXT: int32 = 5
// CHECK-NEXT: 'not_straight' returned 10
