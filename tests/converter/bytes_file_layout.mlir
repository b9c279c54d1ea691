// Whole-file bytes, derived by hand from ../shared/spec/bef-encoding-constants.md:
// the empty module (§2.2) and the worked example (§14).
// RUN: split-file --no-leading-lines %s %t
// RUN: cd %t && mlir-to-bef empty.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=EMPTY
// RUN: cd %t && mlir-to-bef t.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=EXAMPLE
// RUN: cd %t && mlir-to-bef --disable-optional-sections t.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=NOOPTIONAL

// EMPTY: {{^}} 0b ef 00 00 00 01 00 02 02 00 03 02 00 04 02 00 05 00 08 02 00 09 02 00 0a 02 00{{$}}

// EXAMPLE: {{^}} 0b ef 00
// EXAMPLE-SAME: 00 04 66 00
// EXAMPLE-SAME: 01 00 02 02 00 03 02 00
// EXAMPLE-SAME: 04 0c 01 00 00 00 00 00
// EXAMPLE-SAME: 05 51 04 cc cc 00 00 01 00 00 00 cc cc
// EXAMPLE-SAME: ab ab ab ab cd cd cd cd 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00
// EXAMPLE-SAME: 06 0e 74 2e 6d 6c 69 72 00
// EXAMPLE-SAME: 07 08 01 00 01 01
// EXAMPLE-SAME: 08 02 00 09 04 01 01 0a 04 01 00{{$}}

// Without optional sections the file ends with the Locations section.
// NOOPTIONAL: 07 08 01 00 01 01{{$}}

//--- empty.mlir
module {
}
//--- t.mlir
func.func @f() {
  tfrt.return
}
