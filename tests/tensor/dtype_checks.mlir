// Kernels that read or write a tensor's elements as one type check the
// tensor's dtype first and fail with the kernel, both dtypes and the
// location (TFRT reinterprets the bytes: an i32 tensor filled by the f32
// kernel holds 2.5f's bit pattern, two f64 tensors compare "equal" under
// tensor_equal.f32). Tensors of different dtypes stay "not equal", as in
// TFRT. On the straight line (tensor_equal's direct entry point) and the
// dataflow path alike, on both work queues.
// RUN: mlir-to-bef %s | not bef_executor 2>&1 | FileCheck %s
// RUN: mlir-to-bef %s | not bef_executor --work_queue_type=mstd:2 2>&1 | FileCheck %s

// CHECK-LABEL: --- Running 'fill_with_another_type':
func.func @fill_with_another_type() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %t = "tfrt_dht.create_uninitialized_tensor.i32.1"() {shape = [4 : i64]} : () -> !tfrt_tensor.tensor
  %c1 = "tfrt_dht.fill_tensor_with_constant.f32"(%t, %c0) {value = 2.5 : f32} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return %c1 : !tfrt.chain
}
// CHECK: dtype_checks.mlir:[[@LINE-3]]:9: error: unexpected error: runtime error: tfrt_dht.fill_tensor_with_constant: the tensor's dtype is i32, the kernel takes f32
// CHECK: 'fill_with_another_type' returned <<error: tfrt_dht.fill_tensor_with_constant: the tensor's dtype is i32, the kernel takes f32>>

// CHECK-LABEL: --- Running 'same_size_values':
// Same element size, other type: written as f32 bits before the check.
func.func @same_size_values() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %t = "tfrt_dht.create_uninitialized_tensor.i32.1"() {shape = [1 : i64]} : () -> !tfrt_tensor.tensor
  %v = tfrt.constant.f32 1.5
  %c1 = "tfrt_dht.set_tensor_with_values.f32"(%t, %c0, %v) : (!tfrt_tensor.tensor, !tfrt.chain, f32) -> !tfrt.chain
  tfrt.return %c1 : !tfrt.chain
}
// CHECK: 'same_size_values' returned <<error: tfrt_dht.set_tensor_with_values: the tensor's dtype is i32, the kernel takes f32>>

// CHECK-LABEL: --- Running 'constant_values_of_another_type':
func.func @constant_values_of_another_type() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %t = "tfrt_dht.create_uninitialized_tensor.f64.1"() {shape = [2 : i64]} : () -> !tfrt_tensor.tensor
  %c1 = "tfrt_dht.set_tensor_with_constant_values.i64"(%t, %c0) {values = [1 : i64, 2 : i64]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return %c1 : !tfrt.chain
}
// CHECK: 'constant_values_of_another_type' returned <<error: tfrt_dht.set_tensor_with_constant_values: the tensor's dtype is f64, the kernel takes i64>>

// CHECK-LABEL: --- Running 'equal_of_another_type':
// Two f64 tensors through tensor_equal.f32: the direct entry point fails,
// the frame path reports it at the kernel.
func.func @equal_of_another_type() -> i1 {
  %c0 = tfrt.new.chain
  %a = "tfrt_dht.create_uninitialized_tensor.f64.1"() {shape = [2 : i64]} : () -> !tfrt_tensor.tensor
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f64"(%a, %c0) {values = [1.0 : f64, 2.0 : f64]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %b = "tfrt_dht.create_uninitialized_tensor.f64.1"() {shape = [2 : i64]} : () -> !tfrt_tensor.tensor
  %c2 = "tfrt_dht.set_tensor_with_constant_values.f64"(%b, %c1) {values = [1.0 : f64, 5.0 : f64]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %eq, %c3 = "tfrt_dht.tensor_equal.f32"(%a, %b, %c2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  tfrt.return %eq : i1
}
// CHECK: dtype_checks.mlir:[[@LINE-3]]:14: error: unexpected error: runtime error: tfrt_dht.tensor_equal: the tensor's dtype is f64, the kernel takes f32
// CHECK: 'equal_of_another_type' returned <<error: tfrt_dht.tensor_equal: the tensor's dtype is f64, the kernel takes f32>>

// CHECK-LABEL: --- Running 'different_dtypes_are_not_equal':
func.func @different_dtypes_are_not_equal() -> (i1, i1) {
  %c0 = tfrt.new.chain
  %a = "tfrt_dht.create_uninitialized_tensor.i32.1"() {shape = [1 : i64]} : () -> !tfrt_tensor.tensor
  %c1 = "tfrt_dht.fill_tensor_with_constant.i32"(%a, %c0) {value = 0 : i32} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %b = "tfrt_dht.create_uninitialized_tensor.f32.1"() {shape = [1 : i64]} : () -> !tfrt_tensor.tensor
  %c2 = "tfrt_dht.fill_tensor_with_constant.f32"(%b, %c1) {value = 0.0 : f32} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %eq, %c3 = "tfrt_dht.tensor_equal.i32"(%a, %b, %c2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %close, %c4 = "tfrt_dht.tensor_allclose.f32"(%b, %a, %c3) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  tfrt.return %eq, %close : i1, i1
}
// CHECK: 'different_dtypes_are_not_equal' returned 0,0

// CHECK-LABEL: --- Running 'allclose_of_another_type':
func.func @allclose_of_another_type() -> i1 {
  %c0 = tfrt.new.chain
  %a = "tfrt_dht.create_uninitialized_tensor.i32.1"() {shape = [1 : i64]} : () -> !tfrt_tensor.tensor
  %c1 = "tfrt_dht.fill_tensor_with_constant.i32"(%a, %c0) {value = 7 : i32} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %close, %c2 = "tfrt_dht.tensor_allclose.f32"(%a, %a, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  tfrt.return %close : i1
}
// CHECK: 'allclose_of_another_type' returned <<error: tfrt_dht.tensor_allclose: the tensor's dtype is i32, the kernel takes f32>>
