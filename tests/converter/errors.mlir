// mlir-to-bef's conversion errors (exact TFRT messages), checked with
// --verify-diagnostics, one input chunk per error.
// RUN: mlir-to-bef --split-input-file --verify-diagnostics %s -o /dev/null
// RUN: not mlir-to-bef %s 2>&1 | FileCheck %s

// Without --verify-diagnostics the first error is printed with a note
// showing the op in generic form, and the exit status is 1.
// CHECK: errors.mlir:[[@LINE+3]]:8: error: BEF files cannot encode the 'flag' attribute
// CHECK-NEXT: %c = tfrt.new.chain {flag}
func.func @unit_attribute() -> !tfrt.chain {
  %c = tfrt.new.chain {flag} // expected-error {{BEF files cannot encode the 'flag' attribute}}
  tfrt.return %c : !tfrt.chain
}
// CHECK: note: see current operation: %0 = "tfrt.new.chain"() {flag} : () -> !tfrt.chain

// -----

func.func @dictionary() -> !tfrt.chain {
  %c = tfrt.new.chain {d = {a = 1 : i32}} // expected-error {{BEF files cannot encode the 'd' attribute}}
  tfrt.return %c : !tfrt.chain
}

// -----

// expected-error @+1 {{external functions are not allowed}}
func.func private @declared_only(%a: i32) -> i32

// -----

func.func @wrong_return() -> i32 {
  %x = tfrt.constant.i32 3
  func.return %x : i32 // expected-error {{all functions need to have a tfrt.return}}
}

// -----

func.func @sync_returns_argument(%a: i32) -> i32 attributes {tfrt.sync} {
  tfrt.return %a : i32 // expected-error {{return value 0 is an argument in a sync function}}
}

// -----

func.func @sync_returns_twice() -> (i32, i32) attributes {tfrt.sync} {
  %r = "tfrt_test.sync_sum_attributes"() {v = 1 : i32} : () -> i32
  tfrt.return %r, %r : i32, i32 // expected-error {{return value 1 is duplicated in a sync function}}
}

// -----

// expected-error @+1 {{multi-block regions cannot be emitted to BEF files}}
func.func @two_blocks() -> i32 {
  %x = tfrt.constant.i32 3
  tfrt.return %x : i32
^unreachable:
  %y = tfrt.constant.i32 4
  tfrt.return %y : i32
}

// -----

func.func @undefined_function() -> !tfrt.chain {
  %c = tfrt.new.chain {target = @nowhere} // expected-error {{function @nowhere not defined}}
  tfrt.return %c : !tfrt.chain
}

// -----

func.func @capture() -> i32 {
  %x = tfrt.constant.i32 3
  "test.wrapper"() ({
    %y = tfrt.add.i32 %x, %x // expected-error {{BEF executor only supports references to kernels within the current region}}
    tfrt.return
  }) : () -> ()
  tfrt.return %x : i32
}
