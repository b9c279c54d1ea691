// The `tfrt` dialect: types and ops of the basic kernels
// (../shared/spec/host-dialects.md §1-2). Op names, operand order, attribute
// names and custom syntax follow TFRT; ops that TFRT registers as kernels
// only (tfrt.minus.i32, tfrt.cast.*, ...) are not defined: the dialect allows
// unknown ops, so they are written in generic form.
#ifndef BEF_CONVERTER_BASIC_OPS_TD_
#define BEF_CONVERTER_BASIC_OPS_TD_

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def F16Attr : FloatAttrBase<F16, "16-bit float attribute">;
def BF16Attr : TypedAttrBase<BF16, "FloatAttr",
    And<[CPred<"::llvm::isa<::mlir::FloatAttr>($_self)">,
         CPred<"::llvm::cast<::mlir::FloatAttr>($_self).getType().isBF16()">]>,
    "bfloat16 attribute"> {
  let returnType = [{ ::llvm::APFloat }];
}

def TFRT_Dialect : Dialect {
  let name = "tfrt";
  let summary = "Host executor basic kernels";
  let cppNamespace = "::bef::converter::tfrt";
  let useDefaultTypePrinterParser = 0;
  let hasConstantMaterializer = 0;
  let extraClassDeclaration = [{
    mlir::Type parseType(mlir::DialectAsmParser& parser) const override;
    void printType(mlir::Type type,
                   mlir::DialectAsmPrinter& printer) const override;
  }];
}

class TFRT_Type<string name, string type_mnemonic>
    : TypeDef<TFRT_Dialect, name> {
  let mnemonic = type_mnemonic;
}

def TFRT_ChainType : TFRT_Type<"Chain", "chain"> {
  let summary = "!tfrt.chain type";
}
def TFRT_StringType : TFRT_Type<"String", "string"> {
  let summary = "!tfrt.string type";
}
def TFRT_TensorTypeType : TFRT_Type<"TensorType", "tensor_type"> {
  let summary = "!tfrt.tensor_type type";
}
def TFRT_DeviceType : TFRT_Type<"Device", "device"> {
  let summary = "!tfrt.device type";
}

class TFRT_Op<string mnemonic, list<Trait> traits = []>
    : Op<TFRT_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

class ConstantOp<string suffix, Type type, Attr attr>
    : TFRT_Op<"constant." # suffix, [Pure]> {
  let summary = "tfrt.constant." # suffix # " operation";
  let arguments = (ins attr:$value);
  let results = (outs type);
  let assemblyFormat = "$value attr-dict";
}

def ConstantI1Op : ConstantOp<"i1", I1, I1Attr>;
def ConstantI32Op : ConstantOp<"i32", I32, I32Attr>;
def ConstantI64Op : ConstantOp<"i64", I64, I64Attr>;
def ConstantUI32Op : ConstantOp<"ui32", UI32, UI32Attr>;
def ConstantUI64Op : ConstantOp<"ui64", UI64, UI64Attr>;
def ConstantF16Op : ConstantOp<"f16", F16, F16Attr>;
def ConstantBF16Op : ConstantOp<"bf16", BF16, BF16Attr>;
def ConstantF32Op : ConstantOp<"f32", F32, F32Attr>;
def ConstantF64Op : ConstantOp<"f64", F64, F64Attr>;

class ConstantComplexOp<string suffix, Type element, Attr attr>
    : TFRT_Op<"constant." # suffix, [Pure]> {
  let summary = "tfrt.constant." # suffix # " operation";
  let arguments = (ins attr:$real, attr:$imaginary);
  let results = (outs Complex<element>);
  let assemblyFormat = "$real `,` $imaginary attr-dict";
}

def ConstantComplex64Op : ConstantComplexOp<"complex64", F32, F32Attr>;
def ConstantComplex128Op : ConstantComplexOp<"complex128", F64, F64Attr>;

// Sync-function constants: op definitions without kernels at TFRT HEAD.
class ConstantSyncOp<string suffix, Type type, Attr attr>
    : TFRT_Op<"constant_s." # suffix, [Pure]> {
  let summary = "tfrt.constant_s." # suffix # " operation";
  let arguments = (ins attr:$value);
  let results = (outs type);
  let assemblyFormat = "$value attr-dict";
}

def ConstantSyncI64Op : ConstantSyncOp<"i64", I64, I64Attr>;
def ConstantSyncF16Op : ConstantSyncOp<"f16", F16, F16Attr>;
def ConstantSyncF32Op : ConstantSyncOp<"f32", F32, F32Attr>;
def ConstantSyncF64Op : ConstantSyncOp<"f64", F64, F64Attr>;

//===----------------------------------------------------------------------===//
// Arithmetic, comparison, boolean
//===----------------------------------------------------------------------===//

class BinaryOp<string name, Type type, Type result>
    : TFRT_Op<name, [Pure]> {
  let summary = "tfrt." # name # " operation";
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs result);
  let assemblyFormat = "operands attr-dict";
}

def AddI32Op : BinaryOp<"add.i32", I32, I32>;
def AddI64Op : BinaryOp<"add.i64", I64, I64>;
def AddF32Op : BinaryOp<"add.f32", F32, F32>;
def AddF64Op : BinaryOp<"add.f64", F64, F64>;
def MulI32Op : BinaryOp<"mul.i32", I32, I32>;
def MulI64Op : BinaryOp<"mul.i64", I64, I64>;
def MulSyncI32Op : BinaryOp<"mul_s.i32", I32, I32>;
def MulSyncI64Op : BinaryOp<"mul_s.i64", I64, I64>;
def EqualI32Op : BinaryOp<"equal.i32", I32, I1>;
def EqualI64Op : BinaryOp<"equal.i64", I64, I1>;
def AndI1Op : BinaryOp<"and.i1", I1, I1>;

class DivOp<string suffix, Type type> : TFRT_Op<"div." # suffix> {
  let summary = "tfrt.div." # suffix # " operation";
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type, type);
  let assemblyFormat = "operands attr-dict";
}

def DivI32Op : DivOp<"i32", I32>;
def DivI64Op : DivOp<"i64", I64>;

//===----------------------------------------------------------------------===//
// Printing, chains, devices
//===----------------------------------------------------------------------===//

class PrintOp<string suffix, Type type> : TFRT_Op<"print." # suffix> {
  let summary = "tfrt.print." # suffix # " operation";
  let arguments = (ins type:$value, TFRT_ChainType:$in_chain);
  let results = (outs TFRT_ChainType);
  let assemblyFormat = "operands attr-dict";
}

def PrintI1Op : PrintOp<"i1", I1>;
def PrintI32Op : PrintOp<"i32", I32>;
def PrintI64Op : PrintOp<"i64", I64>;
def PrintF32Op : PrintOp<"f32", F32>;
def PrintF64Op : PrintOp<"f64", F64>;

def NewChainOp : TFRT_Op<"new.chain", [Pure]> {
  let summary = "tfrt.new.chain operation";
  let results = (outs TFRT_ChainType);
  let assemblyFormat = "attr-dict";
}

def MergeChainsOp : TFRT_Op<"merge.chains", [Pure]> {
  let summary = "tfrt.merge.chains operation";
  let description = [{
    A chain that becomes available when every input is. Canonicalization
    (TFRT's) keeps only the inputs whose single use is this merge; when none
    is, the merge becomes its first input (see
    MergeChainsOp::getCanonicalizationPatterns).
  }];
  let arguments = (ins Variadic<AnyType>:$inputs);
  let results = (outs TFRT_ChainType);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasCanonicalizer = 1;
}

def GetDeviceOp : TFRT_Op<"get_device"> {
  let summary = "tfrt.get_device operation";
  let arguments = (ins TFRT_ChainType:$in_chain, StrAttr:$device_name);
  let results = (outs TFRT_DeviceType);
  let assemblyFormat = "operands attr-dict";
}

//===----------------------------------------------------------------------===//
// Calls and control flow
//===----------------------------------------------------------------------===//

// Symbol checks run in each op's own verifier (as in TFRT), so they are
// reported in op order together with the other verifier errors.
def CallOp : TFRT_Op<"call", [CallOpInterface]> {
  let summary = "tfrt.call operation";
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands,
                   OptionalAttr<DictArrayAttr>:$arg_attrs,
                   OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    mlir::CallInterfaceCallable getCallableForCallee() {
      return (*this)->getAttrOfType<mlir::SymbolRefAttr>("callee");
    }
    void setCalleeFromCallable(mlir::CallInterfaceCallable callee) {
      (*this)->setAttr("callee", llvm::cast<mlir::SymbolRefAttr>(callee));
    }
    mlir::Operation::operand_range getArgOperands() { return getOperands(); }
    mlir::MutableOperandRange getArgOperandsMutable() {
      return getOperandsMutable();
    }
  }];
}

def IfOp : TFRT_Op<"if"> {
  let summary = "tfrt.if operation";
  let description = [{
    `tfrt.if %cond, %a : (i32) -> (i32) { then } else { else }`: operand 0 is
    the i1 condition, the others are bound to both regions' arguments.
  }];
  let arguments = (ins I1:$cond, Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>);
  let regions = (region SizedRegion<1>:$then_region,
                        SizedRegion<1>:$else_region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def CondOp : TFRT_Op<"cond"> {
  let summary = "tfrt.cond operation";
  let arguments = (ins I1:$cond, FlatSymbolRefAttr:$a_true_fn,
                   FlatSymbolRefAttr:$b_false_fn, Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>);
  // $cond $a_true_fn $b_false_fn ( $args ) attr-dict : ( types ) -> ( types )
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def CaseOp : TFRT_Op<"case"> {
  let summary = "tfrt.case operation";
  let arguments = (ins I32:$branch_index, ArrayAttr:$branches,
                   Variadic<AnyType>:$branch_operands);
  let results = (outs Variadic<AnyType>);
  // $branch_index $branches ( $branch_operands ) attr-dict : ( types ) -> ( types )
  let hasCustomAssemblyFormat = 1;
}

def WhileOp : TFRT_Op<"while"> {
  let summary = "tfrt.while operation";
  let arguments = (ins I1:$cond, Variadic<AnyType>:$arguments,
                   FlatSymbolRefAttr:$body_fn, I64Attr:$parallel_iterations);
  let results = (outs Variadic<AnyType>);
  // $cond $body_fn ( $arguments ) attr-dict parallel_iterations ( N ) :
  // ( types ) -> ( types )
  let hasCustomAssemblyFormat = 1;
}

def RepeatI32Op : TFRT_Op<"repeat.i32"> {
  let summary = "tfrt.repeat.i32 operation";
  let arguments = (ins I32:$trip_count, Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def OnceOp : TFRT_Op<"once"> {
  let summary = "tfrt.once operation";
  let arguments = (ins Variadic<AnyType>:$arguments,
                   FlatSymbolRefAttr:$function);
  let results = (outs Variadic<AnyType>);
  // $function ( $arguments ) attr-dict : ( types ) -> ( types )
  let hasCustomAssemblyFormat = 1;
}

def ParallelForI32Op : TFRT_Op<"parallel_for.i32"> {
  let summary = "tfrt.parallel_for.i32 operation";
  let arguments = (ins I32:$start, I32:$end, I32:$block_size,
                   Variadic<AnyType>:$args);
  let results = (outs TFRT_ChainType);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def ParallelCallI32Op : TFRT_Op<"parallel_call.i32"> {
  let summary = "tfrt.parallel_call.i32 operation";
  let arguments = (ins I32:$start, I32:$end, I32:$block_size,
                   FlatSymbolRefAttr:$callee, Variadic<AnyType>:$args);
  let results = (outs TFRT_ChainType);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def ReturnOp : TFRT_Op<"return", [Terminator, Pure, ReturnLike]> {
  let summary = "tfrt.return operation";
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

#endif  // BEF_CONVERTER_BASIC_OPS_TD_
