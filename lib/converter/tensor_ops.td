// Host tensor dialects (../shared/spec/host-tensors.md §1.1), so far:
// `tfrt_tensor` (the type !tfrt_tensor.tensor) and `tfrt_dht` with the ops
// whose kernels exist; other tfrt_dht names are written in generic form
// (the dialect allows unknown ops, as in TFRT).
#ifndef BEF_CONVERTER_TENSOR_OPS_TD_
#define BEF_CONVERTER_TENSOR_OPS_TD_

include "lib/converter/basic_ops.td"

def TFRT_Tensor_Dialect : Dialect {
  let name = "tfrt_tensor";
  let summary = "Host tensor types";
  let cppNamespace = "::bef::converter::tfrt_tensor";
  let useDefaultTypePrinterParser = 1;
}

def TFRT_TensorType : TypeDef<TFRT_Tensor_Dialect, "Tensor"> {
  let mnemonic = "tensor";
  let summary = "!tfrt_tensor.tensor type";
}

def TFRT_DHT_Dialect : Dialect {
  let name = "tfrt_dht";
  let summary = "Dense host tensor ops";
  let cppNamespace = "::bef::converter::tfrt_dht";
  let dependentDialects = ["::bef::converter::tfrt::TFRTDialect",
                           "::bef::converter::tfrt_tensor::TFRTTensorDialect"];
}

class DHT_Op<string mnemonic, list<Trait> traits = []>
    : Op<TFRT_DHT_Dialect, mnemonic, traits>;

def PrintTensorOp : DHT_Op<"print_tensor"> {
  let summary = "tfrt_dht.print_tensor operation";
  let arguments = (ins TFRT_TensorType:$input, TFRT_ChainType:$in_chain);
  let results = (outs TFRT_ChainType);
  let assemblyFormat = "operands attr-dict";
}

// tfrt_dht.tensor_equal.T: (tensor, tensor, chain) -> (i1, chain). Op
// definitions exist for these T; other dtypes use the generic form.
foreach dtype = ["ui8", "ui16", "ui32", "ui64", "i32", "f32", "i64", "bool",
                 "complex64", "complex128"] in {
  def DHT_TensorEqualOp # dtype : DHT_Op<"tensor_equal." # dtype> {
    let summary = "tfrt_dht.tensor_equal operation";
    let arguments = (ins TFRT_TensorType:$lhs, TFRT_TensorType:$rhs,
                     TFRT_ChainType:$in_chain);
    let results = (outs I1, TFRT_ChainType);
    let assemblyFormat = "operands attr-dict";
  }
}

#endif  // BEF_CONVERTER_TENSOR_OPS_TD_
