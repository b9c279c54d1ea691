// -tfrt-print-stream: TFRT's test pass for the stream analysis that
// mlir-to-bef runs on every function body. It emits a remark on each
// func.func and on each op of its body:
//
//   stream id: S, stream cost: C, parent stream: P[, child streams: [a, b]]
//
// (the function stands for the virtual root: its stream is the root stream,
// whose parent is -1; `child streams` lists the streams an op starts, when
// there are any). `bef-opt -tfrt-print-stream -verify-diagnostics` checks
// them against `expected-remark` annotations. The cost threshold comes from
// `tfrt.cost_threshold` on the function, else on the module, else the
// default (docs/converters.md).
#ifndef BEF_CONVERTER_PRINT_STREAM_PASS_H_
#define BEF_CONVERTER_PRINT_STREAM_PASS_H_

namespace bef::converter {

// Registers the pass with MLIR's pass registry (for bef-opt's command line).
void RegisterPrintStreamPass();

}  // namespace bef::converter

#endif  // BEF_CONVERTER_PRINT_STREAM_PASS_H_
