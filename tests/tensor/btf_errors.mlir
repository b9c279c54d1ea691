// BTF reader errors on malformed files (host-tensors.md §8.4 steps 2-9):
// every read is checked.
// RUN: printf '' > %t.empty.btf
// RUN: printf '\x01\0\0\0\0\0\0\0' > %t.nooffset.btf
// RUN: printf '\x01\0\0\0\0\0\0\0\x40\0\0\0\0\0\0\0' > %t.noheader.btf
// RUN: printf '\x01\0\0\0\0\0\0\0\x10\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0' > %t.nodims.btf
// RUN: printf '\x01\0\0\0\0\0\0\0\x10\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0\x04\0\0\0\0\0\0\0\x01\0\0\0' > %t.nodata.btf
// RUN: sed 's|PREFIX|%t|' %s > %t.mlir
// RUN: mlir-to-bef %t.mlir | not bef_executor 2>&1 | FileCheck %s

func.func @errors() {
  %i0 = tfrt.constant.i32 0
  %p1 = tfrt_test.get_string {value = "PREFIX.empty.btf"}
  %e1 = "btf.read_dense_tensor.i32.1"(%p1, %i0) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %p2 = tfrt_test.get_string {value = "PREFIX.nooffset.btf"}
  %e2 = "btf.read_dense_tensor.i32.1"(%p2, %i0) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %p3 = tfrt_test.get_string {value = "PREFIX.noheader.btf"}
  %e3 = "btf.read_dense_tensor.i32.1"(%p3, %i0) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %p4 = tfrt_test.get_string {value = "PREFIX.nodims.btf"}
  %e4 = "btf.read_dense_tensor.i32.1"(%p4, %i0) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %p5 = tfrt_test.get_string {value = "PREFIX.nodata.btf"}
  %e5 = "btf.read_dense_tensor.i32.1"(%p5, %i0) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %m1 = tfrt.constant.i32 -1
  %e6 = "btf.read_dense_tensor.i32.1"(%p5, %m1) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  tfrt.return
}
// CHECK-DAG: runtime error: failed to read tensor num_tensors from path {{.*}}.empty.btf
// CHECK-DAG: runtime error: failed to read tensor offset from {{.*}}.nooffset.btf for tensor index 0
// CHECK-DAG: runtime error: failed to read tensor header from stream at offset 64
// CHECK-DAG: runtime error: failed to read tensor dims at offset 32
// CHECK-DAG: runtime error: failed to read tensor data from stream at offset 40
// CHECK-DAG: runtime error: invalid tensor index -1 to read tensor from path {{.*}}.nodata.btf which contains 1 tensors
