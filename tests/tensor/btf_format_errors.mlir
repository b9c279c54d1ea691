// BTF reader errors about the records themselves (host-tensors.md §8.4
// steps 1, 7, 8, 10): a missing file, a rank or layout other than the
// kernel's, COO records whose index and value tensors disagree or whose
// coordinates lie outside the dense shape.
// File: 3 records at 32, 72, 152:
//   0: dense i32 [3] = 7, -8, 9 (+4 padding)
//   1: COO f32 [2, 2]: one coordinate pair (0, 1), but two values
//   2: COO f32 [2, 2]: coordinates (0, 3), value 4.5 (+4 padding)
// RUN: printf '\x03\0\0\0\0\0\0\0\x20\0\0\0\0\0\0\0\x48\0\0\0\0\0\0\0\x98\0\0\0\0\0\0\0' > %t.btf
// RUN: printf '\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0\x03\0\0\0\0\0\0\0\x07\0\0\0\xf8\xff\xff\xff\x09\0\0\0\0\0\0\0' >> %t.btf
// RUN: printf '\x02\0\0\0\0\0\0\0\x04\x01\0\0\0\0\0\0\x02\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0' >> %t.btf
// RUN: printf '\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0' >> %t.btf
// RUN: printf '\x02\0\0\0\0\0\0\0\0\0\x90\x40\0\0\x90\x40' >> %t.btf
// RUN: printf '\x02\0\0\0\0\0\0\0\x04\x01\0\0\0\0\0\0\x02\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0' >> %t.btf
// RUN: printf '\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x03\0\0\0\0\0\0\0' >> %t.btf
// RUN: printf '\x01\0\0\0\0\0\0\0\0\0\x90\x40\0\0\0\0' >> %t.btf
// RUN: sed 's|PATH|%t.btf|' %s > %t.mlir
// RUN: mlir-to-bef %t.mlir | not bef_executor 2>&1 | FileCheck %s

func.func @errors() {
  %path = tfrt_test.get_string {value = "PATH"}
  %missing = tfrt_test.get_string {value = "PATH.missing"}
  %i0 = tfrt.constant.i32 0
  %i1 = tfrt.constant.i32 1
  %i2 = tfrt.constant.i32 2
  %e1 = "btf.read_dense_tensor.i32.1"(%missing, %i0) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %e2 = "btf.read_dense_tensor.i32.2"(%path, %i0) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %e3 = "btf.read_dense_tensor.f32.2"(%path, %i1) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %e4 = "btf.read_coo_tensor.i32.1"(%path, %i0) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %e5 = "btf.read_coo_tensor.f32.2"(%path, %i1) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %e6 = "btf.read_coo_tensor.f32.2"(%path, %i2) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  tfrt.return
}
// CHECK-DAG: runtime error: failed to open file {{.*}}.btf.missing for reading
// CHECK-DAG: runtime error: unexpected tensor rank 1. Expected rank is 2
// CHECK-DAG: runtime error: unexpected tensor layout COOrdinate list sparse tensor
// CHECK-DAG: runtime error: unexpected tensor layout Row-Major Dense tensor
// CHECK-DAG: runtime error: the tensor is not corectly formatted, the indices and values tensors do not match in size COOrdinate list sparse tensor
// CHECK-DAG: runtime error: the indices tensor has an element at position 0, 1 that bigger than the respective dimension. Element: 3, limit: 2
