func.func @repeat() -> !tfrt.chain {
  %x = tfrt.constant.i32 0
  %r = tfrt_test.benchmark "repeat"(%x : i32) duration_secs = 100, max_count = 20, num_warmup_runs = 3 {
    %n = tfrt.constant.i32 1000000
    %r = tfrt.repeat.i32 %n, %x : i32 {
      %one = tfrt.constant.i32 1
      %y = tfrt.add.i32 %x, %one
      tfrt.return %y : i32
    }
    tfrt.return %r : i32
  }
  tfrt.return %r : !tfrt.chain
}
