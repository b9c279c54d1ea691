// Every tfrt.constant.* kernel, checked through the driver's result printer.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s

// CHECK-LABEL: --- Running 'integers':
func.func @integers() -> (i1, i1, i32, i64, ui32, ui64) {
  %t = tfrt.constant.i1 true
  %f = tfrt.constant.i1 0
  %a = tfrt.constant.i32 -2147483648
  %b = tfrt.constant.i64 9223372036854775807
  %c = tfrt.constant.ui32 4294967295
  %d = tfrt.constant.ui64 18446744073709551615
  tfrt.return %t, %f, %a, %b, %c, %d : i1, i1, i32, i64, ui32, ui64
}
// CHECK-NEXT: 'integers' returned 1,0,-2147483648,9223372036854775807,ui32 value,ui64 value

// CHECK-LABEL: --- Running 'floats':
func.func @floats() -> (f32, f64) {
  %a = tfrt.constant.f32 0.5
  %b = tfrt.constant.f64 -156.25
  tfrt.return %a, %b : f32, f64
}
// CHECK-NEXT: 'floats' returned 5.000000e-01,-1.562500e+02

// CHECK-LABEL: --- Running 'half_and_complex':
func.func @half_and_complex() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %h = tfrt.constant.f16 1.0
  %ch1 = "tfrt.print.f16"(%h, %ch0) : (f16, !tfrt.chain) -> !tfrt.chain
  %bf = tfrt.constant.bf16 1.0
  %c64 = tfrt.constant.complex64 1.0, 2.0
  %ch2 = "tfrt.print.complex64"(%c64, %ch1) : (complex<f32>, !tfrt.chain) -> !tfrt.chain
  %c128 = tfrt.constant.complex128 -0.5, 3.25
  %ch3 = "tfrt.print.complex128"(%c128, %ch2) : (complex<f64>, !tfrt.chain) -> !tfrt.chain
  tfrt.return %ch3 : !tfrt.chain
}
// f16 prints its raw bit pattern; complex constants take (real, imaginary).
// CHECK-NEXT: f16 = 15360
// CHECK-NEXT: complex64 = 1.000000+2.000000i
// CHECK-NEXT: complex128 = -0.500000+3.250000i
// CHECK-NEXT: 'half_and_complex' returned !tfrt.chain value
