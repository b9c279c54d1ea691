// TFRT's backends/cpu/mlir_tests/resnet/resnet_tensor_kernels.mlir
// (cpu-kernels.md §6.2), in this project's words: flatten keeps the elements
// in row-major order, and max_pooling_2d reports an unknown padding and an
// output of the wrong shape at the kernel's location, writing nothing.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// CHECK-LABEL: --- Running 'flatten':
func.func @flatten() {
  %c0 = tfrt.new.chain
  %source = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%source, %c0)
      {values = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %flat = tfrt_dht.create_uninitialized_tensor.f32.2 [1 : i64, 4 : i64]
  %c2 = "tfrt_test.flatten.f32"(%source, %flat, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c3 = tfrt_dht.print_tensor %flat, %c2
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [1, 4], values = [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]

// CHECK-LABEL: --- Running 'max_pool_unknown_padding':
func.func @max_pool_unknown_padding() {
  %c0 = tfrt.new.chain
  %input = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 3 : i64, 3 : i64, 6 : i64]
  %output = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 1 : i64, 1 : i64, 6 : i64]
  // expected-error @+1 {{MaxPool2D padding 'invalid' is not recognized}}
  %c1 = "tfrt_test.max_pooling_2d.f32"(%input, %output, %c0)
      {padding = "invalid", pool_size = [3 : i32, 3 : i32], strides = [3 : i32, 3 : i32]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// CHECK-LABEL: --- Running 'max_pool_output_shape':
func.func @max_pool_output_shape() {
  %c0 = tfrt.new.chain
  %input = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 3 : i64, 3 : i64, 6 : i64]
  %output = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 2 : i64, 1 : i64, 6 : i64]
  // expected-error @+1 {{MaxPool2D output shape [2, 2, 1, 6] does not match the expected output shape [2, 1, 1, 6]}}
  %c1 = "tfrt_test.max_pooling_2d.f32"(%input, %output, %c0)
      {padding = "valid", pool_size = [3 : i32, 3 : i32], strides = [3 : i32, 3 : i32]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}
// CHECK-NOT: {{.}}
