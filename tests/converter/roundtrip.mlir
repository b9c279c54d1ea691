// The custom syntax of the host dialects prints back as it parses
// (bef-opt | bef-opt), and converts to the same BEF after printing.
// RUN: bef-opt -allow-unregistered-dialect %s | bef-opt -allow-unregistered-dialect | FileCheck %s
// RUN: mlir-to-bef %s -o %t.bef
// RUN: bef-opt -allow-unregistered-dialect -mlir-print-debuginfo %s > %t.mlir
// RUN: mlir-to-bef %t.mlir | cmp - %t.bef

// CHECK-LABEL: func.func @syntax
func.func @syntax(%c: i1, %x: i32) -> (i32, i32, !tfrt.chain, i32, i32) {
  // CHECK: tfrt.constant.i1 false
  %f = tfrt.constant.i1 0
  // CHECK: tfrt.constant.f32 1.000000e-01
  %a = tfrt.constant.f32 0.1
  // CHECK: tfrt.constant.complex64 1.000000e+00, 2.000000e+00
  %cx = tfrt.constant.complex64 1.0, 2.0
  // CHECK: %[[Q:.*]]:2 = tfrt.div.i32 %arg1, %arg1
  %q, %r = tfrt.div.i32 %x, %x
  // CHECK: tfrt.if %arg0, %arg1 : (i32) -> (i32)  {
  // CHECK-NEXT: tfrt.return %arg1 : i32
  // CHECK-NEXT: } else  {
  %i = tfrt.if %c, %x : (i32) -> i32 {
    tfrt.return %x : i32
  } else {
    %y = tfrt.add.i32 %x, %x
    tfrt.return %y : i32
  }
  // CHECK: tfrt.repeat.i32 %{{.*}}, %arg1 : i32 {
  %n = tfrt.constant.i32 3
  %rep = tfrt.repeat.i32 %n, %x : i32 {
    tfrt.return %x : i32
  }
  // CHECK: tfrt.merge.chains %{{.*}}, %{{.*}} : !tfrt.chain, i32
  %ch = tfrt.new.chain
  %m = tfrt.merge.chains %ch, %x : !tfrt.chain, i32
  // CHECK: tfrt.parallel_for.i32 %{{.*}} to %{{.*}} fixed %{{.*}}, %{{.*}} : !tfrt.chain {
  %end = tfrt.constant.i32 9
  %done = tfrt.parallel_for.i32 %n to %end fixed %n, %m : !tfrt.chain {
    tfrt.return %m : !tfrt.chain
  }
  // CHECK: tfrt_test.do.async %arg1 : (i32) -> (i32)  {
  %as = tfrt_test.do.async %x : (i32) -> (i32) {
    tfrt.return %x : i32
  }
  // CHECK: tfrt_test.get_string {value = "s"}
  %s = tfrt_test.get_string {value = "s"}
  // CHECK: tfrt_test.benchmark "b"(%arg1 : i32) duration_secs = 1, max_count = 2, num_warmup_runs = 3 {
  %b = tfrt_test.benchmark "b"(%x : i32) duration_secs = 1, max_count = 2, num_warmup_runs = 3 {
    tfrt.return %x : i32
  }
  // CHECK: tfrt.new.chain {shape = #corert.shape<2x?x3>, unranked = #corert.shape<*>}
  %shapes = tfrt.new.chain {shape = #corert.shape<2x?x3>, unranked = #corert.shape<*>}
  %t = tfrt.constant.i32 7
  tfrt.return %i, %rep, %done, %as, %t : i32, i32, !tfrt.chain, i32, i32
}

func.func @callee(%a: i32) -> i32 {
  tfrt.return %a : i32
}

// CHECK-LABEL: func.func @calls
func.func @calls(%c: i1, %x: i32) -> (i32, i32, i32, i32, !tfrt.chain) {
  // CHECK: tfrt.call @callee(%arg1) : (i32) -> i32
  %a = tfrt.call @callee(%x) : (i32) -> i32
  // CHECK: tfrt.cond %arg0 @callee @callee (%arg1) : (i32) -> (i32)
  %b = tfrt.cond %c @callee @callee (%x) : (i32) -> (i32)
  // CHECK: tfrt.case %{{.*}} [@callee, @callee] (%arg1) : (i32) -> (i32)
  %i = tfrt.constant.i32 0
  %d = tfrt.case %i [@callee, @callee] (%x) : (i32) -> (i32)
  // CHECK: tfrt.once @callee(%arg1) : (i32) -> (i32)
  %e = tfrt.once @callee(%x) : (i32) -> (i32)
  // CHECK: tfrt.parallel_call.i32 %{{.*}} to %{{.*}} fixed %{{.*}} @range()
  %j = tfrt.constant.i32 4
  %p = tfrt.parallel_call.i32 %i to %j fixed %j @range()
  tfrt.return %a, %b, %d, %e, %p : i32, i32, i32, i32, !tfrt.chain
}

func.func @range(%s: i32, %e: i32) {
  tfrt.return
}

func.func @step(%i: i32) -> (i32, i1) {
  %t = tfrt.constant.i1 true
  tfrt.return %i, %t : i32, i1
}

// CHECK-LABEL: func.func @loop
func.func @loop(%c: i1, %x: i32) -> i32 {
  // CHECK: tfrt.while %arg0 @step(%arg1) parallel_iterations(2) : (i32) -> (i32)
  %r = tfrt.while %c @step(%x) parallel_iterations(2) : (i32) -> (i32)
  tfrt.return %r : i32
}
