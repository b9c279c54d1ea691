// Tensors with no element may have any dimensions: [1, 4000000000000, 0, 1]
// takes no memory. Every CPU-backend kernel bounds its loops by the
// elements it touches, so these finish at once (a loop over a bare
// dimension would run for hours), and a derived dimension that leaves
// int64 is an error naming the kernel. Pooling windows of 2^32 - 1 are
// clamped to the input before they are walked.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s

// CHECK-LABEL: --- Running 'zero_padding_empty':
func.func @zero_padding_empty() {
  %c0 = tfrt.new.chain
  %in = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 4000000000000 : i64, 0 : i64, 1 : i64]
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 4000000000000 : i64, 0 : i64, 1 : i64]
  %c1 = "tfrt_test.zero_padding.f32"(%in, %out, %c0) {padding = [0 : i32, 0 : i32]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c2 = tfrt_dht.print_tensor %out, %c1
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [1, 4000000000000, 0, 1], values = []

// CHECK-LABEL: --- Running 'zero_padding_overflow':
func.func @zero_padding_overflow() {
  %c0 = tfrt.new.chain
  %in = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 9223372036854775807 : i64, 0 : i64, 1 : i64]
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 1 : i64, 0 : i64, 1 : i64]
  // expected-error @+1 {{tfrt_test.zero_padding.f32: an output dimension for the input shape [1, 9223372036854775807, 0, 1] does not fit in 64 bits}}
  %c1 = "tfrt_test.zero_padding.f32"(%in, %out, %c0) {padding = [1 : i32, 0 : i32]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// CHECK-LABEL: --- Running 'max_pool_empty_channels':
func.func @max_pool_empty_channels() {
  %c0 = tfrt.new.chain
  %in = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3000000000 : i64, 3000000000 : i64, 0 : i64]
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3000000000 : i64, 3000000000 : i64, 0 : i64]
  %c1 = "tfrt_test.max_pooling_2d.f32"(%in, %out, %c0)
      {padding = "same", pool_size = [1 : i32, 1 : i32], strides = [1 : i32, 1 : i32]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c2 = tfrt_dht.print_tensor %out, %c1
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [1, 3000000000, 3000000000, 0], values = []

// A window of 2^32 - 1 rows and columns ("same": 2^31 - 1 before and after)
// covers the whole 2x2 input from every output cell.
// CHECK-LABEL: --- Running 'max_pool_huge_window':
func.func @max_pool_huge_window() {
  %c0 = tfrt.new.chain
  %in = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%in, %c0)
      {values = [1.0 : f32, 4.0 : f32, 3.0 : f32, 2.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  %c2 = "tfrt_test.max_pooling_2d.f32"(%in, %out, %c1)
      {padding = "same", pool_size = [-1 : i32, -1 : i32], strides = [1 : i32, 1 : i32]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c3 = tfrt_dht.print_tensor %out, %c2
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [1, 2, 2, 1], values = [4.000000e+00, 4.000000e+00, 4.000000e+00, 4.000000e+00]

// CHECK-LABEL: --- Running 'global_average_pooling_empty':
func.func @global_average_pooling_empty() {
  %c0 = tfrt.new.chain
  %in = tfrt_dht.create_uninitialized_tensor.f32.4 [3000000000 : i64, 3000000000 : i64, 1 : i64, 0 : i64]
  %out = tfrt_dht.create_uninitialized_tensor.f32.2 [3000000000 : i64, 0 : i64]
  %c1 = "tfrt_test.global_average_pooling.f32"(%in, %out, %c0) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c2 = tfrt_dht.print_tensor %out, %c1
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [3000000000, 0], values = []

// CHECK-LABEL: --- Running 'transpose_mean_broadcast_empty':
func.func @transpose_mean_broadcast_empty() {
  %c0 = tfrt.new.chain
  %in = tfrt_dht.create_uninitialized_tensor.f32.2 [4000000000000 : i64, 0 : i64]
  %transposed = tfrt_dht.create_uninitialized_tensor.f32.2 [0 : i64, 4000000000000 : i64]
  %c1 = "tfrt_test.tensor_transpose.f32"(%in, %transposed, %c0) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %mean = tfrt_dht.create_uninitialized_tensor.f32.1 [0 : i64]
  %c2 = "tfrt_test.mean_axis_zero.f32"(%in, %mean, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %wide = tfrt_dht.create_uninitialized_tensor.f32.4 [4000000000000 : i64, 2000000 : i64, 1 : i64, 0 : i64]
  %c3 = "tfrt_test.broadcast_2d.f32"(%in, %wide, %c2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c4 = tfrt_dht.print_tensor %transposed, %c3
  %c5 = tfrt_dht.print_tensor %mean, %c4
  %c6 = tfrt_dht.print_tensor %wide, %c5
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [0, 4000000000000], values = []
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [0], values = []
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [4000000000000, 2000000, 1, 0], values = []

// CHECK-LABEL: --- Running 'slice_empty':
func.func @slice_empty() {
  %c0 = tfrt.new.chain
  %in = tfrt_dht.create_uninitialized_tensor.i32.3 [3000000000 : i64, 3000000000 : i64, 0 : i64]
  %begin = tfrt_dht.create_uninitialized_tensor.i64.1 [3 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.i64 %begin, %c0 0 : i64
  %out = tfrt_dht.create_uninitialized_tensor.i32.3 [3000000000 : i64, 3000000000 : i64, 0 : i64]
  %c2 = "tfrt_test.slice_inplace.i32.3"(%in, %begin, %c1, %out) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain, !tfrt_tensor.tensor) -> !tfrt.chain
  %c3 = tfrt_dht.print_tensor %out, %c2
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [3000000000, 3000000000, 0], values = []
// onnx.* broadcasting: the strides of an empty operand of huge dimensions
// saturate instead of overflowing, and are never used; a dimension that
// does not broadcast is an error before any product is taken.
// CHECK-LABEL: --- Running 'onnx_broadcast_empty':
func.func @onnx_broadcast_empty() {
  %c0 = tfrt.new.chain
  %in = tfrt_dht.create_uninitialized_tensor.f32.3 [0 : i64, 4000000000000 : i64, 4000000000000 : i64]
  %out = tfrt_dht.create_uninitialized_tensor.f32.3 [0 : i64, 4000000000000 : i64, 4000000000000 : i64]
  %c1 = "onnx.broadcast.f32"(%in, %out, %c0) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %sum = tfrt_dht.create_uninitialized_tensor.f32.3 [0 : i64, 4000000000000 : i64, 4000000000000 : i64]
  %c2 = "onnx.add.f32"(%in, %out, %sum, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c3 = tfrt_dht.print_tensor %sum, %c2
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [0, 4000000000000, 4000000000000], values = []

// CHECK-LABEL: --- Running 'onnx_broadcast_empty_to_nonempty':
func.func @onnx_broadcast_empty_to_nonempty() {
  %c0 = tfrt.new.chain
  %in = tfrt_dht.create_uninitialized_tensor.f32.3 [0 : i64, 9000000000000000000 : i64, 10 : i64]
  %out = tfrt_dht.create_uninitialized_tensor.f32.3 [1 : i64, 1000 : i64, 10 : i64]
  // expected-error @+1 {{onnx.broadcast.f32: the input of shape [0, 9000000000000000000, 10] does not broadcast to the output's shape [1, 1000, 10]}}
  %c1 = "onnx.broadcast.f32"(%in, %out, %c0) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// CHECK-NOT: {{.}}
