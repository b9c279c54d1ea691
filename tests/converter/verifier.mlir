// Parser and verifier messages of the host dialects (bef-opt, as tfrt_opt).
// RUN: bef-opt -allow-unregistered-dialect -split-input-file -verify-diagnostics %s

func.func @callee(%a: i32) -> i32 {
  tfrt.return %a : i32
}
func.func @wrong_operand_count() -> i32 {
  // expected-error @+1 {{'tfrt.call' op incorrect number of operands for callee}}
  %r = tfrt.call @callee() : () -> i32
  tfrt.return %r : i32
}

// -----

func.func @no_such_function() {
  // expected-error @+1 {{'tfrt.call' op 'missing' does not reference a valid function}}
  tfrt.call @missing() : () -> ()
  tfrt.return
}

// -----

func.func @callee(%a: i32) -> i32 {
  tfrt.return %a : i32
}
func.func @operand_type(%x: i64) {
  // expected-error @+1 {{'tfrt.call' op operand type mismatch}}
  %r = tfrt.call @callee(%x) : (i64) -> i32
  tfrt.return
}

// -----

func.func @callee(%a: i32) -> i32 {
  tfrt.return %a : i32
}
func.func @result_type(%x: i32) {
  // expected-error @+1 {{'tfrt.call' op result type mismatch}}
  %r = tfrt.call @callee(%x) : (i32) -> i64
  tfrt.return
}

// -----

func.func @f(%a: i32) -> i32 {
  tfrt.return %a : i32
}
func.func @cond_operands(%c: i1) {
  // expected-error @+1 {{'tfrt.cond' op incorrect number of operands for true function}}
  %r = tfrt.cond %c @f @f () : () -> (i32)
  tfrt.return
}

// -----

func.func @if_result(%c: i1, %x: i32) -> i32 {
  %r = tfrt.if %c, %x : (i32) -> (i32) {
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt.if' result}}
    tfrt.return
  } else {
    tfrt.return %x : i32
  }
  tfrt.return %r : i32
}

// -----

func.func @if_needs_else(%c: i1, %x: i32) -> i32 {
  %r = tfrt.if %c, %x : (i32) -> (i32) {
    tfrt.return %x : i32
  }
  // The parser reports it at the token after the region.
  tfrt.return %r : i32 // expected-error {{expected 'else' in 'tfrt.if' with result values}}
}

// -----

func.func @repeat_types(%n: i32, %x: i32) -> i32 {
  %r = tfrt.repeat.i32 %n, %x : i32 {
    %y = tfrt.constant.i64 1
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt.repeat.i32' result}}
    tfrt.return %y : i64
  }
  tfrt.return %r : i32
}

// -----

func.func @return_count() -> i32 {
  // expected-error @+1 {{'tfrt.return' op has 0 operands, but enclosing function returns 1}}
  tfrt.return
}

// -----

func.func @return_type() -> !tfrt.chain {
  %x = tfrt.constant.i32 1
  // expected-error @+1 {{type of return operand 0 ('i32') doesn't match function result type ('!tfrt.chain')}}
  tfrt.return %x : i32
}

// -----

func.func @range(%s: i32, %e: i64) {
  tfrt.return
}
func.func @parallel_call_indices() -> !tfrt.chain {
  %a = tfrt.constant.i32 0
  // expected-error @+1 {{'tfrt.parallel_call.i32' op callee must take stard and end indices first}}
  %d = tfrt.parallel_call.i32 %a to %a fixed %a @range()
  tfrt.return %d : !tfrt.chain
}

// -----

func.func @benchmark_return() {
  // expected-error @+1 {{'tfrt_test.benchmark' op incorrect number of return values. One return value is expected}}
  tfrt_test.benchmark "none"() duration_secs = 1, max_count = 1 {
    tfrt.return
  }
  tfrt.return
}

// -----

// A static cost must be positive (TFRT's cost interface asserts it).
func.func @zero_cost() -> i32 {
  // expected-error @+1 {{'tfrt_test.test_cost' op cost value must be larger than 0}}
  %x = "tfrt_test.test_cost"() {id = 1 : i64, _tfrt_cost = 0 : i64} : () -> i32
  tfrt.return %x : i32
}

// -----

func.func @negative_cost() -> i32 {
  // expected-error @+1 {{'tfrt_test.test_cost' op cost value must be larger than 0}}
  %x = "tfrt_test.test_cost"() {id = 1 : i64, _tfrt_cost = -3 : i64} : () -> i32
  tfrt.return %x : i32
}

// -----

func.func @const_dense_tensor_result() {
  // expected-error @+1 {{'corert.const_dense_tensor' op result #0 must be !corert.tensorhandle, but got 'i32'}}
  %t = "corert.const_dense_tensor"() {value = dense<1> : tensor<i32>} : () -> i32
  tfrt.return
}
