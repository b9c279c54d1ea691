// The functions of the call-overhead benchmark (benchmarks/
// python_call_overhead.py, benchmarks/embedding_call_overhead.cc): what a
// call costs around the program, from Python and from C++.
func.func @empty() {
  tfrt.return
}

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

// The 1 MB round trip: a tensor in, the same tensor out.
func.func @echo_tensor(%t: !tfrt_tensor.tensor) -> !tfrt_tensor.tensor {
  tfrt.return %t : !tfrt_tensor.tensor
}

// A loop of n iterations (tfrt.repeat.i32): the parallel-runs case, where
// the caller's threads run it concurrently (the GIL released).
func.func @spin(%n: i32) -> i32 {
  %zero = tfrt.constant.i32 0
  %one = tfrt.constant.i32 1
  %r, %u = tfrt.repeat.i32 %n, %zero, %one : i32, i32 {
    %next = tfrt.add.i32 %zero, %one
    tfrt.return %next, %one : i32, i32
  }
  tfrt.return %r : i32
}
