// Locations of each kind, a function with a region (anonymous function
// first in the FunctionIndex), and the optional sections; bytes derived by
// hand from bef-encoding-constants.md §3.2, §8-11.
// RUN: split-file --no-leading-lines %s %t
// RUN: cd %t && mlir-to-bef loc.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=LOC
// RUN: cd %t && mlir-to-bef nested.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=NESTED
// RUN: cd %t && mlir-to-bef --disable-optional-sections nested.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=NOOPT

// LocationStrings, in order of first use: "loc.mlir" @0, "n" @9, "x.py" @11,
// "c.py" @16, "d.py" @21, "e.py" @26, "m" @31.
// LOC: {{ 06 42 6c 6f 63 2e 6d 6c 69 72 00 6e 00 78 2e 70 79 00 63 2e 70 79 00 64 2e 70 79 00 65 2e 70 79 00 6d 00}}
// Locations: the function (file 1:1), then per kernel: name("n", x.py:3:4);
// call site (c.py:1:2 at d.py:5:6); fused[e.py:7:8, name("m", unknown)].
// LOC-SAME: {{ 07 38 01 00 01 01 02 09 01 0b 03 04 03 01 10 01 02 01 15 05 06 04 02 01 1a 07 08 02 1f 00}}

// Strings: "" @0, "f" @1, "i32" @3, "tfrt.constant.i32" @7,
// "tfrt.repeat.i32" @25, "value" @41.
// NESTED: {{^}} 0b ef 00 00 5e 00 66 00 69 33 32 00
// Types: one (i32). FunctionIndex: the region (kind 0, record @0, name "",
// (i32) -> (i32)), then @f (record @48 = 0x30, name "f", () -> (i32)).
// NESTED-SAME: {{ 03 04 01 03 04 1c 02 00 00 00 01 00 01 00 00 30 01 00 01 00 05}}
// The region's record: location @0, 1 register used once (by the return),
// the pseudo kernel only, result register 0 (8 bytes: no padding); the pseudo kernel
// publishes the special register 1 and the argument 0.
// NESTED-SAME: {{ 00 01 01 01 00 00 00 00 ab ab ab ab cd cd cd cd 00 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00}}
// AttributeTypes: value = 2 : i32 at offset 0. AttributeNames: 2
// functions; the region has 1 kernel, @f 3 kernels and the name "value".
// RegisterTypes: region 1 register (i32), @f 2 registers (i32, i32).
// NESTED-SAME: {{ 08 06 01 00 08 09 08 02 01 03 29 0a 0c 02 01 00 02 00 00$}}

// Without optional sections "value" is not in Strings and the file ends
// with the Locations section.
// NOOPT: {{^}} 0b ef 00 00 52 00 66 00 69 33 32 00
// NOOPT-NOT: 76 61 6c 75 65
// NOOPT: {{ 07 [0-9a-f]+( [0-9a-f]+)*$}}
// NOOPT-NOT: 08 06 01 00 08

//--- loc.mlir
func.func @f() -> (i32, i32, i32) {
  %a = "tfrt_test.fail"() : () -> i32 loc("n"("x.py":3:4))
  %b = "tfrt_test.fail"() : () -> i32 loc(callsite("c.py":1:2 at "d.py":5:6))
  %c = "tfrt_test.fail"() : () -> i32 loc(fused["e.py":7:8, "m"])
  tfrt.return %a, %b, %c : i32, i32, i32
}
//--- nested.mlir
func.func @f() -> i32 {
  %n = tfrt.constant.i32 2
  %r = tfrt.repeat.i32 %n, %n : i32 {
    tfrt.return %n : i32
  }
  tfrt.return %r : i32
}
