func.func @f() -> i32 {
  %n = tfrt.constant.i32 2
  %r = tfrt.repeat.i32 %n, %n : i32 {
    tfrt.return %n : i32
  }
  tfrt.return %r : i32
}
