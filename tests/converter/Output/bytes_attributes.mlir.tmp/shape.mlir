func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = #corert.shape<2x?>}
  tfrt.return %c : !tfrt.chain
}
