// Allocation failures of the COO conversion and the BTF readers, with
// bef_executor's 1 KiB test allocator (host-tensors.md §5.6, §8.4 step 9).
// The BTF file has one dense i32 record of shape [300] (1200 bytes, more
// than the allocator holds) and no data: the allocation fails first.
// RUN: printf '\x01\0\0\0\0\0\0\0\x10\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0\x2c\x01\0\0\0\0\0\0' > %t.btf
// RUN: sed 's|PATH|%t.btf|' %s > %t.mlir
// RUN: mlir-to-bef %t.mlir | not bef_executor --host_allocator_type=test_fixed_size_1k 2>&1 | FileCheck %s

// 160 nonzero i32 (640 bytes): the values tensor (640 more) does not fit.
// CHECK-LABEL: --- Running 'values':
func.func @values() -> !tfrt_tensor.tensor {
  %c0 = tfrt.new.chain
  %t = tfrt_dht.create_uninitialized_tensor.i32.1 [160 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.i32 %t, %c0 1 : i32
  %s, %c2 = coo.convert_dht_to_coo.i32.1 %t, %c1
  tfrt.return %s : !tfrt_tensor.tensor
}
// CHECK: 'values' returned <<error: Cannot allocate value tensor>>

// 100 nonzero i32 (400 bytes) and their values (400): the 800 bytes of
// indices do not fit.
// CHECK-LABEL: --- Running 'indices':
func.func @indices() -> !tfrt_tensor.tensor {
  %c0 = tfrt.new.chain
  %t = tfrt_dht.create_uninitialized_tensor.i32.1 [100 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.i32 %t, %c0 1 : i32
  %s, %c2 = coo.convert_dht_to_coo.i32.1 %t, %c1
  tfrt.return %s : !tfrt_tensor.tensor
}
// CHECK: 'indices' returned <<error: Cannot allocate index tensor>>

// CHECK-LABEL: --- Running 'btf':
func.func @btf() -> !tfrt_tensor.tensor {
  %path = tfrt_test.get_string {value = "PATH"}
  %i0 = tfrt.constant.i32 0
  %t = "btf.read_dense_tensor.i32.1"(%path, %i0) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  tfrt.return %t : !tfrt_tensor.tensor
}
// CHECK: 'btf' returned <<error: cannot allocate result tensor>>
