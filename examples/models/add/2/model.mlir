// Model `add`, version 2: the sum doubled (so a client can tell the versions
// apart: /v2/models/add/versions/1/infer and .../versions/2/infer).
func.func @main(%a: i32, %b: i32) -> i32 {
  %sum = tfrt.add.i32 %a, %b
  %double = tfrt.add.i32 %sum, %sum
  tfrt.return %double : i32
}
