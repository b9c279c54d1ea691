"""The `bef` Python package in one walk-through (docs/python.md follows it).

    bash scripts/python.sh --install /tmp/bef-venv
    /tmp/bef-venv/bin/python examples/python_example.py
"""

import numpy as np

import bef

# 1. A host program: MLIR text converted to BEF (bef.converter links MLIR and
#    is loaded only now, on first use).
MODEL = """
func.func @scale(%t: !tfrt_tensor.tensor, %c0: !tfrt.chain) -> (!tfrt_tensor.tensor, !tfrt.chain) {
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %t, %c0 2.0 : f32
  tfrt.return %t, %c1 : !tfrt_tensor.tensor, !tfrt.chain
}

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @identity(%t: !tfrt_tensor.tensor) -> !tfrt_tensor.tensor {
  tfrt.return %t : !tfrt_tensor.tensor
}

func.func @fail() -> i32 {
  %x = "tfrt_test.fail"() : () -> i32
  tfrt.return %x : i32
}
"""
data = bef.mlir_to_bef(MODEL)

# 2. Load (verified: bad bytes raise bef.LoadError) on a work queue.
program = bef.load(data, work_queue="mstd:2")
print(program)

# 3. Inspect: signatures in BEF type names, sections as bef-dump lists them.
for name, signature in sorted(program.functions.items()):
    print(f"  {name}: {signature.arguments} -> {signature.results}")
print(program.summary().splitlines()[0])

# 4. Run: scalars are Python numbers; chains are handled for you.
print("add:", program.run("add", 40, 2))

# 5. Tensors are NumPy arrays. A contiguous input is borrowed, not copied;
#    the result shares the tensor's buffer.
x = np.arange(6, dtype=np.float32).reshape(2, 3)
same = program.run("identity", x)
print("identity shares x's buffer:", same.ctypes.data == x.ctypes.data)
scaled = program.run("scale", x)  # the kernel writes a private copy: x stays as it was
print("scale:", scaled.tolist(), "x unchanged:", x.tolist())

# 6. Errors are exceptions with the kernel's source location.
try:
    program.run("fail")
except bef.RuntimeError as error:
    print("error:", error.message, "at", error.location)

# 7. Futures, and many runs at once (the GIL is released while a run runs).
futures = [program.run_async("add", i, i) for i in range(4)]
print("futures:", [future.result() for future in futures])

# 8. Values that do not fit their BEF type never reach the runtime.
try:
    program.run("add", 2**40, 1)
except bef.ArgumentError as error:
    print("refused:", error)
