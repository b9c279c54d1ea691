func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = 42 : i32}
  tfrt.return %c : !tfrt.chain
}
