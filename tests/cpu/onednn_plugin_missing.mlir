// The eigen.* convolutions and f32 products load the oneDNN plugin on first
// use (kernels/cpu/onednn.h). When it cannot be loaded, each such kernel
// fails with what was tried, at its location, and the rest of the program
// runs: the kernels that need no oneDNN (i32 products, pooling) still work.
// RUN: mlir-to-bef %s -o %t.bef
// RUN: env BEF_ONEDNN_LIBRARY=%t.missing.so bef_executor %t.bef | FileCheck %s

// CHECK-LABEL: --- Running 'without_the_plugin':
func.func @without_the_plugin() {
  %c0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %x, %c0 1.0 : f32
  %f = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 1 : i64, 1 : i64, 1 : i64]
  %c2 = tfrt_dht.fill_tensor_with_constant.f32 %f, %c1 2.0 : f32
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 2 : i64, 2 : i64, 1 : i64]
  // expected-error @+1 {{runtime error: cannot load libbef_onednn.so, the oneDNN plugin of the CPU kernels (apt-get install libdnnl2; set BEF_ONEDNN_LIBRARY to the plugin's path); tried: }}
  %c3 = "eigen.conv2d.f32"(%x, %f, %out, %c2) {padding = "valid", strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %pooled = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 1 : i64, 1 : i64, 1 : i64]
  %c4 = "eigen.max_pooling_2d.f32"(%x, %pooled, %c2)
      {padding = "valid", pool_size = [2 : i64, 2 : i64], strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c5 = tfrt_dht.print_tensor %pooled, %c4
  tfrt.return
}
// CHECK-NEXT: shape = [1, 1, 1, 1], values = [1.000000e+00]
