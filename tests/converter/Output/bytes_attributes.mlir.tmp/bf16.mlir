func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = 1.0 : bf16}
  tfrt.return %c : !tfrt.chain
}
