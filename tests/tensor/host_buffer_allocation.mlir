// A dense host tensor is ONE host allocation: TFRT's 64-byte buffer header
// and the 64-byte-aligned data after it. With the 1 KiB test allocator, two
// 32-element f32 tensors cost 64 + 128 = 192 bytes each, a 1024-element one
// would need 64 + 4096 = 4160 and fails. (The executor's own per-invocation
// state is not a target: no line here names it.)
// RUN: mlir-to-bef %s | not bef_executor --host_allocator_type=test_fixed_size_1k > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=LOG < %t.err
// RUN: FileCheck %s --check-prefix=BUFFER < %t.err

// CHECK-LABEL: --- Running 'tensors':
func.func @tensors() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.f32.1 [32 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %a, %c0 1.0 : f32
  %b = tfrt_dht.create_uninitialized_tensor.f32.1 [32 : i64]
  %c2 = tfrt_dht.fill_tensor_with_constant.f32 %b, %c1 2.0 : f32
  %big = tfrt_dht.create_uninitialized_tensor.f32.1 [1024 : i64]
  %c3 = tfrt_dht.fill_tensor_with_constant.f32 %big, %c2 3.0 : f32
  tfrt.return %c3 : !tfrt.chain
}
// CHECK: 'tensors' returned <<error: Cannot allocate tensor>>

// LOG-NOT: Allocating 128 bytes
// LOG-DAG: Allocating 192 bytes.
// LOG-DAG: Attempted to allocate 4160 bytes. However current capacity is only
// LOG-DAG: Freeing 192 bytes.
// LOG-NOT: Allocating 4096 bytes

// tfrt_dht.allocate_buffer with an alignment above 16 leaves room to align:
// 64 + 100 + 64 bytes.
// BUFFER-LABEL: Allocating 228 bytes.
// BUFFER: Freeing 228 bytes.
func.func @buffer() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %size = tfrt.constant.i64 100
  %align = tfrt.constant.i64 64
  %b = tfrt_dht.allocate_buffer %size, %align
  %c1 = tfrt_dht.print_buffer %b, %c0
  tfrt.return %c1 : !tfrt.chain
}
