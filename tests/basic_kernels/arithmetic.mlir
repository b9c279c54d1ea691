// Integer and float arithmetic, comparisons, booleans and casts.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s
// RUN: mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// CHECK-LABEL: --- Running 'integer_ops':
func.func @integer_ops() -> (i32, i32, i32, i32, i32, i64, i64) {
  %a = tfrt.constant.i32 17
  %b = tfrt.constant.i32 -5
  %sum = tfrt.add.i32 %a, %b
  %diff = "tfrt.minus.i32"(%a, %b) : (i32, i32) -> i32
  %prod = tfrt.mul.i32 %a, %b
  // Truncating division: the remainder has the sign of the dividend.
  %q, %r = tfrt.div.i32 %a, %b
  %x = tfrt.constant.i64 9223372036854775807
  %one = tfrt.constant.i64 1
  // Wraps around.
  %wrap = tfrt.add.i64 %x, %one
  %m = "tfrt.minus.i64"(%one, %x) : (i64, i64) -> i64
  tfrt.return %sum, %diff, %prod, %q, %r, %wrap, %m : i32, i32, i32, i32, i32, i64, i64
}
// CHECK-NEXT: 'integer_ops' returned 12,22,-85,-3,2,-9223372036854775808,-9223372036854775806

// CHECK-LABEL: --- Running 'float_ops':
func.func @float_ops() -> (f32, f32, f32, f64, f64, f64) {
  %a = tfrt.constant.f32 2.5
  %b = tfrt.constant.f32 -0.75
  %sum = tfrt.add.f32 %a, %b
  %min = "tfrt.minimum.f32"(%a, %b) : (f32, f32) -> f32
  %div = "tfrt.div.f32"(%a, %b) : (f32, f32) -> f32
  %c = tfrt.constant.f64 3.0
  %prod = "tfrt.multiply.f64"(%c, %c) : (f64, f64) -> f64
  %add = tfrt.add.f64 %c, %prod
  %min2 = "tfrt.minimum.f64"(%prod, %c) : (f64, f64) -> f64
  tfrt.return %sum, %min, %div, %prod, %add, %min2 : f32, f32, f32, f64, f64, f64
}
// CHECK-NEXT: 'float_ops' returned 1.750000e+00,-7.500000e-01,-3.333333e+00,9.000000e+00,1.200000e+01,3.000000e+00

// CHECK-LABEL: --- Running 'compare_and_bool':
func.func @compare_and_bool() -> (i1, i1, i1, i1, i1) {
  %a = tfrt.constant.i32 3
  %b = tfrt.constant.i32 4
  %eq = tfrt.equal.i32 %a, %b
  %le = "tfrt.lessequal.i32"(%a, %b) : (i32, i32) -> i1
  %c = tfrt.constant.i64 -1
  %eq64 = tfrt.equal.i64 %c, %c
  // A trailing chain operand is accepted by kernels that do not declare it.
  %ch = tfrt.new.chain
  %le64 = "tfrt.lessequal.i64"(%c, %c, %ch) : (i64, i64, !tfrt.chain) -> i1
  %and = tfrt.and.i1 %le, %eq64
  tfrt.return %eq, %le, %eq64, %le64, %and : i1, i1, i1, i1, i1
}
// CHECK-NEXT: 'compare_and_bool' returned 0,1,1,1,1

// CHECK-LABEL: --- Running 'casts':
func.func @casts() -> (f32, i64, f64, i64) {
  %i = tfrt.constant.i64 -3
  %f = "tfrt.cast.i64_to_f32"(%i) : (i64) -> f32
  %g = tfrt.constant.f32 312.27
  %j = "tfrt.cast.f32_to_i64"(%g) : (f32) -> i64
  %d = "tfrt.cast.i64_to_f64"(%i) : (i64) -> f64
  %e = tfrt.constant.f64 -255.999
  %k = "tfrt.cast.f64_to_i64"(%e) : (f64) -> i64
  tfrt.return %f, %j, %d, %k : f32, i64, f64, i64
}
// CHECK-NEXT: 'casts' returned -3.000000e+00,312,-3.000000e+00,-255

// Float to integer outside the range, and NaN: the minimum integer (what
// TFRT's static_cast gives on x86-64; undefined behaviour in C++). -2^63 is
// in range.
// CHECK-LABEL: --- Running 'casts_out_of_range':
func.func @casts_out_of_range() -> (i64, i64, i64, i64, i64) {
  %big = tfrt.constant.f32 1.0e30
  %a = "tfrt.cast.f32_to_i64"(%big) : (f32) -> i64
  %small = tfrt.constant.f64 -1.0e300
  %b = "tfrt.cast.f64_to_i64"(%small) : (f64) -> i64
  %nan = tfrt.constant.f64 0x7FF8000000000000
  %c = "tfrt.cast.f64_to_i64"(%nan) : (f64) -> i64
  %two63 = tfrt.constant.f64 9223372036854775808.0
  %d = "tfrt.cast.f64_to_i64"(%two63) : (f64) -> i64
  %minus_two63 = tfrt.constant.f64 -9223372036854775808.0
  %e = "tfrt.cast.f64_to_i64"(%minus_two63) : (f64) -> i64
  tfrt.return %a, %b, %c, %d, %e : i64, i64, i64, i64, i64
}
// CHECK-NEXT: 'casts_out_of_range' returned -9223372036854775808,-9223372036854775808,-9223372036854775808,-9223372036854775808,-9223372036854775808
