// The onnx.* kernels (kernels/cpu/onnx_kernels.cc, docs/tensors.md) on
// small tensors whose results are worked out by hand in the comments, then
// every check's error text at the kernel's location. Whole models through
// them: tests/onnx.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// a = [[1, 2, 3], [4, 5, 6]].
// CHECK-LABEL: --- Running 'layout_and_arithmetic':
func.func @layout_and_arithmetic() {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%a, %c0)
      {values = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // Transposed: [[1, 4], [2, 5], [3, 6]].
  %t = tfrt_dht.create_uninitialized_tensor.f32.2 [3 : i64, 2 : i64]
  %c2 = "onnx.transpose.f32"(%a, %t, %c1) {perm = [1 : i64, 0 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p2 = tfrt_dht.print_tensor %t, %c2
  // Reshaped to [3, 2]: the same order.
  %r = tfrt_dht.create_uninitialized_tensor.f32.2 [3 : i64, 2 : i64]
  %c3 = "onnx.reshape.f32"(%a, %r, %p2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p3 = tfrt_dht.print_tensor %r, %c3
  // [10, 20, 30] broadcast to [2, 3], then a + it.
  %row = tfrt_dht.create_uninitialized_tensor.f32.2 [1 : i64, 3 : i64]
  %c4 = "tfrt_dht.set_tensor_with_constant_values.f32"(%row, %p3)
      {values = [10.0 : f32, 20.0 : f32, 30.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %b = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %c5 = "onnx.broadcast.f32"(%row, %b, %c4) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p5 = tfrt_dht.print_tensor %b, %c5
  %sum = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %c6 = "onnx.add.f32"(%a, %row, %sum, %p5) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p6 = tfrt_dht.print_tensor %sum, %c6
  // a - [1]: [0, 1, 2, 3, 4, 5].
  %one = tfrt_dht.create_uninitialized_tensor.f32.1 [1 : i64]
  %c7 = tfrt_dht.fill_tensor_with_constant.f32 %one, %p6 1.0 : f32
  %difference = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %c8 = "onnx.sub.f32"(%a, %one, %difference, %c7) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p8 = tfrt_dht.print_tensor %difference, %c8
  // An outer product: [[2], [3]] * [[1, 2, 3]] = [[2, 4, 6], [3, 6, 9]].
  %column = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 1 : i64]
  %c9 = "tfrt_dht.set_tensor_with_constant_values.f32"(%column, %p8)
      {values = [2.0 : f32, 3.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %small = tfrt_dht.create_uninitialized_tensor.f32.2 [1 : i64, 3 : i64]
  %c10 = "tfrt_dht.set_tensor_with_constant_values.f32"(%small, %c9)
      {values = [1.0 : f32, 2.0 : f32, 3.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %product = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %c11 = "onnx.mul.f32"(%column, %small, %product, %c10) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p11 = tfrt_dht.print_tensor %product, %c11
  // a / [1, 2, 4]: [1, 1, 0.75, 4, 2.5, 1.5].
  %divisor = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  %c12 = "tfrt_dht.set_tensor_with_constant_values.f32"(%divisor, %p11)
      {values = [1.0 : f32, 2.0 : f32, 4.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %quotient = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %c13 = "onnx.div.f32"(%a, %divisor, %quotient, %c12) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p13 = tfrt_dht.print_tensor %quotient, %c13
  // Concatenated along axis 1: [[2], [3]] and a: [[2, 1, 2, 3], [3, 4, 5, 6]].
  %joined = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 4 : i64]
  %c14 = "onnx.concat.f32"(%column, %a, %joined, %p13) {axis = 1 : i64} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p14 = tfrt_dht.print_tensor %joined, %c14
  tfrt.return
}
// CHECK-NEXT: shape = [3, 2], values = [1.000000e+00, 4.000000e+00, 2.000000e+00, 5.000000e+00, 3.000000e+00, 6.000000e+00]
// CHECK-NEXT: shape = [3, 2], values = [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]
// CHECK-NEXT: shape = [2, 3], values = [1.000000e+01, 2.000000e+01, 3.000000e+01, 1.000000e+01, 2.000000e+01, 3.000000e+01]
// CHECK-NEXT: shape = [2, 3], values = [1.100000e+01, 2.200000e+01, 3.300000e+01, 1.400000e+01, 2.500000e+01, 3.600000e+01]
// CHECK-NEXT: shape = [2, 3], values = [0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]
// CHECK-NEXT: shape = [2, 3], values = [2.000000e+00, 4.000000e+00, 6.000000e+00, 3.000000e+00, 6.000000e+00, 9.000000e+00]
// CHECK-NEXT: shape = [2, 3], values = [1.000000e+00, 1.000000e+00, 7.500000e-01, 4.000000e+00, 2.500000e+00, 1.500000e+00]
// CHECK-NEXT: shape = [2, 4], values = [2.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]

// x[i][j] = -(3 i + j + 1) on a 3x3 image, 2x2 windows, strides 2, pads
// [1, 1, 0, 0]: windows rows {0}, {1, 2} and columns {0}, {1, 2}.
// Max: [-1, -2, -4, -5] (ONNX starts at -inf; TFRT's FLT_MIN would win).
// Average without the padding: [-1, -2.5, -5.5, -7]; with it (each window
// covers 2 x 2 places): [-0.25, -1.25, -2.75, -7].
// CHECK-LABEL: --- Running 'pooling_clip_softmax':
func.func @pooling_clip_softmax() {
  %c0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 1 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%x, %c0)
      {values = [-1.0 : f32, -2.0 : f32, -3.0 : f32, -4.0 : f32, -5.0 : f32, -6.0 : f32, -7.0 : f32, -8.0 : f32, -9.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %m = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  %c2 = "onnx.max_pool.f32"(%x, %m, %c1) {kernel_shape = [2 : i64, 2 : i64], pads = [1 : i64, 1 : i64, 0 : i64, 0 : i64], strides = [2 : i64, 2 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p2 = tfrt_dht.print_tensor %m, %c2
  %avg = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  %c3 = "onnx.average_pool.f32"(%x, %avg, %p2) {count_include_pad = 0 : i64, kernel_shape = [2 : i64, 2 : i64], pads = [1 : i64, 1 : i64, 0 : i64, 0 : i64], strides = [2 : i64, 2 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p3 = tfrt_dht.print_tensor %avg, %c3
  %c4 = "onnx.average_pool.f32"(%x, %avg, %p3) {count_include_pad = 1 : i64, kernel_shape = [2 : i64, 2 : i64], pads = [1 : i64, 1 : i64, 0 : i64, 0 : i64], strides = [2 : i64, 2 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p4 = tfrt_dht.print_tensor %avg, %c4
  // Clip to [-1, 1]: [-1, -0.5, 0.5, 1].
  %v = tfrt_dht.create_uninitialized_tensor.f32.1 [4 : i64]
  %c5 = "tfrt_dht.set_tensor_with_constant_values.f32"(%v, %p4)
      {values = [-2.0 : f32, -0.5 : f32, 0.5 : f32, 2.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %clipped = tfrt_dht.create_uninitialized_tensor.f32.1 [4 : i64]
  %c6 = "onnx.clip.f32"(%v, %clipped, %c5) {max = 1.0 : f32, min = -1.0 : f32} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p6 = tfrt_dht.print_tensor %clipped, %c6
  // Softmax of rows [0, 0] and [1000, 1000]: the maximum subtracted, no
  // overflow: every value 0.5.
  %s = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %c7 = "tfrt_dht.set_tensor_with_constant_values.f32"(%s, %p6)
      {values = [0.0 : f32, 0.0 : f32, 1000.0 : f32, 1000.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %soft = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %c8 = "onnx.softmax.f32"(%s, %soft, %c7) {axis = 1 : i64} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p8 = tfrt_dht.print_tensor %soft, %c8
  tfrt.return
}
// CHECK-NEXT: shape = [1, 2, 2, 1], values = [-1.000000e+00, -2.000000e+00, -4.000000e+00, -5.000000e+00]
// CHECK-NEXT: shape = [1, 2, 2, 1], values = [-1.000000e+00, -2.500000e+00, -5.500000e+00, -7.000000e+00]
// CHECK-NEXT: shape = [1, 2, 2, 1], values = [-2.500000e-01, -1.250000e+00, -2.750000e+00, -7.000000e+00]
// CHECK-NEXT: shape = [4], values = [-1.000000e+00, -5.000000e-01, 5.000000e-01, 1.000000e+00]
// CHECK-NEXT: shape = [2, 2], values = [5.000000e-01, 5.000000e-01, 5.000000e-01, 5.000000e-01]

// A 3x3 image of ones, a 2x2 filter of ones, pads [1, 0, 0, 1] (a row
// above, a column right): window sums [[2, 2, 1], [4, 4, 2], [4, 4, 2]];
// bias -3 and relu: [[0, 0, 0], [1, 1, 0], [1, 1, 0]]; + 0.5 before the
// relu: [[0, 0, 0], [1.5, 1.5, 0], [1.5, 1.5, 0]].
// CHECK-LABEL: --- Running 'convolutions':
func.func @convolutions() {
  %c0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 1 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %x, %c0 1.0 : f32
  %f = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 2 : i64, 1 : i64, 1 : i64]
  %c2 = tfrt_dht.fill_tensor_with_constant.f32 %f, %c1 1.0 : f32
  %bias = tfrt_dht.create_uninitialized_tensor.f32.1 [1 : i64]
  %c3 = tfrt_dht.fill_tensor_with_constant.f32 %bias, %c2 -3.0 : f32
  %half = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 1 : i64]
  %c4 = tfrt_dht.fill_tensor_with_constant.f32 %half, %c3 0.5 : f32
  %y = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 1 : i64]
  %c5 = "onnx.conv.f32"(%x, %f, %bias, %y, %c4) {pads = [1 : i64, 0 : i64, 0 : i64, 1 : i64], relu = 1 : i64, strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p5 = tfrt_dht.print_tensor %y, %c5
  %c6 = "onnx.conv.f32"(%x, %f, %bias, %y, %p5) {pads = [1 : i64, 0 : i64, 0 : i64, 1 : i64], relu = 0 : i64, strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p6 = tfrt_dht.print_tensor %y, %c6
  %z = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 1 : i64]
  %c7 = "onnx.conv.add.f32"(%x, %f, %bias, %half, %z, %p6) {pads = [1 : i64, 0 : i64, 0 : i64, 1 : i64], relu = 1 : i64, strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p7 = tfrt_dht.print_tensor %z, %c7
  // In place: the addend is the output (conv + bias + z, no relu).
  %c8 = "onnx.conv.add.f32"(%x, %f, %bias, %z, %z, %p7) {pads = [1 : i64, 0 : i64, 0 : i64, 1 : i64], relu = 0 : i64, strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %p8 = tfrt_dht.print_tensor %z, %c8
  %small = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  // expected-error @+1 {{onnx.conv.f32: the output has shape [1, 2, 2, 1], the convolution makes [1, 3, 3, 1]}}
  %e1 = "onnx.conv.f32"(%x, %f, %bias, %small, %p7) {pads = [1 : i64, 0 : i64, 0 : i64, 1 : i64], relu = 0 : i64, strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %two = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  // expected-error @+1 {{onnx.conv.f32: the bias has 2 values, the filter [2, 2, 1, 1] makes 1 channels}}
  %e2 = "onnx.conv.f32"(%x, %f, %two, %y, %p7) {pads = [1 : i64, 0 : i64, 0 : i64, 1 : i64], relu = 0 : i64, strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.conv.add.f32: the addend has shape [1, 2, 2, 1], the output [1, 3, 3, 1]}}
  %e3 = "onnx.conv.add.f32"(%x, %f, %bias, %small, %z, %p7) {pads = [1 : i64, 0 : i64, 0 : i64, 1 : i64], relu = 0 : i64, strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.conv.f32: pads [-1, 0, 0, 0] and strides [1, 1] must be 4 values in [0, 2^32] and 2 in [1, 2^32]}}
  %e4 = "onnx.conv.f32"(%x, %f, %bias, %y, %p7) {pads = [-1 : i64, 0 : i64, 0 : i64, 0 : i64], relu = 0 : i64, strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}
// CHECK-NEXT: shape = [1, 3, 3, 1], values = [0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00]
// CHECK-NEXT: shape = [1, 3, 3, 1], values = [-1.000000e+00, -1.000000e+00, -2.000000e+00, 1.000000e+00, 1.000000e+00, -1.000000e+00, 1.000000e+00, 1.000000e+00, -1.000000e+00]
// CHECK-NEXT: shape = [1, 3, 3, 1], values = [0.000000e+00, 0.000000e+00, 0.000000e+00, 1.500000e+00, 1.500000e+00, 0.000000e+00, 1.500000e+00, 1.500000e+00, 0.000000e+00]
// CHECK-NEXT: shape = [1, 3, 3, 1], values = [-1.000000e+00, -1.000000e+00, -2.000000e+00, 2.500000e+00, 2.500000e+00, -1.000000e+00, 2.500000e+00, 2.500000e+00, -1.000000e+00]

// Every check, with nothing written.
// CHECK-LABEL: --- Running 'errors':
func.func @errors() {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %a, %c0 1.0 : f32
  %t = tfrt_dht.create_uninitialized_tensor.f32.2 [3 : i64, 2 : i64]
  %v2 = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %v4 = tfrt_dht.create_uninitialized_tensor.f32.1 [4 : i64]
  %i = tfrt_dht.create_uninitialized_tensor.i32.2 [2 : i64, 3 : i64]
  // expected-error @+1 {{onnx.transpose.f32: perm [0, 0] is not a permutation of the input's 2 axes}}
  %e1 = "onnx.transpose.f32"(%a, %t, %c1) {perm = [0 : i64, 0 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.transpose.f32: the output has shape [2, 3], the input [2, 3] transposed by [1, 0] is [3, 2]}}
  %e2 = "onnx.transpose.f32"(%a, %a, %c1) {perm = [1 : i64, 0 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.reshape.f32: the output's shape [4] does not hold the elements of the input's [2, 3]}}
  %e3 = "onnx.reshape.f32"(%a, %v4, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.add.f32: the second operand of shape [2] does not broadcast to the output's shape [2, 3]}}
  %e4 = "onnx.add.f32"(%a, %v2, %a, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.broadcast.f32: the input of shape [2, 3] does not broadcast to the output's shape [3, 2]}}
  %e5 = "onnx.broadcast.f32"(%a, %t, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.mul.f32: the tensor's dtype is i32, the kernel takes f32}}
  %e6 = "onnx.mul.f32"(%i, %a, %a, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.clip.f32: the output has shape [3, 2], the input [2, 3]}}
  %e7 = "onnx.clip.f32"(%a, %t, %c1) {max = 1.0 : f32, min = 0.0 : f32} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.softmax.f32: axis 2 is not an axis of the input's shape [2, 3]}}
  %e8 = "onnx.softmax.f32"(%a, %a, %c1) {axis = 2 : i64} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.concat.f32: input 1 has shape [3, 2], which does not fit the output's [2, 3] along axis 1}}
  %e9 = "onnx.concat.f32"(%a, %t, %a, %c1) {axis = 1 : i64} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.concat.f32: the inputs have 6 entries along axis 1, the output's shape [2, 3] has 3}}
  %e10 = "onnx.concat.f32"(%a, %a, %a, %c1) {axis = 1 : i64} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 1 : i64]
  %y = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  // expected-error @+1 {{onnx.max_pool.f32: pads [2, 0, 0, 0] must be at least 0 and less than kernel_shape [2, 2]}}
  %e11 = "onnx.max_pool.f32"(%x, %y, %c1) {kernel_shape = [2 : i64, 2 : i64], pads = [2 : i64, 0 : i64, 0 : i64, 0 : i64], strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.average_pool.f32: the output has shape [1, 2, 2, 1], the pooling of [1, 3, 3, 1] gives [1, 3, 3, 1]}}
  %e12 = "onnx.average_pool.f32"(%x, %y, %c1) {count_include_pad = 0 : i64, kernel_shape = [1 : i64, 1 : i64], pads = [0 : i64, 0 : i64, 0 : i64, 0 : i64], strides = [1 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{onnx.max_pool.f32: strides [0, 1] must be in [1, 2^32]}}
  %e13 = "onnx.max_pool.f32"(%x, %y, %c1) {kernel_shape = [2 : i64, 2 : i64], pads = [0 : i64, 0 : i64, 0 : i64, 0 : i64], strides = [0 : i64, 1 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}
