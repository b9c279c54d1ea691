// The remaining test kernels: hello/bool/debug-info printers, sleeps,
// quiesce, thread ids, uniqueness, share_to_two, logging, files, tensor
// types, unique locations, sync-function runners and sink natives.
// RUN: mlir-to-bef %s | bef_executor 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=LOG < %t.err

// CHECK-LABEL: --- Running 'printers':
func.func @printers() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %ch1 = "tfrt_test.print_hello"(%ch0) : (!tfrt.chain) -> !tfrt.chain
  %t = tfrt.constant.i1 true
  %ch2 = "tfrt_test.print_bool"(%ch1, %t) : (!tfrt.chain, i1) -> !tfrt.chain
  %ch3 = "tfrt_test.print_debug_info"(%ch2) : (!tfrt.chain) -> !tfrt.chain loc("named_kernel")
  %ch4 = "tfrt_test.print_debug_info"(%ch3) : (!tfrt.chain) -> !tfrt.chain
  %ch5 = "tfrt_test.print_debug_info"(%ch4) : (!tfrt.chain) -> !tfrt.chain loc(fused["a.py":1:1, "x", "y"])
  %ch6 = "tfrt_test.print_debug_info"(%ch5) : (!tfrt.chain) -> !tfrt.chain loc(callsite("callee"("f.py":2:3) at "g.py":4:5))
  tfrt.return %ch6 : !tfrt.chain
}
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: true
// CHECK-NEXT: named_kernel
// CHECK-NEXT: Kernel has no debug info
// CHECK-NEXT: xy
// CHECK-NEXT: callee

// CHECK-LABEL: --- Running 'sleeps':
func.func @sleeps() -> !tfrt.chain {
  %us = tfrt.constant.i32 1000
  %ch = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  %ch0 = tfrt.new.chain
  "tfrt_test.usleep"(%us) : (i32) -> ()
  %ch1 = "tfrt_test.quiesce"(%ch0) : (!tfrt.chain) -> !tfrt.chain
  %m = tfrt.merge.chains %ch, %ch1 : !tfrt.chain, !tfrt.chain
  %x = tfrt.constant.i32 7
  %p = tfrt.print.i32 %x, %m
  tfrt.return %p : !tfrt.chain
}
// CHECK-DAG: Slept for 1000 microseconds
// CHECK-DAG: Slept for 1000 microseconds
// CHECK: int32 = 7

// CHECK-LABEL: --- Running 'values':
func.func @values() -> (i32, i1, i1, i1) {
  %ch = tfrt.new.chain
  %id = "tfrt_test.get_thread_id"(%ch) : (!tfrt.chain) -> i32
  %a = tfrt.constant.i32 1
  %b = tfrt.constant.i32 2
  %ua, %ub = "tfrt_test.get_uniqueness"(%a, %b) : (i32, i32) -> (i1, i1)
  %s = tfrt.add.i32 %b, %b
  %v = "vt.constant"() {value = 3 : i32} : () -> !vt.value
  %v1, %v2 = "tfrt_test.share_to_two"(%v) : (!vt.value) -> (!vt.value, !vt.value)
  %p = "vt.print"(%v1, %ch) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  %p2 = "vt.print"(%v2, %p) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  %c = tfrt.equal.i32 %s, %s
  tfrt.return %id, %ua, %ub, %c : i32, i1, i1, i1
}
// The first thread to ask gets id 0. Uniqueness depends on reference counts
// at that moment (golden/test_uniqueness pins TFRT's exact answers).
// CHECK: 'values' returned 0,1,{{[01]}},1
// Both results are the same value object; the prints run after the
// driver's line because they are in another stream.
// CHECK: print vt_value(3)
// CHECK-NEXT: print vt_value(3)

// CHECK-LABEL: --- Running 'strings_and_types':
func.func @strings_and_types() -> (!tfrt.string, !tfrt.chain) {
  %ch0 = tfrt.new.chain
  %ref = "tfrt_test.async_value_ref"() : () -> !tfrt.string
  %ch1 = "tfrt_test.print_string"(%ref, %ch0) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  %msg = tfrt_test.get_string {value = "lit message"}
  %ch2 = "tfrt_test.logging"(%msg, %ch1) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  %t = "tfrt_test.get_static_tensor_type"() {tensor_type = "DenseHost"} : () -> !tfrt.tensor_type
  %ch3 = "tfrt_test.print_tensor_type"(%t, %ch2) : (!tfrt.tensor_type, !tfrt.chain) -> !tfrt.chain
  %path = tfrt_test.get_string {value = "/nonexistent/lit.data"}
  // expected-error @+1 {{failed to read from file /nonexistent/lit.data}}
  %bad = "tfrt_test.read_string_from_file"(%path) : (!tfrt.string) -> !tfrt.string
  tfrt.return %bad, %ch3 : !tfrt.string, !tfrt.chain
}
// CHECK-NEXT: string = available:2;unavailable;(3);available:3;unavailable;available:4
// CHECK-NEXT: tensor_type = DenseHost
// CHECK-NEXT: 'strings_and_types' returned <<error: failed to read from file /nonexistent/lit.data>>,!tfrt.chain value
// LOG: ] from TFRT_LOG(INFO): lit message
// LOG-NEXT: ] from TFRT_LOG(WARNING): lit message
// LOG-NEXT: ] from TFRT_LOG(ERROR): lit message
// LOG-NEXT: ] from TFRT_LOG_IF(INFO, true): lit message
// LOG-NEXT: ] from TFRT_LOG_IF(WARNING, true): lit message
// LOG-NEXT: ] from TFRT_LOG_IF(ERROR, true): lit message

// CHECK-LABEL: --- Running 'unique_locations':
func.func @unique_locations() -> (!tfrt.chain, !tfrt.chain) {
  %a = "tfrt_test.unique_loc"() {name = "first"} : () -> !tfrt.chain
  %b = "tfrt_test.unique_loc"() {name = "second"} : () -> !tfrt.chain
  tfrt.return %a, %b : !tfrt.chain, !tfrt.chain
}
// CHECK-NEXT: 'unique_locations' returned !tfrt.chain value,!tfrt.chain value

// CHECK: --- Not running 'sync_float_bits' because it has arguments.
func.func @sync_float_bits(%a: i32, %b: i32) -> i32 attributes {tfrt.sync} {
  %r = "tfrt_test.sync_sum_attributes"() {x = 1065353216 : i32} : () -> i32
  tfrt.return %r : i32
}
// CHECK: --- Not running 'sync_two' because it has arguments.
func.func @sync_two(%a: i32, %b: i32) -> (i32, i32) attributes {tfrt.sync} {
  %r = "tfrt_test.sync_sum_attributes"() {x = 1 : i32} : () -> i32
  %s = "tfrt_test.sync_sum_attributes"() {x = 2 : i32} : () -> i32
  tfrt.return %r, %s : i32, i32
}

func.func private @native_sink(i32) attributes {tfrt.native}
func.func private @native_async_sink(f32) -> !tfrt.chain attributes {tfrt.native}

// CHECK-LABEL: --- Running 'runners_and_sinks':
func.func @runners_and_sinks() -> (i32, i32, i32, !tfrt.chain) {
  %a = tfrt.constant.i32 1
  %b = tfrt.constant.i32 2
  // The runner reads the i32 result as a float bit pattern: 1.0f -> 1.
  %f = "tfrt_test.sync_function_runner.i32_i32.i32"(%a, %b) {callee = @sync_float_bits} : (i32, i32) -> i32
  %x, %y = "tfrt_test.invoke_sync_function.i32_i32.i32_i32"(%a, %b) {callee = @sync_two} : (i32, i32) -> (i32, i32)
  tfrt.call @native_sink(%a) : (i32) -> ()
  %h = tfrt.constant.f32 0.5
  %ch = tfrt.call @native_async_sink(%h) : (f32) -> !tfrt.chain
  tfrt.return %f, %x, %y, %ch : i32, i32, i32, !tfrt.chain
}
// CHECK-NEXT: 'runners_and_sinks' returned 1,1,2,!tfrt.chain value
