// bef-opt passes: -inline replaces tfrt.call with the callee's body;
// -canonicalize drops redundant tfrt.merge.chains inputs.
// RUN: bef-opt -inline %s | FileCheck %s --check-prefix=INLINE
// RUN: bef-opt -canonicalize %s | FileCheck %s --check-prefix=CANON

func.func @double(%x: i32) -> i32 {
  %d = tfrt.add.i32 %x, %x
  tfrt.return %d : i32
}

// INLINE-LABEL: func.func @caller
// INLINE-NOT: tfrt.call
// INLINE: tfrt.add.i32
func.func @caller() -> i32 {
  %x = tfrt.constant.i32 4
  %r = tfrt.call @double(%x) : (i32) -> i32
  tfrt.return %r : i32
}

// The first chain is also used by the print, which the merge already
// waits for: only the print's chain remains; a merge of one chain folds.
// CANON-LABEL: func.func @merges
// CANON: %[[P:.*]] = tfrt.print.i32
// CANON-NEXT: tfrt.return %[[P]] : !tfrt.chain
func.func @merges() -> !tfrt.chain {
  %ch = tfrt.new.chain
  %x = tfrt.constant.i32 1
  %p = tfrt.print.i32 %x, %ch
  %m = tfrt.merge.chains %ch, %p : !tfrt.chain, !tfrt.chain
  tfrt.return %m : !tfrt.chain
}
