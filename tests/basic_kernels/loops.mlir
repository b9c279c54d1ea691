// tfrt.repeat.i32, tfrt.while, tfrt.cond, tfrt.case, tfrt.once.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// CHECK-LABEL: --- Running 'repeat':
func.func @repeat() -> (i32, i64, i32) {
  %n = tfrt.constant.i32 100
  %zero = tfrt.constant.i32 0
  %one64 = tfrt.constant.i64 1
  %sum, %pow = tfrt.repeat.i32 %n, %zero, %one64 : i32, i64 {
    %c = tfrt.constant.i32 3
    %s = tfrt.add.i32 %zero, %c
    %two = tfrt.constant.i64 2
    %p = "tfrt.minus.i64"(%one64, %two) : (i64, i64) -> i64
    tfrt.return %s, %p : i32, i64
  }
  %none = tfrt.constant.i32 0
  %same = tfrt.repeat.i32 %none, %n : i32 {
    %d = tfrt.add.i32 %n, %n
    tfrt.return %d : i32
  }
  tfrt.return %sum, %pow, %same : i32, i64, i32
}
// 100 iterations of x - 2 starting at 1 give -199; zero trips return the
// operand itself.
// CHECK-NEXT: 'repeat' returned 300,-199,100

// CHECK-LABEL: --- Running 'repeat_million':
func.func @repeat_million() -> i32 {
  %n = tfrt.constant.i32 1000000
  %zero = tfrt.constant.i32 0
  %r = tfrt.repeat.i32 %n, %zero : i32 {
    %one = tfrt.constant.i32 1
    %s = tfrt.add.i32 %zero, %one
    tfrt.return %s : i32
  }
  tfrt.return %r : i32
}
// A synchronous body never grows the stack per iteration.
// CHECK-NEXT: 'repeat_million' returned 1000000

// CHECK: --- Not running 'step' because it has arguments.
func.func @step(%i: i32, %acc: i64) -> (i32, i64, i1) {
  %one = tfrt.constant.i32 1
  %next = tfrt.add.i32 %i, %one
  %three = tfrt.constant.i64 3
  %acc2 = tfrt.mul.i64 %acc, %three
  %limit = tfrt.constant.i32 5
  %more = "tfrt.lessequal.i32"(%next, %limit) : (i32, i32) -> i1
  tfrt.return %next, %acc2, %more : i32, i64, i1
}

// CHECK-LABEL: --- Running 'while':
func.func @while() -> (i32, i64, i32, i64) {
  %t = tfrt.constant.i1 true
  %f = tfrt.constant.i1 false
  %i = tfrt.constant.i32 1
  %acc = tfrt.constant.i64 1
  %ri, %racc = tfrt.while %t @step(%i, %acc) parallel_iterations(1) : (i32, i64) -> (i32, i64)
  %si, %sacc = tfrt.while %f @step(%i, %acc) parallel_iterations(4) : (i32, i64) -> (i32, i64)
  tfrt.return %ri, %racc, %si, %sacc : i32, i64, i32, i64
}
// Iterations run while the body says so: i = 1..5 -> 6, acc = 3^5.
// CHECK-NEXT: 'while' returned 6,243,1,1

// CHECK: --- Not running 'plus_one' because it has arguments.
func.func @plus_one(%x: i32) -> i32 {
  %one = tfrt.constant.i32 1
  %r = tfrt.add.i32 %x, %one
  tfrt.return %r : i32
}
// CHECK: --- Not running 'times_ten' because it has arguments.
func.func @times_ten(%x: i32) -> i32 {
  %ten = tfrt.constant.i32 10
  %r = tfrt.mul.i32 %x, %ten
  tfrt.return %r : i32
}

// CHECK-LABEL: --- Running 'cond_and_case':
func.func @cond_and_case() -> (i32, i32, i32, i32, i32) {
  %t = tfrt.constant.i1 true
  %f = tfrt.constant.i1 false
  %x = tfrt.constant.i32 7
  %a = tfrt.cond %t @plus_one @times_ten (%x) : (i32) -> (i32)
  %b = tfrt.cond %f @plus_one @times_ten (%x) : (i32) -> (i32)
  %zero = tfrt.constant.i32 0
  %c = tfrt.case %zero [@plus_one, @times_ten] (%x) : (i32) -> (i32)
  // Any out-of-range index selects the last branch.
  %neg = tfrt.constant.i32 -4
  %d = tfrt.case %neg [@plus_one, @times_ten] (%x) : (i32) -> (i32)
  %big = tfrt.constant.i32 9
  %e = tfrt.case %big [@plus_one, @times_ten] (%x) : (i32) -> (i32)
  tfrt.return %a, %b, %c, %d, %e : i32, i32, i32, i32, i32
}
// CHECK-NEXT: 'cond_and_case' returned 8,70,8,70,70

// CHECK: --- Not running 'init' because it has arguments.
func.func @init(%x: i32) -> i32 {
  %ch = tfrt.new.chain
  %ch1 = tfrt.print.i32 %x, %ch
  %r = "tfrt.alias.value"(%ch1, %x) : (!tfrt.chain, i32) -> i32
  tfrt.return %r : i32
}

// CHECK-LABEL: --- Running 'once':
func.func @once() -> (i32, i32) {
  %a = tfrt.constant.i32 5
  %r1 = tfrt.once @init(%a) : (i32) -> (i32)
  %r2 = tfrt.once @init(%a) : (i32) -> (i32)
  tfrt.return %r1, %r2 : i32, i32
}
// The function runs once per resource context: later calls share the result
// (one print). With different arguments the winner would depend on timing
// under mstd:2, so both calls pass the same value.
// CHECK-NEXT: int32 = 5
// CHECK-NEXT: 'once' returned 5,5
