// tfrt.once re-entered by its own evaluation: an error at the call's
// location, never a wait. (TFRT's std::call_once waits for itself there, for
// ever; bef_executor hung on these functions. docs/executor-semantics.md.)
// RUN: mlir-to-bef %s -o %t.bef
// RUN: not bef_executor %t.bef 2>&1 | FileCheck %s
// RUN: not bef_executor --work_queue_type=mstd:2 %t.bef 2>&1 | FileCheck %s

// CHECK-LABEL: --- Running 'itself':
// CHECK-NEXT: once_reentered.mlir:[[@LINE+2]]:8: error: {{.*}}tfrt.once of @itself re-entered while it is being evaluated
func.func @itself() -> i32 {
  %x = tfrt.once @itself() : () -> (i32)
  tfrt.return %x : i32
}
// CHECK: 'itself' returned <<error: tfrt.once of @itself re-entered while it is being evaluated>>

// A cycle through two functions: the call that comes back to a function
// being evaluated fails. Run directly, 'ping' evaluates @pong, which
// evaluates @ping, whose call of @pong is the re-entry.
// CHECK-LABEL: --- Running 'ping':
// CHECK-NEXT: once_reentered.mlir:[[@LINE+6]]:8: error: {{.*}}tfrt.once of @pong re-entered while it is being evaluated
// CHECK: 'ping' returned <<error: tfrt.once of @pong re-entered while it is being evaluated>>
// CHECK-LABEL: --- Running 'pong':
// CHECK-NEXT: once_reentered.mlir:[[@LINE+8]]:8: error: {{.*}}tfrt.once of @ping re-entered while it is being evaluated
// CHECK: 'pong' returned <<error: tfrt.once of @ping re-entered while it is being evaluated>>
func.func @ping() -> i32 {
  %x = tfrt.once @pong() : () -> (i32)
  tfrt.return %x : i32
}

func.func @pong() -> i32 {
  %x = tfrt.once @ping() : () -> (i32)
  tfrt.return %x : i32
}

// Calls from outside once the evaluation ended share its (error) results;
// a function called twice by tfrt.once outside any cycle still runs once.
// CHECK-LABEL: --- Running 'main':
// CHECK: 'main' returned <<error: tfrt.once of @itself re-entered while it is being evaluated>>,<<error: tfrt.once of @ping re-entered while it is being evaluated>>,7,7
func.func @seven() -> i32 {
  %c = tfrt.constant.i32 7
  tfrt.return %c : i32
}

func.func @main() -> (i32, i32, i32, i32) {
  %a = tfrt.once @itself() : () -> (i32)
  %b = tfrt.once @ping() : () -> (i32)
  %c = tfrt.once @seven() : () -> (i32)
  %d = tfrt.once @seven() : () -> (i32)
  tfrt.return %a, %b, %c, %d : i32, i32, i32, i32
}
