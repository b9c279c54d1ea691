// BTF reader kernels (host-tensors.md §8.4): a dense i32 [3] record and a
// COO f32 [2, 2] record, written byte by byte from the layout of §8.1.
// RUN: printf '\x02\0\0\0\0\0\0\0\x18\0\0\0\0\0\0\0\x40\0\0\0\0\0\0\0' > %t.btf
// RUN: printf '\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0\x03\0\0\0\0\0\0\0\x07\0\0\0\xf8\xff\xff\xff\x09\0\0\0\0\0\0\0' >> %t.btf
// RUN: printf '\x02\0\0\0\0\0\0\0\x04\x01\0\0\0\0\0\0\x02\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0' >> %t.btf
// RUN: printf '\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0\0\0\x90\x40' >> %t.btf
// RUN: sed 's|PATH|%t.btf|' %s > %t.mlir
// RUN: mlir-to-bef %t.mlir | not bef_executor 2>&1 | FileCheck %s

func.func @read() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %path = tfrt_test.get_string {value = "PATH"}
  %i0 = tfrt.constant.i32 0
  %i1 = tfrt.constant.i32 1
  %i2 = tfrt.constant.i32 2
  %dense = "btf.read_dense_tensor.i32.1"(%path, %i0) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %c1 = tfrt_dht.print_tensor %dense, %c0
  %coo = "btf.read_coo_tensor.f32.2"(%path, %i1) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %c2 = tfrt_dht.print_tensor %coo, %c1
  %bad = "btf.read_dense_tensor.i32.1"(%path, %i2) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %wrong = "btf.read_dense_tensor.f32.1"(%path, %i0) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  tfrt.return %c2 : !tfrt.chain
}
// CHECK-DAG: DenseHostTensor dtype = i32, shape = [3], values = [7, -8, 9]
// CHECK-DAG: CooHostTensor dtype = f32, shape = [2, 2], indices = [0, 1], values = [4.500000e+00]
// CHECK-DAG: error: unexpected error: runtime error: invalid tensor index 2 to read tensor from path {{.*}} which contains 2 tensors
// CHECK-DAG: error: unexpected error: runtime error: unexpected tensor dtype i32. Expected dtype is f32
