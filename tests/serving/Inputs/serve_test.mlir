// Functions tests/serving/bef_serve_test.py calls over HTTP (an input, not a
// lit test).
func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @scalars(%flag: i1, %x: i64, %y: f32, %z: f64, %s: !tfrt.string) -> (i1, i64, f32, f64, !tfrt.string) {
  tfrt.return %flag, %x, %y, %z, %s : i1, i64, f32, f64, !tfrt.string
}

// Writes the caller's tensor: every element 2.5.
func.func @fill(%t: !tfrt_tensor.tensor, %c0: !tfrt.chain) -> (!tfrt_tensor.tensor, !tfrt.chain) {
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %t, %c0 2.5 : f32
  tfrt.return %t, %c1 : !tfrt_tensor.tensor, !tfrt.chain
}

func.func @echo_tensor(%t: !tfrt_tensor.tensor) -> !tfrt_tensor.tensor {
  tfrt.return %t : !tfrt_tensor.tensor
}

func.func @constant_tensor() -> !tfrt_tensor.tensor {
  %t = "tfrt_test.const_dense_attr"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>} : () -> !tfrt_tensor.tensor
  tfrt.return %t : !tfrt_tensor.tensor
}

func.func @fail(%x: i32) -> i32 {
  %y = "tfrt_test.fail"() : () -> i32
  tfrt.return %y : i32
}

// Counts to `n` in `n` iterations (returns n): with a large n, long enough
// for a short deadline to cancel it.
func.func @spin(%n: i32) -> i32 {
  %zero = tfrt.constant.i32 0
  %one = tfrt.constant.i32 1
  %r, %u = tfrt.repeat.i32 %n, %zero, %one : i32, i32 {
    %next = tfrt.add.i32 %zero, %one
    tfrt.return %next, %one : i32, i32
  }
  tfrt.return %r : i32
}

// Takes a tensor and answers 1 (large request bodies with small answers).
func.func @consume(%t: !tfrt_tensor.tensor) -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

// The model of the single-file form (/v2/models/serve_test): the sum.
func.func @main(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}
