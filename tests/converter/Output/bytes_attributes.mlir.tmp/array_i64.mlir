func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = [7]}
  tfrt.return %c : !tfrt.chain
}
