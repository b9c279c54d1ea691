// Models whose run never ends (tests/serving/careless_operator_test.py):
// @main, a tfrt.while whose body always asks for another iteration; @never,
// a result no kernel will ever complete (an asynchronous tfrt.once cycle:
// @loop's tfrt.once of itself comes from the continuation of a condition a
// blocking thread's sleep completes, so it is not seen as a re-entry).
func.func @step(%x: i32) -> (i32, i1) {
  %one = tfrt.constant.i32 1
  %next = tfrt.add.i32 %x, %one
  %more = tfrt.constant.i1 true
  tfrt.return %next, %more : i32, i1
}

func.func @main(%x: i32) -> i32 {
  %t = tfrt.constant.i1 true
  %r = tfrt.while %t @step(%x) parallel_iterations(1) : (i32) -> (i32)
  tfrt.return %r : i32
}

func.func @loop() -> i32 {
  %us = tfrt.constant.i32 1000
  %slept = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  %true = tfrt.constant.i1 1
  %t = "tfrt_test.identity"(%slept, %true) : (!tfrt.chain, i1) -> i1
  %r = tfrt.if %t : () -> i32 {
    %x = tfrt.once @loop() : () -> (i32)
    tfrt.return %x : i32
  } else {
    %c = tfrt.constant.i32 0
    tfrt.return %c : i32
  }
  tfrt.return %r : i32
}

func.func @never(%x: i32) -> i32 {
  %r = tfrt.once @loop() : () -> (i32)
  tfrt.return %r : i32
}
