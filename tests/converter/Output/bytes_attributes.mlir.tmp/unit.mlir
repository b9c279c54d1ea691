func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a}
  tfrt.return %c : !tfrt.chain
}
