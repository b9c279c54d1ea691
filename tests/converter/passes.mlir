// bef-opt runs TFRT's compiler passes (tfrt_opt):
//   -inline        tfrt.call of a function is inlined by MLIR's inliner; the
//                  callee's tfrt.return becomes the call's results; a private
//                  callee left without uses disappears;
//   -canonicalize  tfrt.merge.chains keeps only the inputs whose single use is
//                  the merge; with none, it becomes its first input.
// RUN: bef-opt -inline %s | FileCheck %s --check-prefix=INLINE
// RUN: bef-opt -canonicalize %s | FileCheck %s --check-prefix=CANON
// The result still converts (corert.const_dense_tensor has no host kernel,
// so it is not run here).
// RUN: bef-opt -inline -canonicalize %s | mlir-to-bef | bef-dump - | FileCheck %s --check-prefix=DUMP
// DUMP: corert.const_dense_tensor

// A private callee, inlined everywhere, is erased; ops of other registered
// dialects (corert) are inlined too.
// INLINE-NOT: func.func private @double
func.func private @double(%x: i32) -> (i32, !corert.tensorhandle) {
  %d = tfrt.add.i32 %x, %x
  %t = corert.const_dense_tensor dense<1> : tensor<i32>
  tfrt.return %d, %t : i32, !corert.tensorhandle
}

// A public callee stays.
// INLINE-LABEL: func.func @triple
func.func @triple(%x: i32) -> i32 {
  %d = tfrt.add.i32 %x, %x
  %t = tfrt.add.i32 %d, %x
  tfrt.return %t : i32
}

// INLINE-LABEL: func.func @caller
// INLINE-NOT: tfrt.call
// INLINE: %[[X:.*]] = tfrt.constant.i32 4
// INLINE-NEXT: %[[D:.*]] = tfrt.add.i32 %[[X]], %[[X]]
// INLINE-NEXT: corert.const_dense_tensor dense<1> : tensor<i32>
// INLINE-NEXT: %[[T:.*]] = tfrt.add.i32 %[[D]], %[[D]]
// INLINE-NEXT: %[[U:.*]] = tfrt.add.i32 %[[T]], %[[D]]
// INLINE-NEXT: tfrt.return %[[U]] : i32
func.func @caller() -> i32 {
  %x = tfrt.constant.i32 4
  %r, %h = tfrt.call @double(%x) : (i32) -> (i32, !corert.tensorhandle)
  %s = tfrt.call @triple(%r) : (i32) -> i32
  tfrt.return %s : i32
}

// %ch is also used by the print: only %p, used by the merge alone, stays.
// CANON-LABEL: func.func @merges
// CANON: %[[P:.*]] = tfrt.print.i32
// CANON-NEXT: %[[M:.*]] = tfrt.merge.chains %[[P]] : !tfrt.chain
// CANON-NEXT: tfrt.return %[[M]] : !tfrt.chain
func.func @merges() -> !tfrt.chain {
  %ch = tfrt.new.chain
  %x = tfrt.constant.i32 1
  %p = tfrt.print.i32 %x, %ch
  %m = tfrt.merge.chains %ch, %p : !tfrt.chain, !tfrt.chain
  tfrt.return %m : !tfrt.chain
}

// No input has a single use: the merge is replaced by its first input.
// CANON-LABEL: func.func @returned_too
// CANON-NOT: tfrt.merge.chains
// CANON: tfrt.return %arg0, %arg0 : !tfrt.chain, !tfrt.chain
func.func @returned_too(%ch: !tfrt.chain) -> (!tfrt.chain, !tfrt.chain) {
  %o = tfrt.merge.chains %ch : !tfrt.chain
  tfrt.return %o, %ch : !tfrt.chain, !tfrt.chain
}

// Every input has a single use (this merge): it stays as it is.
// CANON-LABEL: func.func @only_use
// CANON-NEXT: %[[O:.*]] = tfrt.merge.chains %arg0 : !tfrt.chain
// CANON-NEXT: tfrt.return %[[O]] : !tfrt.chain
func.func @only_use(%ch: !tfrt.chain) -> !tfrt.chain {
  %o = tfrt.merge.chains %ch : !tfrt.chain
  tfrt.return %o : !tfrt.chain
}

// Two merges of the same pair: the rule applies to one merge at a time. The
// first becomes %a (no input has a single use); then %b's only use is the
// second merge, which keeps just %b.
// CANON-LABEL: func.func @shared_pair
// CANON-NEXT: %[[Y:.*]] = tfrt.merge.chains %arg1 : !tfrt.chain
// CANON-NEXT: tfrt.return %arg0, %[[Y]] : !tfrt.chain, !tfrt.chain
func.func @shared_pair(%a: !tfrt.chain, %b: !tfrt.chain) -> (!tfrt.chain, !tfrt.chain) {
  %x = tfrt.merge.chains %a, %b : !tfrt.chain, !tfrt.chain
  %y = tfrt.merge.chains %a, %b : !tfrt.chain, !tfrt.chain
  tfrt.return %x, %y : !tfrt.chain, !tfrt.chain
}
