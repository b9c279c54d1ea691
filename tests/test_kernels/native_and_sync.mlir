// Native functions (tfrt.native declarations) and sync functions.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 | FileCheck %s

func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}
func.func private @native_async_add(i32, i32) -> i32 attributes {tfrt.native}
func.func private @native_error() -> i32 attributes {tfrt.native}

// CHECK-LABEL: --- Running 'natives':
func.func @natives() -> (i32, i32, i32) {
  %a = tfrt.constant.i32 40
  %b = tfrt.constant.i32 2
  %x = tfrt.call @native_add(%a, %b) : (i32, i32) -> i32
  %y = tfrt.call @native_async_add(%x, %b) : (i32, i32) -> i32
  %e = tfrt.call @native_error() : () -> i32
  tfrt.return %x, %y, %e : i32, i32, i32
}
// CHECK-NEXT: 'natives' returned 42,44,<<error: something bad happened>>

// CHECK: --- Not running 'sync_sum' because it has arguments.
func.func @sync_sum(%a: i32, %b: i32) -> i32 attributes {tfrt.sync} {
  %c = "tfrt_test.sync_sum_attributes"() {x = 1 : i32, y = 2 : i32} : () -> i32
  tfrt.return %c : i32
}

// CHECK-LABEL: --- Running 'run_sync':
func.func @run_sync() -> i32 {
  %a = tfrt.constant.i32 1
  %b = tfrt.constant.i32 2
  %r = "tfrt_test.invoke_sync_function.i32_i32.i32"(%a, %b) {fn = @sync_sum} : (i32, i32) -> i32
  tfrt.return %r : i32
}
// CHECK-NEXT: 'run_sync' returned 3
