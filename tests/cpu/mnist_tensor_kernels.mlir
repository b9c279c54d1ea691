// The MNIST-family kernels of TFRT's CPU backend (cpu-kernels.md §2):
// elementwise relu, add, equal and their in-place forms, the relu gradient,
// the cast, broadcast, reduce_mean, argmax and slice_inplace, with values
// worked out by hand from the section (TFRT's deleted examples among them)
// and the checks' texts.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// CHECK-LABEL: --- Running 'elementwise':
func.func @elementwise() {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%a, %c0)
      {values = [-1.0 : f32, 2.0 : f32, -3.0 : f32, 4.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %b = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %c2 = "tfrt_test.relu.f32"(%a, %b, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c3 = tfrt_dht.print_tensor %b, %c2
  %c = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %c4 = "tfrt_test.add.f32"(%a, %b, %c, %c3) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c5 = tfrt_dht.print_tensor %c, %c4
  %d = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %c6 = "tfrt_test.equal.f32"(%a, %c, %d, %c5) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c7 = tfrt_dht.print_tensor %d, %c6
  %c8 = "tfrt_test.add_inplace.f32"(%a, %b, %c7) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c9 = tfrt_dht.print_tensor %b, %c8
  %c10 = "tfrt_test.equal_inplace.f32"(%a, %b, %c9) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c11 = tfrt_dht.print_tensor %b, %c10
  %gradient = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %c12 = "tfrt_dht.set_tensor_with_constant_values.f32"(%gradient, %c11)
      {values = [5.0 : f32, 6.0 : f32, -7.0 : f32, 8.0 : f32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // A multiplication by 0 or 1: a negative gradient at a negative activation becomes -0.
  %c13 = "tfrt_test.relu_grad_inplace.f32"(%a, %gradient, %c12) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c14 = tfrt_dht.print_tensor %gradient, %c13
  %c15 = "tfrt_test.relu_inplace.f32"(%a, %c14) : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c16 = tfrt_dht.print_tensor %a, %c15
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [0.000000e+00, 2.000000e+00, 0.000000e+00, 4.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [-1.000000e+00, 4.000000e+00, -3.000000e+00, 8.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [1.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [-1.000000e+00, 4.000000e+00, -3.000000e+00, 8.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [1.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [0.000000e+00, 6.000000e+00, -0.000000e+00, 8.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [0.000000e+00, 2.000000e+00, 0.000000e+00, 4.000000e+00]

// CHECK-LABEL: --- Running 'integers':
func.func @integers() {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.1 [2 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.i32"(%a, %c0) {values = [2147483647 : i32, -3 : i32]}
      : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %one = tfrt_dht.create_uninitialized_tensor.i32.1 [2 : i64]
  %c2 = tfrt_dht.fill_tensor_with_constant.i32 %one, %c1 1 : i32
  // Integer addition wraps.
  %sum = tfrt_dht.create_uninitialized_tensor.i32.1 [2 : i64]
  %c3 = "tfrt_test.add.i32"(%a, %one, %sum, %c2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c4 = tfrt_dht.print_tensor %sum, %c3
  // 16777217 is not a float: the nearest, 16777216.
  %big = tfrt_dht.create_uninitialized_tensor.i32.1 [2 : i64]
  %c5 = "tfrt_dht.set_tensor_with_constant_values.i32"(%big, %c4) {values = [16777217 : i32, -3 : i32]}
      : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %floats = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c6 = "tfrt_test.cast.i32_to_f32"(%big, %floats, %c5) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c7 = "tfrt_dht.print_tensor"(%floats, %c6) : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // Integer means truncate toward zero.
  %pair = tfrt_dht.create_uninitialized_tensor.i32.1 [2 : i64]
  %c8 = "tfrt_dht.set_tensor_with_constant_values.i32"(%pair, %c7) {values = [-3 : i32, 0 : i32]}
      : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %mean = "tfrt_test.reduce_mean.i32.1"(%pair, %c8) : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt_tensor.tensor
  %c9 = tfrt_dht.print_tensor %mean, %c8
  // Rows [1, -1], [-1, 1], [5, 5]: the first index wins a tie.
  %rows = tfrt_dht.create_uninitialized_tensor.i32.2 [3 : i64, 2 : i64]
  %c10 = "tfrt_dht.set_tensor_with_constant_values.i32"(%rows, %c9)
      {values = [1 : i32, -1 : i32, -1 : i32, 1 : i32, 5 : i32, 5 : i32]} : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %argmax = "tfrt_test.argmax.i32.2"(%rows, %c10) : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt_tensor.tensor
  %c11 = tfrt_dht.print_tensor %argmax, %c10
  // input [2, 2, 3] = 0..11; output [2, 1, 2] from [0, 1, 1].
  %input = tfrt_dht.create_uninitialized_tensor.i64.3 [2 : i64, 2 : i64, 3 : i64]
  %c12 = "tfrt_dht.set_tensor_with_constant_values.i64"(%input, %c11)
      {values = [0 : i64, 1 : i64, 2 : i64, 3 : i64, 4 : i64, 5 : i64, 6 : i64, 7 : i64, 8 : i64, 9 : i64, 10 : i64, 11 : i64]}
      : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %begin = tfrt_dht.create_uninitialized_tensor.i64.1 [3 : i64]
  %c13 = "tfrt_dht.set_tensor_with_constant_values.i64"(%begin, %c12) {values = [0 : i64, 1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %slice = tfrt_dht.create_uninitialized_tensor.i64.3 [2 : i64, 1 : i64, 2 : i64]
  %c14 = "tfrt_test.slice_inplace.i64.3"(%input, %begin, %c13, %slice) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain, !tfrt_tensor.tensor) -> !tfrt.chain
  %c15 = tfrt_dht.print_tensor %slice, %c14
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [2], values = [-2147483648, -2]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2], values = [1.677722e+07, -3.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [], values = [-1]
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [3], values = [0, 1, 0]
// CHECK-NEXT: DenseHostTensor dtype = i64, shape = [2, 1, 2], values = [4, 5, 10, 11]

// CHECK-LABEL: --- Running 'new_tensors':
func.func @new_tensors() {
  %c0 = tfrt.new.chain
  %row = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%row, %c0) {values = [1.0 : f32, 2.0 : f32]}
      : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %shape = ts.build_shape [3 : i64, 1 : i64, 2 : i64]
  %wide = "tfrt_test.broadcast.f32.3"(%row, %shape, %c1) : (!tfrt_tensor.tensor, !ts.shape, !tfrt.chain) -> !tfrt_tensor.tensor
  %c2 = tfrt_dht.print_tensor %wide, %c1
  %pair = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c3 = "tfrt_dht.set_tensor_with_constant_values.f32"(%pair, %c2) {values = [1.0 : f32, 3.0 : f32]}
      : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %mean = "tfrt_test.reduce_mean.f32.1"(%pair, %c3) : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt_tensor.tensor
  %c4 = tfrt_dht.print_tensor %mean, %c3
  tfrt.return
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [3, 1, 2], values = [1.000000e+00, 2.000000e+00, 1.000000e+00, 2.000000e+00, 1.000000e+00, 2.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [], values = [2.000000e+00]

// CHECK-LABEL: --- Running 'checks':
func.func @checks() {
  %c0 = tfrt.new.chain
  %square = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %square, %c0 1.0 : f32
  %four = tfrt_dht.create_uninitialized_tensor.f32.1 [4 : i64]
  // expected-error @+1 {{tensor shape mismatch: [2, 2] vs. [2, 2] vs. [4]}}
  %e1 = "tfrt_test.add.f32"(%square, %square, %four, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  // expected-error @+1 {{tensor shape mismatch: [2, 2] vs. [4]}}
  %e2 = "tfrt_test.relu.f32"(%square, %four, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %three = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  %c2 = tfrt_dht.fill_tensor_with_constant.f32 %three, %c1 1.0 : f32
  %shape = ts.build_shape [2 : i64, 2 : i64]
  // expected-error @+1 {{broadcast input tensor dimension and target shape mismatch: [3] vs. [2, 2]}}
  %e3 = "tfrt_test.broadcast.f32.2"(%three, %shape, %c2) : (!tfrt_tensor.tensor, !ts.shape, !tfrt.chain) -> !tfrt_tensor.tensor
  %cube = tfrt_dht.create_uninitialized_tensor.f32.3 [2 : i64, 2 : i64, 2 : i64]
  %begin = tfrt_dht.create_uninitialized_tensor.i64.1 [2 : i64]
  %c3 = tfrt_dht.fill_tensor_with_constant.i64 %begin, %c2 0 : i64
  // expected-error @+1 {{the size of 'begin_index' should match the input tensor rank}}
  %e4 = "tfrt_test.slice_inplace.f32.3"(%cube, %begin, %c3, %cube) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain, !tfrt_tensor.tensor) -> !tfrt.chain
  // Checked here, undefined in TFRT: a slice outside its input, another dtype.
  %start = tfrt_dht.create_uninitialized_tensor.i64.1 [3 : i64]
  %c4 = tfrt_dht.fill_tensor_with_constant.i64 %start, %c3 1 : i64
  // expected-error @+1 {{tfrt_test.slice_inplace.f32.3: a slice of shape [2, 2, 2] at [1, 1, 1] leaves the input of shape [2, 2, 2]}}
  %e5 = "tfrt_test.slice_inplace.f32.3"(%cube, %start, %c4, %cube) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain, !tfrt_tensor.tensor) -> !tfrt.chain
  // expected-error @+1 {{tfrt_test.relu_inplace.i32: the tensor's dtype is f32, the kernel takes i32}}
  %e6 = "tfrt_test.relu_inplace.i32"(%square, %c1) : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}
// CHECK-NOT: {{.}}
