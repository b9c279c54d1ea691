// The Attributes and AttributeTypes sections for each attribute kind, with
// the bytes derived by hand from bef-encoding-constants.md §5-6, §11: the
// single attribute of the single kernel sits at offset 0 of the pool (after
// 0xCC padding where its layout puts the offset at 4 mod 8).
// Attributes section: `01`, VBR (length << 1 | alignment flag), [alignment,
// padding], body. AttributeTypes: `08`, length, count 1, offset, VBR type.
// RUN: split-file --no-leading-lines %s %t
// RUN: mlir-to-bef %t/i32.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=I32
// RUN: mlir-to-bef %t/i1.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=I1
// RUN: mlir-to-bef %t/f64.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=F64
// RUN: mlir-to-bef %t/bf16.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=BF16
// RUN: mlir-to-bef %t/string.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=STRING
// RUN: mlir-to-bef %t/type.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=TYPE
// RUN: mlir-to-bef %t/array_i32.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=ARRAY-I32
// RUN: mlir-to-bef %t/array_i64.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=ARRAY-I64
// RUN: mlir-to-bef %t/empty_array.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=EMPTY-ARRAY
// RUN: mlir-to-bef %t/dense.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=DENSE
// RUN: mlir-to-bef %t/shape.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=SHAPE
// RUN: mlir-to-bef %t/unranked.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=UNRANKED
// RUN: mlir-to-bef %t/aggregate.mlir | od -An -tx1 -v -w100000 | FileCheck %s --check-prefix=AGGREGATE
// RUN: not mlir-to-bef %t/unit.mlir 2>&1 | FileCheck %s --check-prefix=UNIT

// I32: {{ 01 (08|09 04( cc)*) 2a 00 00 00 02 }}
// I32-SAME: {{ 08 06 01 00 08 09 }}
// I1: {{ 01 02 01 02 }}
// I1-SAME: {{ 08 06 01 00 05 09 }}
// F64: {{ 01 (10|11 08( cc)*) 00 00 00 00 00 00 f0 3f 02 }}
// F64-SAME: {{ 08 06 01 00 0b 09 }}
// 1.0 in bfloat16 is 0x3f80.
// BF16: {{ 01 (04|05 02( cc)*) 80 3f 02 }}
// BF16-SAME: {{ 08 06 01 00 0f 09 }}
// STRING: {{ 01 (0c|0d 04( cc)*) 02 00 00 00 61 62 02 }}
// STRING-SAME: {{ 08 06 01 00 10 09 }}
// f32 is DType 10.
// TYPE: {{ 01 02 0a 02 }}
// TYPE-SAME: {{ 08 06 01 00 19 09 }}
// Array: uint32 count then the elements; type 128|8 = 136 = VBR 81 08.
// ARRAY-I32: {{ 01 (18|19 04( cc)*) 02 00 00 00 01 00 00 00 02 00 00 00 02 }}
// ARRAY-I32-SAME: {{ 08 08 01 00 81 08 09 }}
// 8-byte elements: the count sits at 4 mod 8 so the payload is 8-aligned.
// ARRAY-I64: {{ 01 (20|21 08( cc)*) cc cc cc cc 01 00 00 00 07 00 00 00 00 00 00 00 02 }}
// ARRAY-I64-SAME: {{ 08 08 01 04 81 09 09 }}
// EMPTY-ARRAY: {{ 01 (08|09 04( cc)*) 00 00 00 00 02 }}
// EMPTY-ARRAY-SAME: {{ 08 08 01 00 81 08 09 }}
// Dense: header (alignment 8, DType i32 = 8, prefix 28, size 36),
// element offset 28, count 2, rank 1, dim 2, data; base at 4 mod 8.
// DENSE: {{ 01 (50|51 08( cc)*) cc cc cc cc 08 08 1c 00 24 00 00 00 1c 00 00 00 02 00 00 00 01 00 00 00 02 00 00 00 00 00 00 00 01 00 00 00 02 00 00 00 02 }}
// DENSE-SAME: {{ 08 06 01 04 1c 09 }}
// Shape: header (alignment 8, DType 0, prefix 12, size 28), rank 2, dims
// with -1 for `?`.
// SHAPE: {{ 01 (40|41 08( cc)*) cc cc cc cc 08 00 0c 00 1c 00 00 00 02 00 00 00 02 00 00 00 00 00 00 00 ff ff ff ff ff ff ff ff 02 }}
// SHAPE-SAME: {{ 08 06 01 04 1b 09 }}
// UNRANKED: {{ 01 (08|09 04( cc)*) 00 00 00 00 02 }}
// UNRANKED-SAME: {{ 08 06 01 00 1b 09 }}
// Aggregate: header (alignment 4, prefix 12 + 4*2 = 20, size 36), count 2,
// element offsets 24 and 32; each element preceded by its type byte
// (string 0x10, i32 0x08) in the 0xCC it reserved.
// AGGREGATE: {{ 01 (48|49 04( cc)*) 04 00 14 00 24 00 00 00 02 00 00 00 18 00 00 00 20 00 00 00 cc cc cc 10 01 00 00 00 61 cc cc 08 01 00 00 00 02 }}
// AGGREGATE-SAME: {{ 08 06 01 00 1e 09 }}
// UNIT: error: BEF files cannot encode the 'a' attribute

//--- i32.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = 42 : i32}
  tfrt.return %c : !tfrt.chain
}
//--- i1.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = true}
  tfrt.return %c : !tfrt.chain
}
//--- f64.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = 1.0 : f64}
  tfrt.return %c : !tfrt.chain
}
//--- bf16.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = 1.0 : bf16}
  tfrt.return %c : !tfrt.chain
}
//--- string.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = "ab"}
  tfrt.return %c : !tfrt.chain
}
//--- type.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = f32}
  tfrt.return %c : !tfrt.chain
}
//--- array_i32.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = [1 : i32, 2 : i32]}
  tfrt.return %c : !tfrt.chain
}
//--- array_i64.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = [7]}
  tfrt.return %c : !tfrt.chain
}
//--- empty_array.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = []}
  tfrt.return %c : !tfrt.chain
}
//--- dense.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = dense<[1, 2]> : tensor<2xi32>}
  tfrt.return %c : !tfrt.chain
}
//--- shape.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = #corert.shape<2x?>}
  tfrt.return %c : !tfrt.chain
}
//--- unranked.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = #corert.shape<*>}
  tfrt.return %c : !tfrt.chain
}
//--- aggregate.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = ["a", 1 : i32]}
  tfrt.return %c : !tfrt.chain
}
//--- unit.mlir
func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a}
  tfrt.return %c : !tfrt.chain
}
