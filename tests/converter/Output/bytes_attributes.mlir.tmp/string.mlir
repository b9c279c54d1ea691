func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = "ab"}
  tfrt.return %c : !tfrt.chain
}
