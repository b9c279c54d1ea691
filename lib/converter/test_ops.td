// The `tfrt_test` dialect: ops of the test kernels that have custom syntax
// (../shared/spec/host-dialects.md §3.1, §3.5). Every other test kernel is
// written in generic form (the dialect allows unknown ops).
#ifndef BEF_CONVERTER_TEST_OPS_TD_
#define BEF_CONVERTER_TEST_OPS_TD_

include "lib/converter/basic_ops.td"

def TFRT_Test_Dialect : Dialect {
  let name = "tfrt_test";
  let summary = "Host executor test kernels";
  let cppNamespace = "::bef::converter::tfrt_test";
  // Test ops produce !tfrt.chain values.
  let dependentDialects = ["::bef::converter::tfrt::TFRTDialect"];
}

class Test_Op<string mnemonic, list<Trait> traits = []>
    : Op<TFRT_Test_Dialect, mnemonic, traits>;

def DoAsyncOp : Test_Op<"do.async"> {
  let summary = "tfrt_test.do.async operation";
  let arguments = (ins Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

class Count3Op<string suffix, Type type> : Test_Op<"count3." # suffix> {
  let summary = "tfrt_test.count3." # suffix # " operation";
  let arguments = (ins type:$input);
  let results = (outs type, type, type);
  let assemblyFormat = "operands attr-dict";
}

def Count3I32Op : Count3Op<"i32", I32>;
def Count3I64Op : Count3Op<"i64", I64>;

def BenchmarkOp : Test_Op<"benchmark"> {
  let summary = "tfrt_test.benchmark operation";
  let description = [{
    `tfrt_test.benchmark "name"(%a : i32) duration_secs = 1, max_count = 10,
    num_warmup_runs = 1 { ... tfrt.return %x : T }`: runs the region
    repeatedly and prints BM: statistics.
  }];
  let arguments = (ins Variadic<AnyType>:$args, I32Attr:$duration_secs,
                   I32Attr:$max_count, StrAttr:$name,
                   DefaultValuedAttr<I32Attr, "1">:$num_warmup_runs);
  let results = (outs TFRT_ChainType);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def SyncBenchmarkOp : Test_Op<"sync_benchmark"> {
  let summary = "tfrt_test.sync_benchmark operation";
  let arguments = (ins Variadic<AnyType>:$args, FlatSymbolRefAttr:$target_fn,
                   I32Attr:$duration_secs, I32Attr:$max_count,
                   DefaultValuedAttr<I32Attr, "1">:$num_warmup_runs);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def TestCostOp : Test_Op<"test_cost"> {
  let summary = "tfrt_test.test_cost operation";
  let description = [{
    Prints `id: <id>` and returns 0. `_tfrt_cost` is the op's static cost
    for the converter's stream analysis; it is not encoded in BEF.
  }];
  let arguments = (ins Variadic<AnyType>:$args, I64Attr:$id,
                   I64Attr:$_tfrt_cost);
  let results = (outs I32);
  let assemblyFormat = "$args attr-dict `:` type($args)";
  // A cost must be positive (TFRT's cost function interface asserts it).
  let hasVerifier = 1;
}

def GetStringOp : Test_Op<"get_string", [Pure]> {
  let summary = "tfrt_test.get_string operation";
  let arguments = (ins StrAttr:$value);
  let results = (outs TFRT_StringType);
  let assemblyFormat = "attr-dict";
}

def GetStringSyncOp : Test_Op<"get_string_sync", [Pure]> {
  let summary = "tfrt_test.get_string_sync operation";
  let arguments = (ins StrAttr:$value);
  let results = (outs TFRT_StringType);
  let assemblyFormat = "attr-dict";
}

#endif  // BEF_CONVERTER_TEST_OPS_TD_
