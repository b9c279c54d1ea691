// bef-opt -tfrt-print-stream: the stream analysis mlir-to-bef runs, printed as
// remarks (TFRT's test pass). Each op: its stream's id and cost (the sum of its
// ops' costs, merged streams included) and the parent stream (the stream of
// the op that starts it; the root stream's parent is -1). The function stands
// for the virtual root. An op that starts streams lists them.
// RUN: bef-opt -allow-unregistered-dialect -tfrt-print-stream -verify-diagnostics %s -o /dev/null

module attributes {tfrt.cost_threshold = 1 : i64} {

// The worked example of executor-semantics.md 5.3 (module threshold 1):
// stream ids as TFRT assigns them; every zero-operand op starts a stream of
// the root.
// expected-remark @+1 {{stream id: 0, stream cost: 2, parent stream: -1, child streams: [5, 3, 4, 2, 1]}}
func.func @worked() {
  // expected-remark @+1 {{stream id: 5, stream cost: 1, parent stream: 0}}
  %ch = tfrt.new.chain
  // expected-remark @+1 {{stream id: 3, stream cost: 3, parent stream: 0}}
  %a = "vt.constant"() {value = 1 : i32} : () -> !vt.value
  // expected-remark @+1 {{stream id: 4, stream cost: 1, parent stream: 0}}
  %b = "vt.constant"() {value = 2 : i32} : () -> !vt.value
  // expected-remark @+1 {{stream id: 3, stream cost: 3, parent stream: 0}}
  %s = "vt.add"(%a, %b) : (!vt.value, !vt.value) -> !vt.value
  // expected-remark @+1 {{stream id: 3, stream cost: 3, parent stream: 0}}
  %p = "vt.print"(%s, %ch) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  // expected-remark @+1 {{stream id: 2, stream cost: 1, parent stream: 0}}
  %u = "vt.constant"() {value = 4 : i32} : () -> !vt.value
  // expected-remark @+1 {{stream id: 1, stream cost: 1, parent stream: 0}}
  %v = "vt.constant"() {value = 5 : i32} : () -> !vt.value
  // expected-remark @+1 {{stream id: 0, stream cost: 2, parent stream: -1}}
  tfrt.return
}

// A diamond: %x starts the stream of %b; %a, %c and the return continue the
// root stream.
// expected-remark @+1 {{stream id: 0, stream cost: 5, parent stream: -1}}
func.func @diamond() -> i32 {
  // expected-remark @+1 {{stream id: 0, stream cost: 5, parent stream: -1, child streams: [1]}}
  %x = tfrt.constant.i32 1
  // expected-remark @+1 {{stream id: 0, stream cost: 5, parent stream: -1}}
  %a = tfrt.add.i32 %x, %x
  // expected-remark @+1 {{stream id: 1, stream cost: 1, parent stream: 0}}
  %b = tfrt.add.i32 %x, %x
  // expected-remark @+1 {{stream id: 0, stream cost: 5, parent stream: -1}}
  %c = tfrt.add.i32 %a, %b
  // expected-remark @+1 {{stream id: 0, stream cost: 5, parent stream: -1}}
  tfrt.return %c : i32
}

// The function's own threshold wins over the module's: ops without a
// declared cost cost 100 each.
// expected-remark @+1 {{stream id: 0, stream cost: 302, parent stream: -1}}
func.func @function_threshold() -> i32 attributes {tfrt.cost_threshold = 100 : i64} {
  // expected-remark @+1 {{stream id: 0, stream cost: 302, parent stream: -1, child streams: [1]}}
  %x = tfrt.constant.i32 1
  // expected-remark @+1 {{stream id: 0, stream cost: 302, parent stream: -1}}
  %a = tfrt.add.i32 %x, %x
  // expected-remark @+1 {{stream id: 1, stream cost: 100, parent stream: 0}}
  %b = tfrt.add.i32 %x, %x
  // expected-remark @+1 {{stream id: 0, stream cost: 302, parent stream: -1}}
  %c = tfrt.add.i32 %a, %b
  // expected-remark @+1 {{stream id: 0, stream cost: 302, parent stream: -1}}
  tfrt.return %c : i32
}

// Declared costs: %s follows its costlier operand %z, so %y's stream is the
// one %x starts.
// expected-remark @+1 {{stream id: 0, stream cost: 20, parent stream: -1}}
func.func @costs() -> i32 {
  // expected-remark @+1 {{stream id: 0, stream cost: 20, parent stream: -1, child streams: [1]}}
  %x = "tfrt_test.test_cost"() {id = 1 : i64, _tfrt_cost = 10 : i64} : () -> i32
  // expected-remark @+1 {{stream id: 1, stream cost: 3, parent stream: 0}}
  %y = "tfrt_test.test_cost"(%x) {id = 2 : i64, _tfrt_cost = 3 : i64} : (i32) -> i32
  // expected-remark @+1 {{stream id: 0, stream cost: 20, parent stream: -1}}
  %z = "tfrt_test.test_cost"(%x) {id = 3 : i64, _tfrt_cost = 7 : i64} : (i32) -> i32
  // expected-remark @+1 {{stream id: 0, stream cost: 20, parent stream: -1}}
  %s = tfrt.add.i32 %y, %z
  // expected-remark @+1 {{stream id: 0, stream cost: 20, parent stream: -1}}
  tfrt.return %s : i32
}

}
