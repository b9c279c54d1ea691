// Driver errors: exact messages, exit status 1.
// RUN: mlir-to-bef %s -o %t.bef
// RUN: not bef_executor %t.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not bef_executor --work_queue_type=fifo %t.bef 2>&1 | FileCheck %s --check-prefix=QUEUE
// RUN: not bef_executor --work_queue_type=mstd:2x %t.bef 2>&1 | FileCheck %s --check-prefix=MSTD
// RUN: not bef_executor --work_queue_type=mstd:100000 %t.bef 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not bef_executor --functions=ok,missing_function %t.bef 2>&1 | FileCheck %s --check-prefix=FUNCTION
// RUN: not bef_executor --host_allocator_type=bogus %t.bef 2>&1 | FileCheck %s --check-prefix=ALLOCATOR
// RUN: not bef_executor --shared_libs=./no_such_library.so %t.bef 2>&1 | FileCheck %s --check-prefix=LIBRARY
// oneTBB is loaded for mstd queues only (tools/tbb_arena_plugin.cc), by the
// queue's first task: a plugin that is missing or does not load leaves the
// compute tasks to the blocking threads, and says why.
// RUN: bef_executor --work_queue_type=s %t.bef | FileCheck %s --check-prefix=NO-TBB-NEEDED
// RUN: env BEF_TBB_ARENA_LIBRARY=%t.no_tbb.so bef_executor --work_queue_type=mstd:2 --functions=async %t.bef 2>&1 | FileCheck %s --check-prefix=NO-TBB
// RUN: env BEF_TBB_ARENA_LIBRARY=%t.bef bef_executor --work_queue_type=mstd:2 --functions=async %t.bef 2>&1 | FileCheck %s --check-prefix=BROKEN-TBB

func.func @ok() -> i32 {
  %x = tfrt.constant.i32 1
  tfrt.return %x : i32
}

func.func @async() -> i32 {
  %x = tfrt.constant.i32 20
  %y = "tfrt_test.async_add.i32"(%x, %x) : (i32, i32) -> i32
  tfrt.return %y : i32
}

// MISSING: cannot open input file '{{.*}}.missing': No such file or directory
// QUEUE: bef_executor: couldn't create work queue type fifo
// MSTD: Invalid argument for mstd work queue: 2x
// MSTD: bef_executor: couldn't create work queue type mstd:2x
// THREADS: bef_executor: work queue mstd:100000: 100000 compute and 256 blocking threads are more than this process may have ({{[0-9]+}}, {{.*}})
// FUNCTION: bef_executor: couldn't find function missing_function
// ALLOCATOR: bef_executor: for the --host_allocator_type option: Cannot find option named 'bogus'!
// LIBRARY: bef_executor: couldn't load library ./no_such_library.so: cannot open shared object file: No such file or directory
// NO-TBB-NEEDED: --- Running 'ok':
// NO-TBB-NEEDED-NEXT: 'ok' returned 1
// NO-TBB: cannot load libbef_tbb_arena.so (set BEF_TBB_ARENA_LIBRARY to its path); tried: {{.*}}no_tbb.so: cannot open shared object file
// NO-TBB: mstd work queue: the registered oneTBB arena source failed; compute tasks run on the blocking threads
// NO-TBB: 'async' returned 40
// BROKEN-TBB: cannot load libbef_tbb_arena.so (set BEF_TBB_ARENA_LIBRARY to its path); tried: {{.*}}.bef: invalid ELF header
// BROKEN-TBB: mstd work queue: the registered oneTBB arena source failed; compute tasks run on the blocking threads
// BROKEN-TBB: 'async' returned 40
