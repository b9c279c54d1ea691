// tfrt_test.get_uniqueness through an indirect value: an indirect async
// value is unique only when it has one reference and the value it forwards
// to is unique too. %x is still used by the print after the check, so the
// indirect value wrapping it is not unique (TFRT: false); a kernel that
// trusted a `true` here and wrote in place would corrupt what the print reads.
// The print waits for the check (its chain comes from the check's result):
// on a multi-threaded queue it could otherwise run first, drop its use of
// %x and make the answer depend on scheduling.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// CHECK-LABEL: --- Running 'indirect_shared':
func.func @indirect_shared() -> i1 {
  %x = tfrt.constant.i32 7
  %y = "tfrt_test.make_indirect"(%x) : (i32) -> i32
  %u = "tfrt_test.get_uniqueness"(%y) : (i32) -> i1
  %checked = "tfrt_test.as_chain"(%u) : (i1) -> !tfrt.chain
  %p = tfrt.print.i32 %x, %checked
  tfrt.return %u : i1
}
// CHECK-DAG: int32 = 7
// CHECK-DAG: 'indirect_shared' returned 0

// Once the original register has no other use, the indirect value is the
// only way to the payload: unique.
// CHECK-LABEL: --- Running 'indirect_alone':
func.func @indirect_alone() -> i1 {
  %x = tfrt.constant.i32 7
  %y = "tfrt_test.make_indirect"(%x) : (i32) -> i32
  %u = "tfrt_test.get_uniqueness"(%y) : (i32) -> i1
  tfrt.return %u : i1
}
// CHECK: 'indirect_alone' returned 1

// Two levels of forwarding, the innermost value still used later.
// CHECK-LABEL: --- Running 'indirect_twice':
func.func @indirect_twice() -> i1 {
  %x = tfrt.constant.i32 9
  %y = "tfrt_test.make_indirect"(%x) : (i32) -> i32
  %z = "tfrt_test.make_indirect"(%y) : (i32) -> i32
  %u = "tfrt_test.get_uniqueness"(%z) : (i32) -> i1
  %checked = "tfrt_test.as_chain"(%u) : (i1) -> !tfrt.chain
  %p = tfrt.print.i32 %x, %checked
  tfrt.return %u : i1
}
// CHECK-DAG: int32 = 9
// CHECK-DAG: 'indirect_twice' returned 0
