func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = ["a", 1 : i32]}
  tfrt.return %c : !tfrt.chain
}
