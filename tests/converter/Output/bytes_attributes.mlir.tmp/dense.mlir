func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = dense<[1, 2]> : tensor<2xi32>}
  tfrt.return %c : !tfrt.chain
}
