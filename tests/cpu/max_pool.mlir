// tfrt_test.max_pooling_2d.f32 on TFRT's two pooling cases (its
// backends/cpu/mlir_tests/resnet/max_pool.mlir, cpu-kernels.md §6.1): "valid"
// 3x3 windows every 3x3 over [2, 3, 3, 6] and "same" 3x3 windows every 2x2
// over [2, 5, 5, 6], each compared with the expected tensor of the BTF file.
// The file is written by Inputs/max_pool_btf.py, whose expected tensors are
// its own model of the kernel (§3.1), not this runtime's output.
// RUN: python3 %S/Inputs/max_pool_btf.py %t.btf
// RUN: sed 's|PATH|%t.btf|' %s > %t.mlir
// RUN: mlir-to-bef %t.mlir | bef_executor | FileCheck %s
// RUN: mlir-to-bef %t.mlir | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// CHECK-LABEL: --- Running 'valid_3x3_stride_3x3':
func.func @valid_3x3_stride_3x3() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %input_index = tfrt.constant.i32 0
  %input = "btf.read_dense_tensor.f32.4"(%path, %input_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 1
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %output = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 1 : i64, 1 : i64, 6 : i64]
  %c1 = "tfrt_test.max_pooling_2d.f32"(%input, %output, %c0)
      {padding = "valid", pool_size = [3 : i32, 3 : i32], strides = [3 : i32, 3 : i32]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %c2 = "tfrt_dht.tensor_allclose.f32"(%expected, %output, %c1)
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %c3 = tfrt.print.i1 %equal, %c2
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'same_3x3_stride_2x2':
func.func @same_3x3_stride_2x2() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %input_index = tfrt.constant.i32 2
  %input = "btf.read_dense_tensor.f32.4"(%path, %input_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 3
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %output = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 3 : i64, 3 : i64, 6 : i64]
  %c1 = "tfrt_test.max_pooling_2d.f32"(%input, %output, %c0)
      {padding = "same", pool_size = [3 : i32, 3 : i32], strides = [2 : i32, 2 : i32]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %c2 = "tfrt_dht.tensor_allclose.f32"(%expected, %output, %c1)
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %c3 = tfrt.print.i1 %equal, %c2
  tfrt.return
}
// CHECK-NEXT: int1 = 1
