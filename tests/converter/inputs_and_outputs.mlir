// mlir-to-bef input and output handling: stdin is recorded as <stdin> in
// locations, -o writes a file, --split-input-file joins BEF files with a
// newline byte, single-dash spellings work.
// RUN: mlir-to-bef < %s | bef-dump - | FileCheck %s --check-prefix=STDIN
// RUN: mlir-to-bef - -o %t.bef < %s && bef_executor %t.bef | FileCheck %s --check-prefix=EXEC
// RUN: mlir-to-bef -split-input-file %s | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=SPLIT
// RUN: mlir-to-bef -disable-optional-sections=true %s | bef-dump - | FileCheck %s --check-prefix=NOOPT

func.func @one() -> i32 {
  %x = tfrt.constant.i32 1
  tfrt.return %x : i32
}

// -----

func.func @two() -> i32 {
  %x = tfrt.constant.i32 2
  tfrt.return %x : i32
}

// STDIN: at "<stdin>":
// EXEC: 'one' returned 1
// EXEC: 'two' returned 2
// Two complete files: the second header follows a 0a byte.
// SPLIT: {{^}} 0b ef 00
// SPLIT-SAME: 0a 0b ef 00
// NOOPT-NOT: AttributeTypes
