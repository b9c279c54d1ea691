func.func @f() -> (i32, i32, i32) {
  %a = "tfrt_test.fail"() : () -> i32 loc("n"("x.py":3:4))
  %b = "tfrt_test.fail"() : () -> i32 loc(callsite("c.py":1:2 at "d.py":5:6))
  %c = "tfrt_test.fail"() : () -> i32 loc(fused["e.py":7:8, "m"])
  tfrt.return %a, %b, %c : i32, i32, i32
}
