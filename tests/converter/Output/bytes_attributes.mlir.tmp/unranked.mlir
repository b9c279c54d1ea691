func.func @f() -> !tfrt.chain {
  %c = tfrt.new.chain {a = #corert.shape<*>}
  tfrt.return %c : !tfrt.chain
}
