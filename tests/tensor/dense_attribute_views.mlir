// A tensor from a dense attribute views the BEF image in place (no copy)
// and is copied on its first write: writes never reach the image, every
// holder of the tensor sees them, and the next execution starts again from
// the attribute's values. Once through a mapped file, once through stdin.
// RUN: mlir-to-bef %s -o %t.bef
// RUN: bef_executor %t.bef | FileCheck %s
// RUN: bef_executor --work_queue_type=mstd:2 - < %t.bef | FileCheck %s

// Builds the tensor, prints it, writes it, prints it again.
func.func @fill_and_print(%c0: !tfrt.chain) -> !tfrt.chain {
  %t = "tfrt_test.const_dense_attr"() {value = dense<[1, 2, 3]> : tensor<3xi32>} : () -> !tfrt_tensor.tensor
  %c1 = tfrt_dht.print_tensor %t, %c0
  %c2 = tfrt_dht.fill_tensor_with_constant.i32 %t, %c1 9 : i32
  %c3 = tfrt_dht.print_tensor %t, %c2
  tfrt.return %c3 : !tfrt.chain
}

// CHECK-LABEL: --- Running 'twice':
func.func @twice() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %c1 = tfrt.call @fill_and_print(%c0) : (!tfrt.chain) -> !tfrt.chain
  %c2 = tfrt.call @fill_and_print(%c1) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %c2 : !tfrt.chain
}
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [3], values = [1, 2, 3]
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [3], values = [9, 9, 9]
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [3], values = [1, 2, 3]
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [3], values = [9, 9, 9]
// CHECK-NEXT: 'twice' returned

// A buffer taken from such a tensor is the tensor's own (writable) buffer:
// a tensor made from it and the original share every later write.
// CHECK-LABEL: --- Running 'shared_buffer':
func.func @shared_buffer() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %t = "tfrt_test.const_dense_attr"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> !tfrt_tensor.tensor
  %buffer, %c1 = tfrt_dht.get_buffer %t, %c0
  %shape = ts.build_shape [2 : i64]
  %u, %c2 = tfrt_dht.make_tensor.f32 %buffer, %shape, %c1
  %c3 = tfrt_dht.fill_tensor_with_constant.f32 %u, %c2 0.5 : f32
  %c4 = tfrt_dht.print_tensor %t, %c3
  %c5 = tfrt_dht.set_tensor_with_constant_values.f32 %t, %c4 [4.0 : f32, 5.0 : f32]
  %c6 = tfrt_dht.print_tensor %u, %c5
  tfrt.return %c6 : !tfrt.chain
}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2], values = [5.000000e-01, 5.000000e-01]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2], values = [4.000000e+00, 5.000000e+00]
// CHECK-NEXT: 'shared_buffer' returned

// set_tensor_with_values copies on write too, and the attribute is intact
// for the next kernel that reads it.
// CHECK-LABEL: --- Running 'set_values':
func.func @set_values() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %t = "tfrt_test.const_dense_attr"() {value = dense<[7, 8]> : tensor<2xi64>} : () -> !tfrt_tensor.tensor
  %x = tfrt.constant.i64 -1
  %c1 = "tfrt_dht.set_tensor_with_values.i64"(%t, %c0, %x, %x) : (!tfrt_tensor.tensor, !tfrt.chain, i64, i64) -> !tfrt.chain
  %c2 = tfrt_dht.print_tensor %t, %c1
  tfrt.return %c2 : !tfrt.chain
}
// CHECK-NEXT: DenseHostTensor dtype = i64, shape = [2], values = [-1, -1]
// CHECK-NEXT: 'set_values' returned
