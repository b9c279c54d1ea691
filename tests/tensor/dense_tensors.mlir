// Dense host tensors from dense attributes (tfrt_test.const_dense_attr),
// printed (at most 16 elements), their shapes, and tensor_equal.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// CHECK-LABEL: --- Running 'print':
func.func @print() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %a = "tfrt_test.const_dense_attr"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>} : () -> !tfrt_tensor.tensor
  %c1 = tfrt_dht.print_tensor %a, %c0
  %b = "tfrt_test.const_dense_attr"() {value = dense<7> : tensor<17xi64>} : () -> !tfrt_tensor.tensor
  %c2 = tfrt_dht.print_tensor %b, %c1
  %c = "tfrt_test.const_dense_attr"() {value = dense<[0x7FC00000, 0xFF800000, -0.0, 1.5]> : tensor<4xf32>} : () -> !tfrt_tensor.tensor
  %c3 = tfrt_dht.print_tensor %c, %c2
  %d = "tfrt_test.const_dense_attr"() {value = dense<(1.0, -2.0)> : tensor<complex<f64>>} : () -> !tfrt_tensor.tensor
  %c4 = tfrt_dht.print_tensor %d, %c3
  %e = "tfrt_test.const_dense_attr"() {value = dense<[1.0, 2.0]> : tensor<2xf16>} : () -> !tfrt_tensor.tensor
  %c5 = tfrt_dht.print_tensor %e, %c4
  %f = "tfrt_test.const_dense_attr"() {value = dense<> : tensor<2x0x3xui8>} : () -> !tfrt_tensor.tensor
  %c6 = tfrt_dht.print_tensor %f, %c5
  %c7 = "tfrt_dht.print_tensor_shape"(%a, %c6) : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return %c7 : !tfrt.chain
}
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [2, 2], values = [1, 2, 3, 4]
// CHECK-NEXT: DenseHostTensor dtype = i64, shape = [17], values = [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, ... ]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [4], values = [nan, -INF, -0.000000e+00, 1.500000e+00]
// CHECK-NEXT: DenseHostTensor dtype = complex128, shape = [], values = [(1.000000e+00,-2.000000e+00)]
// CHECK-NEXT: DenseHostTensor dtype = f16, shape = [2], values = [fp16(15360), fp16(16384)]
// CHECK-NEXT: DenseHostTensor dtype = u8, shape = [2, 0, 3], values = []
// CHECK-NEXT: [2, 2]
// CHECK-NEXT: 'print' returned !tfrt.chain value

// CHECK-LABEL: --- Running 'equal':
func.func @equal() -> (i1, i1, i1, i1) {
  %c0 = tfrt.new.chain
  %a = "tfrt_test.const_dense_attr"() {value = dense<[1, 2, 3, 4]> : tensor<4xi32>} : () -> !tfrt_tensor.tensor
  %b = "tfrt_test.const_dense_attr"() {value = dense<[1, 2, 3, 4]> : tensor<4xi32>} : () -> !tfrt_tensor.tensor
  %c = "tfrt_test.const_dense_attr"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>} : () -> !tfrt_tensor.tensor
  %n = "tfrt_test.const_dense_attr"() {value = dense<0x7FC00000> : tensor<f32>} : () -> !tfrt_tensor.tensor
  %z = "tfrt_test.const_dense_attr"() {value = dense<-0.0> : tensor<f32>} : () -> !tfrt_tensor.tensor
  %p = "tfrt_test.const_dense_attr"() {value = dense<0.0> : tensor<f32>} : () -> !tfrt_tensor.tensor
  %ab, %c1 = tfrt_dht.tensor_equal.i32 %a, %b, %c0
  // Same data, different shape: not equal.
  %ac, %c2 = tfrt_dht.tensor_equal.i32 %a, %c, %c1
  // NaN is not equal to itself; -0 equals 0.
  %nn, %c3 = tfrt_dht.tensor_equal.f32 %n, %n, %c2
  %zp, %c4 = tfrt_dht.tensor_equal.f32 %z, %p, %c3
  tfrt.return %ab, %ac, %nn, %zp : i1, i1, i1, i1
}
// CHECK-NEXT: 'equal' returned 1,0,0,1

// CHECK-LABEL: --- Running 'not_a_tensor':
func.func @not_a_tensor() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %x = tfrt.constant.i32 1
  // A value that is not a tensor is an error, never a reinterpretation.
  // (print_tensor_shape has no op definition, so the converter accepts it.)
  %c1 = "tfrt_dht.print_tensor_shape"(%x, %c0) : (i32, !tfrt.chain) -> !tfrt.chain // expected-error {{tfrt_dht.print_tensor_shape: the operand is not a dense host tensor}}
  tfrt.return %c1 : !tfrt.chain
}
// CHECK-NEXT: 'not_a_tensor' returned <<error: tfrt_dht.print_tensor_shape: the operand is not a dense host tensor>>
