func.func @f() {
  tfrt.return
}
