// The default leak-check allocator reports memory a kernel never freed and
// makes the driver exit 1; with malloc nothing is checked.
// RUN: mlir-to-bef %s | not bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --host_allocator_type=malloc | FileCheck %s --check-prefix=MALLOC

func.func @leak_four_bytes() {
  "tfrt_test.memory_leak_one_int32"() : () -> ()
  tfrt.return
}
// CHECK: --- Running 'leak_four_bytes':
// CHECK: HostAllocator profile:
// CHECK: Current number of allocations = 1
// CHECK: Memory leak detected: 1 alive allocations, 4 alive bytes
// MALLOC: Choosing malloc.
// MALLOC-NOT: Memory leak
