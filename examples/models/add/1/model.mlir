// Model `add`, version 1: the sum of two INT32 scalars.
func.func @main(%a: i32, %b: i32) -> i32 {
  %sum = tfrt.add.i32 %a, %b
  tfrt.return %sum : i32
}
