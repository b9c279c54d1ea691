// A small host program: arithmetic, a loop, a call and a chained print.
// Convert and run it with:
//   bazel-bin/tools/mlir-to-bef examples/hello.mlir -o /tmp/hello.bef
//   bazel-bin/tools/bef_executor /tmp/hello.bef
// (scripts/example.sh does both.)

func.func @square(%x: i32) -> i32 {
  %y = tfrt.mul.i32 %x, %x
  tfrt.return %y : i32
}

func.func @main() -> (i32, !tfrt.chain) {
  %ch0 = tfrt.new.chain
  %three = tfrt.constant.i32 3
  %nine = tfrt.call @square(%three) : (i32) -> i32
  // Add 1 to 9, five times.
  %n = tfrt.constant.i32 5
  %sum = tfrt.repeat.i32 %n, %nine : i32 {
    %one = tfrt.constant.i32 1
    %next = tfrt.add.i32 %nine, %one
    tfrt.return %next : i32
  }
  %ch1 = tfrt.print.i32 %sum, %ch0
  tfrt.return %sum, %ch1 : i32, !tfrt.chain
}
