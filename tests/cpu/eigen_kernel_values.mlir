// TFRT's eigen.* kernels on small tensors whose results are worked out by
// hand in the comments (cpu-kernels.md §4.4-§4.7): the matrix product's
// alpha/beta cases (with TFRT's quirk: alpha != 1 reads C even when beta is
// 0), i32 wrapping, inference batch norm in place, max pooling with i64
// attributes, zero padding; then every check's error text (the training
// gradients' too), at the kernel's
// location, with nothing written.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// A = [[1, 2, 3], [4, 5, 6]], B = [[1, 2], [3, 4], [5, 6]]: A B = [[22, 28], [49, 64]].
// CHECK-LABEL: --- Running 'matmul_alpha_beta':
func.func @matmul_alpha_beta() {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%a, %c0)
      {values = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %b = tfrt_dht.create_uninitialized_tensor.f32.2 [3 : i64, 2 : i64]
  %c2 = "tfrt_dht.set_tensor_with_constant_values.f32"(%b, %c1)
      {values = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %one = tfrt.constant.f32 1.0
  %zero = tfrt.constant.f32 0.0
  %two = tfrt.constant.f32 2.0
  %c = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %c3 = tfrt_dht.fill_tensor_with_constant.f32 %c, %c2 100.0 : f32
  // alpha 1, beta 0: C = A B, the old C not read.
  %c4 = "eigen.matmul.f32"(%one, %a, %b, %zero, %c, %c3) : (f32, !tfrt_tensor.tensor, !tfrt_tensor.tensor, f32, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c5 = tfrt_dht.print_tensor %c, %c4
  // alpha 1, beta 1: C = A B + C.
  %c6 = "eigen.matmul.f32"(%one, %a, %b, %one, %c, %c5) : (f32, !tfrt_tensor.tensor, !tfrt_tensor.tensor, f32, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c7 = tfrt_dht.print_tensor %c, %c6
  // alpha 2, beta 2: C = 2 A B + 2 C.
  %c8 = "eigen.matmul.f32"(%two, %a, %b, %two, %c, %c7) : (f32, !tfrt_tensor.tensor, !tfrt_tensor.tensor, f32, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c9 = tfrt_dht.print_tensor %c, %c8
  // alpha 2, beta 0 over a C of NaN: 2 A B + 0 NaN = NaN (TFRT's quirk).
  %nan = tfrt.constant.f32 0x7FC00000
  %c10 = tfrt_dht.fill_tensor_with_constant.f32 %c, %c9 0x7FC00000 : f32
  %c11 = "eigen.matmul.f32"(%two, %a, %b, %zero, %c, %c10) : (f32, !tfrt_tensor.tensor, !tfrt_tensor.tensor, f32, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c12 = tfrt_dht.print_tensor %c, %c11
  // alpha 1, beta 0 over the same NaN: C = A B.
  %c13 = "eigen.matmul.f32"(%one, %a, %b, %zero, %c, %c12) : (f32, !tfrt_tensor.tensor, !tfrt_tensor.tensor, f32, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c14 = tfrt_dht.print_tensor %c, %c13
  tfrt.return
}
// CHECK-NEXT: shape = [2, 2], values = [2.200000e+01, 2.800000e+01, 4.900000e+01, 6.400000e+01]
// CHECK-NEXT: shape = [2, 2], values = [4.400000e+01, 5.600000e+01, 9.800000e+01, 1.280000e+02]
// CHECK-NEXT: shape = [2, 2], values = [1.320000e+02, 1.680000e+02, 2.940000e+02, 3.840000e+02]
// CHECK-NEXT: shape = [2, 2], values = [nan, nan, nan, nan]
// CHECK-NEXT: shape = [2, 2], values = [2.200000e+01, 2.800000e+01, 4.900000e+01, 6.400000e+01]

// 2147483647 x 2 wraps to -2; then 1 x (-2) + 3 x (-2) = -8.
// CHECK-LABEL: --- Running 'matmul_i32_wraps':
func.func @matmul_i32_wraps() {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.2 [1 : i64, 1 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.i32 %a, %c0 2147483647 : i32
  %b = tfrt_dht.create_uninitialized_tensor.i32.2 [1 : i64, 1 : i64]
  %c2 = tfrt_dht.fill_tensor_with_constant.i32 %b, %c1 2 : i32
  %one = tfrt.constant.i32 1
  %zero = tfrt.constant.i32 0
  %three = tfrt.constant.i32 3
  %c = tfrt_dht.create_uninitialized_tensor.i32.2 [1 : i64, 1 : i64]
  %c3 = "eigen.matmul.i32"(%one, %a, %b, %zero, %c, %c2) : (i32, !tfrt_tensor.tensor, !tfrt_tensor.tensor, i32, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c4 = tfrt_dht.print_tensor %c, %c3
  %c5 = "eigen.matmul.i32"(%one, %a, %b, %three, %c, %c4) : (i32, !tfrt_tensor.tensor, !tfrt_tensor.tensor, i32, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c6 = tfrt_dht.print_tensor %c, %c5
  tfrt.return
}
// CHECK-NEXT: shape = [1, 1], values = [-2]
// CHECK-NEXT: shape = [1, 1], values = [-8]

// x = [3, 5], scale [2, 1], bias [1, 0], mean [1, 1], variance [3, 15],
// epsilon 1: 2 (3 - 1) / 2 + 1 = 3 and (5 - 1) / 4 + 0 = 1.
// CHECK-LABEL: --- Running 'batch_norm_in_place':
func.func @batch_norm_in_place() {
  %c0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 1 : i64, 1 : i64, 2 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%x, %c0) {values = [3.0 : f32, 5.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %scale = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c2 = "tfrt_dht.set_tensor_with_constant_values.f32"(%scale, %c1) {values = [2.0 : f32, 1.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %bias = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c3 = "tfrt_dht.set_tensor_with_constant_values.f32"(%bias, %c2) {values = [1.0 : f32, 0.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %mean = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c4 = tfrt_dht.fill_tensor_with_constant.f32 %mean, %c3 1.0 : f32
  %variance = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c5 = "tfrt_dht.set_tensor_with_constant_values.f32"(%variance, %c4) {values = [3.0 : f32, 15.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c6 = "eigen.batch_norm.f32"(%x, %scale, %bias, %mean, %variance, %c5) {epsilon = 1.0 : f32}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c7 = tfrt_dht.print_tensor %x, %c6
  tfrt.return
}
// CHECK-NEXT: shape = [1, 1, 1, 2], values = [3.000000e+00, 1.000000e+00]

// 1 2 3 / 4 5 6 / 7 8 9, 2x2 windows every 1: valid [5, 6, 8, 9]; same
// pads one row below and one column right: [5, 6, 6, 8, 9, 9, 8, 9, 9].
// CHECK-LABEL: --- Running 'max_pool_and_zero_padding':
func.func @max_pool_and_zero_padding() {
  %c0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 1 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%x, %c0)
      {values = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32, 7.0 : f32, 8.0 : f32, 9.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %valid = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  %c2 = "eigen.max_pooling_2d.f32"(%x, %valid, %c1)
      {padding = "VALID", pool_size = [2 : i64, 2 : i64], strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c3 = tfrt_dht.print_tensor %valid, %c2
  %same = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 1 : i64]
  %c4 = "eigen.max_pooling_2d.f32"(%x, %same, %c3)
      {padding = "same", pool_size = [2 : i64, 2 : i64], strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c5 = tfrt_dht.print_tensor %same, %c4
  %one = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 1 : i64, 1 : i64, 1 : i64]
  %c6 = tfrt_dht.fill_tensor_with_constant.f32 %one, %c5 7.0 : f32
  %padded = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 1 : i64, 1 : i64]
  %c7 = "eigen.zero_padding.f32"(%one, %padded, %c6) {padding = [1 : i64, 0 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c8 = tfrt_dht.print_tensor %padded, %c7
  tfrt.return
}
// CHECK-NEXT: shape = [1, 2, 2, 1], values = [5.000000e+00, 6.000000e+00, 8.000000e+00, 9.000000e+00]
// CHECK-NEXT: shape = [1, 3, 3, 1], values = [5.000000e+00, 6.000000e+00, 6.000000e+00, 8.000000e+00, 9.000000e+00, 9.000000e+00, 8.000000e+00, 9.000000e+00, 9.000000e+00]
// CHECK-NEXT: shape = [1, 3, 1, 1], values = [0.000000e+00, 7.000000e+00, 0.000000e+00]

// A filter from a dense attribute (constant: reordered once and kept,
// kernels/cpu/prepared_filters.h), used by two convolutions: the second
// finds it prepared. filter [[1, 0], [0, 1]]: out[i, j] = in[i, j] +
// in[i + 1, j + 1] = [6, 8, 12, 14]; the second adds bias 10.
// CHECK-LABEL: --- Running 'conv_constant_filter':
func.func @conv_constant_filter() {
  %c0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 1 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%x, %c0)
      {values = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32, 7.0 : f32, 8.0 : f32, 9.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %filter = "tfrt_test.const_dense_attr"() {value = dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[1.0]]]]> : tensor<2x2x1x1xf32>} : () -> !tfrt_tensor.tensor
  %bias = "tfrt_test.const_dense_attr"() {value = dense<[10.0]> : tensor<1xf32>} : () -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  %c2 = "eigen.conv2d.f32"(%x, %filter, %out, %c1) {padding = "valid", strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c3 = tfrt_dht.print_tensor %out, %c2
  %c4 = "eigen.conv2d.bias.f32"(%x, %filter, %bias, %out, %c3) {padding = "valid", strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c5 = tfrt_dht.print_tensor %out, %c4
  tfrt.return
}
// CHECK-NEXT: shape = [1, 2, 2, 1], values = [6.000000e+00, 8.000000e+00, 1.200000e+01, 1.400000e+01]
// CHECK-NEXT: shape = [1, 2, 2, 1], values = [1.600000e+01, 1.800000e+01, 2.200000e+01, 2.400000e+01]

// CHECK-LABEL: --- Running 'conv_errors':
func.func @conv_errors() {
  %c0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 2 : i64]
  %f = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 2 : i64, 2 : i64, 4 : i64]
  %f3 = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 2 : i64, 3 : i64, 4 : i64]
  %big = tfrt_dht.create_uninitialized_tensor.f32.4 [5 : i64, 5 : i64, 2 : i64, 4 : i64]
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 4 : i64]
  %bias = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  // expected-error @+1 {{strides should have 2 elements}}
  %c1 = "eigen.conv2d.f32"(%x, %f, %out, %c0) {padding = "valid", strides = [1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{Unknown padding type full}}
  %c2 = "eigen.conv2d.f32"(%x, %f, %out, %c0) {padding = "full", strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{For explicit padding, padding values must be defined}}
  %c3 = "eigen.conv2d.f32"(%x, %f, %out, %c0) {padding = "EXPLICIT", strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{Dimensions does not match: input channels is 2 and kernel depth is 3}}
  %c4 = "eigen.conv2d.f32"(%x, %f3, %out, %c0) {padding = "valid", strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{Stride must be > 0, but got 0}}
  %c5 = "eigen.conv2d.f32"(%x, %f, %out, %c0) {padding = "valid", strides = [0 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{Computed output size would be negative: -1 (input_size: 3, filter_size: 5, stride: 1, dilation: 1)}}
  %c6 = "eigen.conv2d.f32"(%x, %big, %out, %c0) {padding = "valid", strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{Tensor shapes do not match: output tensor shape is [1, 2, 2, 4] and computed output shape is [1, 3, 3, 4]}}
  %c7 = "eigen.conv2d.f32"(%x, %f, %out, %c0) {padding = "same", strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{Dimensions does not match: bias shape is 3 and output channels size is 4}}
  %c8 = "eigen.conv2d.bias.f32"(%x, %f, %bias, %out, %c0) {padding = "valid", strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %v4 = tfrt_dht.create_uninitialized_tensor.f32.1 [4 : i64]
  // expected-error @+1 {{Dimensions does not match: estimated var shape is 3 and output channels size is 4}}
  %c9 = "eigen.conv2d.batch_norm.f32"(%x, %f, %v4, %v4, %v4, %bias, %out, %c0) {epsilon = 0.1 : f32, padding = "valid", strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{Dimensions does not match: scale shape is 3 and output channels size is 4}}
  %c10 = "eigen.conv2d.batch_norm.relu.f32"(%x, %f, %bias, %v4, %v4, %v4, %out, %c0) {epsilon = 0.1 : f32, padding = "valid", strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// CHECK-LABEL: --- Running 'other_errors':
func.func @other_errors() {
  %c0 = tfrt.new.chain
  %one = tfrt.constant.f32 1.0
  %a = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %b = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %c = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  // expected-error @+1 {{MatMul input tensors inner dimension mismatch: [2, 3] vs. [2, 3]}}
  %c1 = "eigen.matmul.f32"(%one, %a, %b, %one, %c, %c0) : (f32, !tfrt_tensor.tensor, !tfrt_tensor.tensor, f32, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %bt = tfrt_dht.create_uninitialized_tensor.f32.2 [3 : i64, 2 : i64]
  // expected-error @+1 {{MatMul output shape [2, 3] does not match product shape of inputs: [2, 3] * [3, 2]}}
  %c2 = "eigen.matmul.f32"(%one, %a, %bt, %one, %b, %c0) : (f32, !tfrt_tensor.tensor, !tfrt_tensor.tensor, f32, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 2 : i64]
  %v3 = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  // expected-error @+1 {{parameter does not match the input channel number}}
  %c3 = "eigen.batch_norm.f32"(%x, %v3, %v3, %v3, %v3, %c0) {epsilon = 1.0 : f32} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %pooled = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 2 : i64]
  // expected-error @+1 {{strides should have 2 elements}}
  %c4 = "eigen.max_pooling_2d.f32"(%x, %pooled, %c0) {padding = "valid", pool_size = [2 : i64, 2 : i64], strides = [1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{ksize should have 2 elements}}
  %c5 = "eigen.max_pooling_2d.f32"(%x, %pooled, %c0) {padding = "valid", pool_size = [2 : i64], strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{padding type is not supported}}
  %c6 = "eigen.max_pooling_2d.f32"(%x, %pooled, %c0) {padding = "Valid", pool_size = [2 : i64, 2 : i64], strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{output tensor has the wrong shape}}
  %c7 = "eigen.max_pooling_2d.f32"(%x, %pooled, %c0) {padding = "same", pool_size = [2 : i64, 2 : i64], strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{ZeroPadding output shape [1, 2, 2, 2] does not match the expected output shape [1, 5, 3, 2]}}
  %c8 = "eigen.zero_padding.f32"(%x, %pooled, %c0) {padding = [1 : i64, 0 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{ZeroPadding expects padding of length 2}}
  %c9 = "eigen.zero_padding.f32"(%x, %pooled, %c0) {padding = [1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %dy = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 3 : i64]
  %v2 = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  // expected-error @+1 {{Tensor shapes do not match: output_grad shape is [1, 3, 3, 3] and input_grad shape is [1, 3, 3, 2]}}
  %g1, %g2, %g3 = "eigen.batch_norm.grad.f32"(%dy, %x, %v2, %v2, %v2, %c0, %x, %v2, %v2) {epsilon = 0.5 : f32} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor) -> (!tfrt.chain, !tfrt.chain, !tfrt.chain)
  // expected-error @+1 {{Tensor shapes do not match: channels dimension size is [2] and variance shape is [3]}}
  %g4, %g5, %g6 = "eigen.batch_norm.grad.f32"(%x, %x, %v2, %v2, %v3, %c0, %x, %v2, %v2) {epsilon = 0.5 : f32} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor) -> (!tfrt.chain, !tfrt.chain, !tfrt.chain)
  %filter_grad = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 2 : i64, 2 : i64, 3 : i64]
  // expected-error @+1 {{Tensor shapes do not match: output gradient shape is [1, 3, 3, 3] and computed output shape is [1, 2, 2, 3]}}
  %c10 = "eigen.conv2d.grad.filter.f32"(%dy, %x, %filter_grad, %c0) {padding = "valid", strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{Unknown padding type sam}}
  %c11 = "eigen.conv2d.grad.input.f32"(%dy, %filter_grad, %x, %c0) {padding = "sam", strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}
// CHECK-NOT: {{.}}
