// A model whose run never ends (tests/serving/careless_operator_test.py):
// a tfrt.while whose body always asks for another iteration.
func.func @step(%x: i32) -> (i32, i1) {
  %one = tfrt.constant.i32 1
  %next = tfrt.add.i32 %x, %one
  %more = tfrt.constant.i1 true
  tfrt.return %next, %more : i32, i1
}

func.func @main(%x: i32) -> i32 {
  %t = tfrt.constant.i1 true
  %r = tfrt.while %t @step(%x) parallel_iterations(1) : (i32) -> (i32)
  tfrt.return %r : i32
}
