// Model `fill`: returns its FP32 tensor with every element set to 2.5. The
// chain argument is supplied by the server and the chain result left out:
// clients see one input `x` and one output `y`.
func.func @main(%x: !tfrt_tensor.tensor, %c0: !tfrt.chain) -> (!tfrt_tensor.tensor, !tfrt.chain) {
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %x, %c0 2.5 : f32
  tfrt.return %x, %c1 : !tfrt_tensor.tensor, !tfrt.chain
}
