// Version 2 of the `add` model of tests/serving/inference_protocol_test.py:
// the sum plus 1000, so a test can tell the versions apart.
func.func @add(%a: i32, %b: i32) -> i32 {
  %sum = tfrt.add.i32 %a, %b
  %thousand = tfrt.constant.i32 1000
  %c = tfrt.add.i32 %sum, %thousand
  tfrt.return %c : i32
}
