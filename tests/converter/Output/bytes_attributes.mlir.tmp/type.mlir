func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = f32}
  tfrt.return %c : !tfrt.chain
}
