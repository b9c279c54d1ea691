// BEF round-trips through MLIR's bytecode as through its text:
// bef-to-mlir --emit-bytecode writes it (locations included), mlir-to-bef
// and bef-opt read it, and the BEF made from it is the same bytes.
// RUN: mlir-to-bef %s -o %t.bef
// RUN: bef-to-mlir --emit-bytecode %t.bef -o %t.mlirbc
// RUN: od -An -c -N4 %t.mlirbc | FileCheck %s --check-prefix=MAGIC
// RUN: mlir-to-bef %t.mlirbc -o %t.again.bef
// RUN: cmp %t.bef %t.again.bef
// RUN: bef_executor %t.again.bef | FileCheck %s --check-prefix=EXEC
// RUN: bef-opt %t.mlirbc | FileCheck %s --check-prefix=TEXT
// RUN: bef-to-mlir --emit-bytecode %t.bef | mlir-to-bef - | cmp - %t.bef

func.func @add() -> i32 {
  %a = tfrt.constant.i32 20
  %b = tfrt.constant.i32 22
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @branch() -> i32 {
  %flag = tfrt.constant.i1 true
  %v = tfrt.constant.i32 10
  %r = tfrt.if %flag, %v : (i32) -> i32 {
    %d = tfrt.add.i32 %v, %v
    tfrt.return %d : i32
  } else {
    tfrt.return %v : i32
  }
  tfrt.return %r : i32
}

// MAGIC: M L 357 R
// EXEC: 'add' returned 42
// EXEC: 'branch' returned 20
// TEXT: func.func @add() -> i32
// TEXT: tfrt.if
