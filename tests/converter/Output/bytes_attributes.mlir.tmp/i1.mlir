func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = true}
  tfrt.return %c : !tfrt.chain
}
