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

def HT_Dialect : Dialect {
  let name = "ht";
  let summary = "Host buffers";
  let cppNamespace = "::bef::converter::ht";
  let useDefaultTypePrinterParser = 1;
}

def HT_HostBufferType : TypeDef<HT_Dialect, "HostBuffer"> {
  let mnemonic = "host_buffer";
  let summary = "!ht.host_buffer type";
}

//===----------------------------------------------------------------------===//
// ts: tensor shapes (host-tensors.md §3, §5.7). Unknown ops are not allowed.
//===----------------------------------------------------------------------===//

def TS_Dialect : Dialect {
  let name = "ts";
  let summary = "Tensor shapes";
  let cppNamespace = "::bef::converter::ts";
  let dependentDialects = ["::bef::converter::tfrt::TFRTDialect"];
  let extraClassDeclaration = [{
    mlir::Type parseType(mlir::DialectAsmParser& parser) const override;
    void printType(mlir::Type type,
                   mlir::DialectAsmPrinter& printer) const override;
  }];
}

def TS_ShapeType : TypeDef<TS_Dialect, "Shape"> {
  let mnemonic = "shape";
  let summary = "!ts.shape type";
}
def TS_PartialShapeType : TypeDef<TS_Dialect, "PartialShape"> {
  let mnemonic = "partial_shape";
  let summary = "!ts.partial_shape type";
}

// `!ts.fixed_rank_shape.N`: an opaque type of the ts dialect, as in TFRT.
class TS_FixedRankShape<int rank>
    : Type<CPred<"::llvm::isa<::mlir::OpaqueType>($_self) && "
                 "::llvm::cast<::mlir::OpaqueType>($_self).getTypeData() == "
                 "\"fixed_rank_shape." # rank # "\"">,
           "fixed_rank_shape">,
      BuildableType<"::mlir::OpaqueType::get($_builder.getStringAttr(\"ts\"), "
                    "\"fixed_rank_shape." # rank # "\")">;

class TS_Op<string mnemonic, list<Trait> traits = []>
    : Op<TS_Dialect, mnemonic, traits>;

def TS_BuildShapeOp : TS_Op<"build_shape", [Pure]> {
  let summary = "ts.build_shape operation";
  let arguments = (ins I64ArrayAttr:$value);
  let results = (outs TS_ShapeType);
  let assemblyFormat = "$value attr-dict";
}
def TS_PrintShapeOp : TS_Op<"print_shape"> {
  let summary = "ts.print_shape operation";
  let arguments = (ins TS_ShapeType:$shape, TFRT_ChainType:$in_chain);
  let results = (outs TFRT_ChainType);
  let assemblyFormat = "operands attr-dict";
}
def TS_EqualShapeOp : TS_Op<"equal_shape", [Pure]> {
  let summary = "ts.equal_shape operation";
  let arguments = (ins TS_ShapeType:$lhs, TS_ShapeType:$rhs);
  let results = (outs I1);
  let assemblyFormat = "operands attr-dict";
}
def TS_GetDimensionOp : TS_Op<"get_dimension", [Pure]> {
  let summary = "ts.get_dimension operation";
  let arguments = (ins TS_ShapeType:$shape, I32:$index);
  let results = (outs I64);
  let assemblyFormat = "operands attr-dict";
}
def TS_GetNumElementsOp : TS_Op<"get_num_elements", [Pure]> {
  let summary = "ts.get_num_elements operation";
  let arguments = (ins TS_ShapeType:$shape);
  let results = (outs I64);
  let assemblyFormat = "operands attr-dict";
}
foreach rank = [0, 1, 2, 3] in {
  def TS_AsFixedRankShapeOp # rank : TS_Op<"as_fixed_rank_shape." # rank, [Pure]> {
    let summary = "ts.as_fixed_rank_shape operation";
    let arguments = (ins TS_ShapeType:$shape);
    let results = (outs TS_FixedRankShape<rank>);
    let assemblyFormat = "operands attr-dict";
  }
  def TS_PrintFixedRankShapeOp # rank : TS_Op<"print_fixed_rank_shape." # rank> {
    let summary = "ts.print_fixed_rank_shape operation";
    let arguments = (ins TS_FixedRankShape<rank>:$shape, TFRT_ChainType:$in_chain);
    let results = (outs TFRT_ChainType);
    let assemblyFormat = "operands attr-dict";
  }
}
def TS_BuildPartialShapeOp : TS_Op<"build_partial_shape", [Pure]> {
  let summary = "ts.build_partial_shape operation";
  let arguments = (ins I64ArrayAttr:$value);
  let results = (outs TS_PartialShapeType);
  let assemblyFormat = "$value attr-dict";
}
def TS_BuildUnrankedPartialShapeOp
    : TS_Op<"build_unranked_partial_shape", [Pure]> {
  let summary = "ts.build_unranked_partial_shape operation";
  let results = (outs TS_PartialShapeType);
  let assemblyFormat = "attr-dict";
}
def TS_PrintPartialShapeOp : TS_Op<"print_partial_shape"> {
  let summary = "ts.print_partial_shape operation";
  let arguments = (ins TS_PartialShapeType:$shape, TFRT_ChainType:$in_chain);
  let results = (outs TFRT_ChainType);
  let assemblyFormat = "operands attr-dict";
}
def TS_ToShapeOp : TS_Op<"to_shape"> {
  let summary = "ts.to_shape operation";
  let arguments = (ins TS_PartialShapeType:$shape);
  let results = (outs TS_ShapeType);
  let assemblyFormat = "operands attr-dict";
}
def TS_ToPartialShapeOp : TS_Op<"to_partial_shape", [Pure]> {
  let summary = "ts.to_partial_shape operation";
  let arguments = (ins TS_ShapeType:$shape);
  let results = (outs TS_PartialShapeType);
  let assemblyFormat = "operands attr-dict";
}

def TFRT_DHT_Dialect : Dialect {
  let name = "tfrt_dht";
  let summary = "Dense host tensor ops";
  let cppNamespace = "::bef::converter::tfrt_dht";
  // Loading tfrt_dht loads every dialect whose types its ops build (TFRT's
  // translator crashes on get_tensor_shape when `ts` is not loaded yet).
  let dependentDialects = ["::bef::converter::tfrt::TFRTDialect",
                           "::bef::converter::tfrt_tensor::TFRTTensorDialect",
                           "::bef::converter::ht::HTDialect",
                           "::bef::converter::ts::TSDialect"];
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

// Ops with custom syntax for these dtypes; other dtypes (f64, i8, f16, bf16),
// rank 5 and the other kernels are written in generic form (as in TFRT).
foreach dtype = ["ui8", "ui16", "ui32", "ui64", "i32", "f32", "i64", "bool",
                 "complex64", "complex128"] in {
  foreach rank = [0, 1, 2, 3, 4] in {
    def DHT_CreateUninitializedTensorOp # dtype # rank
        : DHT_Op<"create_uninitialized_tensor." # dtype # "." # rank> {
      let summary = "tfrt_dht.create_uninitialized_tensor operation";
      let arguments = (ins I64ArrayAttr:$shape);
      let results = (outs TFRT_TensorType);
      let assemblyFormat = "$shape attr-dict";
    }
  }
  def DHT_FillTensorWithConstantOp # dtype
      : DHT_Op<"fill_tensor_with_constant." # dtype> {
    let summary = "tfrt_dht.fill_tensor_with_constant operation";
    let arguments = (ins TFRT_TensorType:$tensor, TFRT_ChainType:$in_chain,
                     AnyAttr:$value);
    let results = (outs TFRT_ChainType);
    let assemblyFormat = "operands $value attr-dict";
  }
  def DHT_SetTensorWithConstantValuesOp # dtype
      : DHT_Op<"set_tensor_with_constant_values." # dtype> {
    let summary = "tfrt_dht.set_tensor_with_constant_values operation";
    let arguments = (ins TFRT_TensorType:$tensor, TFRT_ChainType:$in_chain,
                     ArrayAttr:$values);
    let results = (outs TFRT_ChainType);
    let assemblyFormat = "operands $values attr-dict";
  }
  def DHT_MakeTensorOp # dtype : DHT_Op<"make_tensor." # dtype> {
    let summary = "tfrt_dht.make_tensor operation";
    let arguments = (ins HT_HostBufferType:$buffer, TS_ShapeType:$shape,
                     TFRT_ChainType:$in_chain);
    let results = (outs TFRT_TensorType, TFRT_ChainType);
    let assemblyFormat = "operands attr-dict";
  }
}

def DHT_AllocateBufferOp : DHT_Op<"allocate_buffer"> {
  let summary = "tfrt_dht.allocate_buffer operation";
  let arguments = (ins I64:$size, I64:$alignment);
  let results = (outs HT_HostBufferType);
  let assemblyFormat = "operands attr-dict";
}
def DHT_GetBufferOp : DHT_Op<"get_buffer"> {
  let summary = "tfrt_dht.get_buffer operation";
  let arguments = (ins TFRT_TensorType:$tensor, TFRT_ChainType:$in_chain);
  let results = (outs HT_HostBufferType, TFRT_ChainType);
  let assemblyFormat = "operands attr-dict";
}
def DHT_GetBufferSliceOp : DHT_Op<"get_buffer_slice"> {
  let summary = "tfrt_dht.get_buffer_slice operation";
  let arguments = (ins HT_HostBufferType:$parent, I64:$offset, I64:$size);
  let results = (outs HT_HostBufferType);
  let assemblyFormat = "operands attr-dict";
}
def DHT_PrintBufferOp : DHT_Op<"print_buffer"> {
  let summary = "tfrt_dht.print_buffer operation";
  let arguments = (ins HT_HostBufferType:$buffer, TFRT_ChainType:$in_chain);
  let results = (outs TFRT_ChainType);
  let assemblyFormat = "operands attr-dict";
}
def DHT_GetTensorShapeOp : DHT_Op<"get_tensor_shape"> {
  let summary = "tfrt_dht.get_tensor_shape operation";
  let arguments = (ins TFRT_TensorType:$tensor);
  let results = (outs TS_ShapeType);
  let assemblyFormat = "operands attr-dict";
}

//===----------------------------------------------------------------------===//
// coo: COO sparse tensor ops (host-tensors.md §5.6), all with custom syntax.
//===----------------------------------------------------------------------===//

def COO_Dialect : Dialect {
  let name = "coo";
  let summary = "COO sparse host tensors";
  let cppNamespace = "::bef::converter::coo";
  let dependentDialects = ["::bef::converter::tfrt::TFRTDialect",
                           "::bef::converter::tfrt_tensor::TFRTTensorDialect"];
}

class COO_Op<string mnemonic, list<Trait> traits = []>
    : Op<COO_Dialect, mnemonic, traits>;

foreach dtype = ["i32", "f32"] in {
  foreach rank = [0, 1, 2, 3] in {
    def COO_ConvertDhtToCooOp # dtype # rank
        : COO_Op<"convert_dht_to_coo." # dtype # "." # rank> {
      let summary = "coo.convert_dht_to_coo operation";
      let arguments = (ins TFRT_TensorType:$input, TFRT_ChainType:$in_chain);
      let results = (outs TFRT_TensorType, TFRT_ChainType);
      let assemblyFormat = "operands attr-dict";
    }
    def COO_ConvertCooToDhtOp # dtype # rank
        : COO_Op<"convert_coo_to_dht." # dtype # "." # rank> {
      let summary = "coo.convert_coo_to_dht operation";
      let arguments = (ins TFRT_TensorType:$input, TFRT_ChainType:$in_chain);
      let results = (outs TFRT_TensorType, TFRT_ChainType);
      let assemblyFormat = "operands attr-dict";
    }
    def COO_TensorEqualOp # dtype # rank
        : COO_Op<"tensor_equal." # dtype # "." # rank> {
      let summary = "coo.tensor_equal operation";
      let arguments = (ins TFRT_TensorType:$lhs, TFRT_TensorType:$rhs,
                       TFRT_ChainType:$in_chain);
      let results = (outs I1, TFRT_ChainType);
      let assemblyFormat = "operands attr-dict";
    }
  }
}

// An op definition without a kernel (as in TFRT).
def COO_PrintTensorOp : COO_Op<"print_tensor"> {
  let summary = "coo.print_tensor operation";
  let arguments = (ins TFRT_TensorType:$input, TFRT_ChainType:$in_chain);
  let results = (outs TFRT_ChainType);
  let assemblyFormat = "operands attr-dict";
}

//===----------------------------------------------------------------------===//
// tfrt_dht_sync: op definitions without kernels (host-tensors.md §6).
//===----------------------------------------------------------------------===//

def TFRT_DHT_Sync_Dialect : Dialect {
  let name = "tfrt_dht_sync";
  let summary = "Dense host tensor ops for sync functions (no kernels)";
  let cppNamespace = "::bef::converter::tfrt_dht_sync";
  let dependentDialects = ["::bef::converter::tfrt_dht::TFRTDHTDialect"];
}

class DHT_Sync_Op<string mnemonic, list<Trait> traits = []>
    : Op<TFRT_DHT_Sync_Dialect, mnemonic, traits>;

foreach dtype = ["ui8", "ui16", "ui32", "ui64", "i32", "f32", "i64", "bool",
                 "complex64", "complex128"] in {
  foreach rank = [0, 1, 2, 3, 4] in {
    def DHTSync_CreateUninitializedTensorOp # dtype # rank
        : DHT_Sync_Op<"create_uninitialized_tensor." # dtype # "." # rank> {
      let summary = "tfrt_dht_sync.create_uninitialized_tensor operation";
      let arguments = (ins I64ArrayAttr:$shape);
      let results = (outs TFRT_TensorType);
      let assemblyFormat = "$shape attr-dict";
    }
  }
  def DHTSync_SetTensorWithConstantValuesOp # dtype
      : DHT_Sync_Op<"set_tensor_with_constant_values." # dtype> {
    let summary = "tfrt_dht_sync.set_tensor_with_constant_values operation";
    let arguments = (ins TFRT_TensorType:$tensor, ArrayAttr:$values);
    let assemblyFormat = "operands $values attr-dict";
  }
  def DHTSync_MakeTensorOp # dtype : DHT_Sync_Op<"make_tensor." # dtype> {
    let summary = "tfrt_dht_sync.make_tensor operation";
    let arguments = (ins HT_HostBufferType:$buffer, TS_ShapeType:$shape);
    let results = (outs TFRT_TensorType);
    let assemblyFormat = "operands attr-dict";
  }
}

def DHTSync_PrintTensorOp : DHT_Sync_Op<"print_tensor"> {
  let summary = "tfrt_dht_sync.print_tensor operation";
  let arguments = (ins TFRT_TensorType:$tensor);
  let assemblyFormat = "operands attr-dict";
}
def DHTSync_AllocateBufferOp : DHT_Sync_Op<"allocate_buffer"> {
  let summary = "tfrt_dht_sync.allocate_buffer operation";
  let arguments = (ins I64:$size, I64:$alignment);
  let results = (outs HT_HostBufferType);
  let assemblyFormat = "operands attr-dict";
}
def DHTSync_GetTensorShapeOp : DHT_Sync_Op<"get_tensor_shape"> {
  let summary = "tfrt_dht_sync.get_tensor_shape operation";
  let arguments = (ins TFRT_TensorType:$tensor);
  let results = (outs TS_ShapeType);
  let assemblyFormat = "operands attr-dict";
}
def DHTSync_GetBufferSliceOp : DHT_Sync_Op<"get_buffer_slice"> {
  let summary = "tfrt_dht_sync.get_buffer_slice operation";
  let arguments = (ins HT_HostBufferType:$parent, I64:$offset, I64:$size);
  let results = (outs HT_HostBufferType);
  let assemblyFormat = "operands attr-dict";
}

#endif  // BEF_CONVERTER_TENSOR_OPS_TD_
