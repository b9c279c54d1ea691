// The other ResNet-family kernels of TFRT's CPU backend (cpu-kernels.md §3):
// values worked out by hand from the section, the checks and their texts,
// and the checks this runtime adds where TFRT's behaviour is undefined
// (a tensor of another dtype or rank than the kernel's name says).
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// CHECK-LABEL: --- Running 'pooling_and_padding':
func.func @pooling_and_padding() {
  %c0 = tfrt.new.chain
  // NHWC [1, 2, 2, 2]: pixels [1, 2], [3, 4], [5, 6], [7, 8].
  %image = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 2 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%image, %c0)
      {values = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32, 7.0 : f32, 8.0 : f32]}
      : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %mean = tfrt_dht.create_uninitialized_tensor.f32.2 [1 : i64, 2 : i64]
  %c2 = "tfrt_test.global_average_pooling.f32"(%image, %mean, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c3 = tfrt_dht.print_tensor %mean, %c2
  // [1, 1, 2, 1] = [1, 2], one zero row and column on each side.
  %row = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 1 : i64, 2 : i64, 1 : i64]
  %c4 = "tfrt_dht.set_tensor_with_constant_values.f32"(%row, %c3) {values = [1.0 : f32, 2.0 : f32]}
      : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %padded = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 4 : i64, 1 : i64]
  %c5 = "tfrt_test.zero_padding.f32"(%row, %padded, %c4) {padding = [1 : i32, 1 : i32]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c6 = tfrt_dht.print_tensor %padded, %c5
  // [1, 1, 1, 1] = [-3] pooled 1x1 in a 3x3 "same" window: the maximum
  // starts at FLT_MIN, so a window of negative values gives FLT_MIN.
  %negative = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 1 : i64, 1 : i64, 1 : i64]
  %c7 = "tfrt_dht.set_tensor_with_constant_values.f32"(%negative, %c6) {values = [-3.0 : f32]}
      : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %pooled = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 1 : i64, 1 : i64, 1 : i64]
  %c8 = "tfrt_test.max_pooling_2d.f32"(%negative, %pooled, %c7)
      {padding = "same", pool_size = [3 : i32, 3 : i32], strides = [1 : i32, 1 : i32]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c9 = tfrt_dht.print_tensor %pooled, %c8
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [1, 2], values = [4.000000e+00, 5.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [1, 3, 4, 1], values = [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [1, 1, 1, 1], values = [1.175494e-38]

// CHECK-LABEL: --- Running 'matrices':
func.func @matrices() {
  %c0 = tfrt.new.chain
  %m = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%m, %c0)
      {values = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32]}
      : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %t = tfrt_dht.create_uninitialized_tensor.f32.2 [3 : i64, 2 : i64]
  %c2 = "tfrt_test.tensor_transpose.f32"(%m, %t, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c3 = tfrt_dht.print_tensor %t, %c2
  %mean = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  %c4 = "tfrt_test.mean_axis_zero.f32"(%m, %mean, %c3) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c5 = tfrt_dht.print_tensor %mean, %c4
  // [2, 2] = [[1, 2], [3, 4]] repeated over a 1x2 image per batch row.
  %rows = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %c6 = "tfrt_dht.set_tensor_with_constant_values.f32"(%rows, %c5)
      {values = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %wide = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 1 : i64, 2 : i64, 2 : i64]
  %c7 = "tfrt_test.broadcast_2d.f32"(%rows, %wide, %c6) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c8 = tfrt_dht.print_tensor %wide, %c7
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [3, 2], values = [1.000000e+00, 4.000000e+00, 2.000000e+00, 5.000000e+00, 3.000000e+00, 6.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [3], values = [2.500000e+00, 3.500000e+00, 4.500000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 1, 2, 2], values = [1.000000e+00, 2.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 3.000000e+00, 4.000000e+00]

// CHECK-LABEL: --- Running 'training':
func.func @training() {
  %c0 = tfrt.new.chain
  // Softmax over the whole tensor, not per row: four zeros give 0.25 each.
  %logits = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %logits, %c0 0.0 : f32
  %c2 = "tfrt_test.softmax_inplace.f32"(%logits, %c1) : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c3 = tfrt_dht.print_tensor %logits, %c2
  %gradient = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c4 = "tfrt_dht.set_tensor_with_constant_values.f32"(%gradient, %c3) {values = [1.0 : f32, 2.0 : f32]}
      : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %rate = tfrt_dht.create_uninitialized_tensor.f32.1 [1 : i64]
  %c5 = tfrt_dht.fill_tensor_with_constant.f32 %rate, %c4 0.5 : f32
  %weights = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c6 = tfrt_dht.fill_tensor_with_constant.f32 %weights, %c5 10.0 : f32
  %c7 = "tfrt_test.gradient_descent.f32"(%gradient, %rate, %weights, %c6)
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c8 = tfrt_dht.print_tensor %weights, %c7
  %c9 = "tfrt_test.subtract_inplace.f32"(%gradient, %weights, %c8)
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c10 = tfrt_dht.print_tensor %weights, %c9
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [2.500000e-01, 2.500000e-01, 2.500000e-01, 2.500000e-01]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2], values = [9.500000e+00, 9.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2], values = [8.500000e+00, 7.000000e+00]

// CHECK-LABEL: --- Running 'checks':
func.func @checks() {
  %c0 = tfrt.new.chain
  %two = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %two, %c0 1.0 : f32
  %three = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  %c2 = tfrt_dht.fill_tensor_with_constant.f32 %three, %c1 1.0 : f32
  // expected-error @+1 {{GradientDescent lr should have only one element}}
  %e1 = "tfrt_test.gradient_descent.f32"(%two, %two, %two, %c2)
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{tensor shape mismatch: [2] vs. [3]}}
  %e2 = "tfrt_test.subtract_inplace.f32"(%two, %three, %c2)
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %m = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %same = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  // expected-error @+1 {{TensorTranspose output shape [2, 3] does not match the input shape [2, 3]}}
  %e3 = "tfrt_test.tensor_transpose.f32"(%m, %same, %c2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{MeanAxisZero output shape [2] does not match the input shape [2, 3]}}
  %e4 = "tfrt_test.mean_axis_zero.f32"(%m, %two, %c2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %wide = tfrt_dht.create_uninitialized_tensor.f32.4 [3 : i64, 1 : i64, 1 : i64, 2 : i64]
  // expected-error @+1 {{Broadcast2D output shape [3, 1, 1, 2] does not match the input shape [2, 3]}}
  %e5 = "tfrt_test.broadcast_2d.f32"(%m, %wide, %c2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %image = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  %small = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  // expected-error @+1 {{ZeroPadding output shape [1, 2, 2, 1] does not match the expected output shape [1, 4, 4, 1]}}
  %e6 = "tfrt_test.zero_padding.f32"(%image, %small, %c2) {padding = [1 : i32, 1 : i32]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{ZeroPadding expects padding of length 2}}
  %e7 = "tfrt_test.zero_padding.f32"(%image, %small, %c2) {padding = [1 : i32]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{MaxPool2D expects pool_size to have 2 elements}}
  %e8 = "tfrt_test.max_pooling_2d.f32"(%image, %small, %c2)
      {padding = "same", pool_size = [3 : i32], strides = [1 : i32, 1 : i32]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %flat = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  // expected-error @+1 {{Flatten output shape [2, 2] does not match the input shape [1, 2, 2, 1]}}
  %e9 = "tfrt_test.flatten.f32"(%image, %flat, %c2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // Checked here, undefined in TFRT: another dtype, another rank.
  %ints = tfrt_dht.create_uninitialized_tensor.i32.2 [1 : i64, 4 : i64]
  // expected-error @+1 {{tfrt_test.flatten.f32: the tensor's dtype is i32, the kernel takes f32}}
  %e10 = "tfrt_test.flatten.f32"(%image, %ints, %c2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{tfrt_test.max_pooling_2d.f32: the input has shape [2, 3], the kernel takes a rank-4 tensor}}
  %e11 = "tfrt_test.max_pooling_2d.f32"(%m, %small, %c2)
      {padding = "same", pool_size = [3 : i32, 3 : i32], strides = [1 : i32, 1 : i32]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{Unsupported reduction ranks: input_rank=2 reduction_rank=2}}
  %e12 = "tfrt_test.global_average_pooling.f32"(%m, %two, %c2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}
// CHECK-NOT: {{.}}
