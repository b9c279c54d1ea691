func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = 1.0 : f64}
  tfrt.return %c : !tfrt.chain
}
