// String kernels, resources, atomics, shared contexts.
// RUN: mlir-to-bef %s | bef_executor | FileCheck %s

// CHECK-LABEL: --- Running 'strings':
func.func @strings() -> (!tfrt.string, i1, i1, !tfrt.string, !tfrt.string) {
  %ch = tfrt.new.chain
  %a = tfrt_test.get_string {value = "tick"}
  %b = "tfrt_test.get_string"() {value = "-tock"} : () -> !tfrt.string
  %ab = "tfrt_test.append_string"(%a, %b) : (!tfrt.string, !tfrt.string) -> !tfrt.string
  %ch1 = "tfrt_test.print_string"(%ab, %ch) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  %eq = "tfrt_test.string_equal"(%a, %a) : (!tfrt.string, !tfrt.string) -> i1
  %ne = "tfrt_test.string_equal"(%a, %b) : (!tfrt.string, !tfrt.string) -> i1
  %get = "tfrt_test.async_value_get"() : () -> !tfrt.string
  %fmt = tfrt_test.get_string {value = "n=%03d"}
  %seven = tfrt.constant.i32 7
  %f = "tfrt_test.format_string"(%fmt, %seven) : (!tfrt.string, i32) -> !tfrt.string
  %ch2 = "tfrt_test.print_string"(%get, %ch1) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  %ch3 = "tfrt_test.print_string"(%f, %ch2) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  %out = "tfrt.alias.value"(%ch3, %ab) : (!tfrt.chain, !tfrt.string) -> !tfrt.string
  tfrt.return %out, %eq, %ne, %get, %f : !tfrt.string, i1, i1, !tfrt.string, !tfrt.string
}
// CHECK-NEXT: string = tick-tock
// CHECK-NEXT: string = base1:base2:final_class:3
// CHECK-NEXT: string = n=007
// Values other than scalars print as their type name.
// CHECK-NEXT: 'strings' returned !tfrt.string value,1,0,!tfrt.string value,!tfrt.string value

// CHECK-LABEL: --- Running 'resources':
func.func @resources() -> (i32, !tfrt.string) {
  %ch = tfrt.new.chain
  %r, %ch1 = "tfrt_test.allocate_resource"(%ch) : (!tfrt.chain) -> (!tfrt.test.resource, !tfrt.chain)
  %ch2 = "tfrt_test.deallocate_resource"(%r, %ch1) : (!tfrt.test.resource, !tfrt.chain) -> !tfrt.chain
  %counter = "tfrt_test.atomic.create.i32"() : () -> !test.atomic.i32
  %ch3 = "tfrt_test.atomic.inc.i32"(%counter, %ch2) : (!test.atomic.i32, !tfrt.chain) -> !tfrt.chain
  %five = tfrt.constant.i32 5
  %ch4 = "tfrt_test.atomic.add.i32"(%counter, %five, %ch3) : (!test.atomic.i32, i32, !tfrt.chain) -> !tfrt.chain
  %value, %ch5 = "tfrt_test.atomic.get.i32"(%counter, %ch4) : (!test.atomic.i32, !tfrt.chain) -> (i32, !tfrt.chain)
  %shared, %ch6 = "tfrt_test.use_sample_shared_context"(%ch5) : (!tfrt.chain) -> (!tfrt.string, !tfrt.chain)
  %ch7 = "tfrt_test.print_string"(%shared, %ch6) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  %out = "tfrt.alias.value"(%ch7, %value) : (!tfrt.chain, i32) -> i32
  tfrt.return %out, %shared : i32, !tfrt.string
}
// CHECK-NEXT: Allocated TestResource
// CHECK-NEXT: Destroyed TestResource
// CHECK-NEXT: tfrt_test.deallocate_resource done
// CHECK-NEXT: string = sample_shared_context0
// CHECK-NEXT: 'resources' returned 6,!tfrt.string value
