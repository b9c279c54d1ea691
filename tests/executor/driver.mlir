// bef_executor options: --functions, --test_init_function, input from
// standard input, work queue and allocator banners.
// RUN: mlir-to-bef %s -o %t.bef
// RUN: bef_executor %t.bef | FileCheck %s --check-prefix=ALL
// RUN: bef_executor --functions=second,first,second %t.bef | FileCheck %s --check-prefix=LIST
// RUN: bef_executor --test_init_function=setup --functions=first %t.bef | FileCheck %s --check-prefix=INIT
// RUN: bef_executor < %t.bef | FileCheck %s --check-prefix=ALL
// RUN: cat %t.bef | bef_executor - --functions=second | FileCheck %s --check-prefix=STDIN
// RUN: bef_executor --work_queue_type=mstd:3,5 --functions=first %t.bef | FileCheck %s --check-prefix=MSTD
// RUN: bef_executor --work_queue_type=mstd:1 --functions=first %t.bef | FileCheck %s --check-prefix=MSTD1
// RUN: bef_executor --host_allocator_type=malloc --functions=first %t.bef | FileCheck %s --check-prefix=MALLOC
// RUN: bef_executor --host_allocator_type=profiled_allocator --functions=first %t.bef | FileCheck %s --check-prefix=PROFILED

func.func @setup() -> i32 {
  %x = tfrt.constant.i32 0
  tfrt.return %x : i32
}
func.func @first() -> i32 {
  %x = tfrt.constant.i32 1
  tfrt.return %x : i32
}
func.func @second() -> i32 {
  %x = tfrt.constant.i32 2
  tfrt.return %x : i32
}

// ALL: Choosing memory leak check allocator.
// ALL-NEXT: Choosing single-threaded work queue.
// ALL-NEXT: --- Running 'setup':
// ALL-NEXT: 'setup' returned 0
// ALL-NEXT: --- Running 'first':
// ALL-NEXT: 'first' returned 1
// ALL-NEXT: --- Running 'second':
// ALL-NEXT: 'second' returned 2

// LIST: --- Running 'second':
// LIST: --- Running 'first':
// LIST: --- Running 'second':
// LIST-NOT: Running

// INIT: --- Running 'setup':
// INIT-NEXT: 'setup' returned 0
// INIT-NEXT: --- Running 'first':
// INIT-NOT: Running

// STDIN: --- Running 'second':
// STDIN-NEXT: 'second' returned 2

// MSTD: Choosing Multi-threaded C++ work queue (3 threads, 5 blocking threads) work queue.
// MSTD: 'first' returned 1
// MSTD1: Choosing Multi-threaded C++ work queue (1 threads, 256 blocking threads) work queue.

// MALLOC: Choosing malloc.
// MALLOC-NOT: HostAllocator

// PROFILED: Choosing profiled allocator based on malloc.
// PROFILED: 'first' returned 1
// PROFILED: HostAllocator profile:
// PROFILED-NEXT: Current number of allocations = 0
