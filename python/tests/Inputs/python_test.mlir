// Functions the Python package's tests call (python/tests/); an input, not
// a lit test.
func.func @empty() {
  tfrt.return
}

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @scalars(%b: i1, %i8: i8, %i32: i32, %i64: i64, %u8: ui8, %u32: ui32, %u64: ui64, %f32: f32, %f64: f64, %s: !tfrt.string) -> (i1, i8, i32, i64, ui8, ui32, ui64, f32, f64, !tfrt.string) {
  tfrt.return %b, %i8, %i32, %i64, %u8, %u32, %u64, %f32, %f64, %s : i1, i8, i32, i64, ui8, ui32, ui64, f32, f64, !tfrt.string
}

// Chains are supplied and dropped by the package: called as with_chains(x).
func.func @with_chains(%c0: !tfrt.chain, %x: i32) -> (!tfrt.chain, i32) {
  tfrt.return %c0, %x : !tfrt.chain, i32
}

func.func @echo_tensor(%t: !tfrt_tensor.tensor) -> !tfrt_tensor.tensor {
  tfrt.return %t : !tfrt_tensor.tensor
}

// Writes its tensor: every element 2.5 (the caller's array must not change).
func.func @fill(%t: !tfrt_tensor.tensor, %c0: !tfrt.chain) -> (!tfrt_tensor.tensor, !tfrt.chain) {
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %t, %c0 2.5 : f32
  tfrt.return %t, %c1 : !tfrt_tensor.tensor, !tfrt.chain
}

// A tensor on a buffer the runtime allocated (writable in Python).
func.func @new_tensor() -> !tfrt_tensor.tensor {
  %c0 = tfrt.new.chain
  %t = tfrt_dht.create_uninitialized_tensor.f32.2 [2, 3]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %t, %c0 1.5 : f32
  %t1 = "tfrt_test.identity"(%c1, %t) : (!tfrt.chain, !tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  tfrt.return %t1 : !tfrt_tensor.tensor
}

// A tensor viewing the BEF file's dense attribute (read-only in Python).
func.func @constant_tensor() -> !tfrt_tensor.tensor {
  %t = "tfrt_test.const_dense_attr"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>} : () -> !tfrt_tensor.tensor
  tfrt.return %t : !tfrt_tensor.tensor
}

func.func @string_tensor() -> !tfrt_tensor.tensor {
  %t = "tfrt_sht.create_tensor"() {shape = [2, 2], values = ["north", "", "a \22quoted\22 word", "süd"]} : () -> !tfrt_tensor.tensor
  tfrt.return %t : !tfrt_tensor.tensor
}

// !ts.shape has no Python form: a bef.Value, accepted back by num_elements.
func.func @shape_of(%t: !tfrt_tensor.tensor) -> !ts.shape {
  %s = tfrt_dht.get_tensor_shape %t
  tfrt.return %s : !ts.shape
}

func.func @num_elements(%s: !ts.shape) -> i64 {
  %n = ts.get_num_elements %s
  tfrt.return %n : i64
}

func.func @fail(%x: i32) -> i32 {
  %y = "tfrt_test.fail"() : () -> i32
  tfrt.return %y : i32
}

// Counts to `n` in `n` iterations: with a large n, long enough to cancel.
func.func @spin(%n: i32) -> i32 {
  %zero = tfrt.constant.i32 0
  %one = tfrt.constant.i32 1
  %r, %u = tfrt.repeat.i32 %n, %zero, %one : i32, i32 {
    %next = tfrt.add.i32 %zero, %one
    tfrt.return %next, %one : i32, i32
  }
  tfrt.return %r : i32
}

// Compares two f32 tensors (tensors of another dtype are an error).
func.func @eq_f32(%a: !tfrt_tensor.tensor, %b: !tfrt_tensor.tensor) -> i1 {
  %c0 = tfrt.new.chain
  %eq, %c1 = "tfrt_dht.tensor_equal.f32"(%a, %b, %c0) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  tfrt.return %eq : i1
}
