"""Prints a host program whose function nests N tfrt.if regions:
python3 nested_ifs.py N. The innermost region prints N."""
import sys

depth = int(sys.argv[1])
out = ["func.func @deep() -> !tfrt.chain {", "  %ch = tfrt.new.chain"]
for i in range(depth):
    out.append("  %%c%d = tfrt.constant.i1 true" % i)
    out.append("  %%r%d = tfrt.if %%c%d, %%ch : (!tfrt.chain) -> (!tfrt.chain) {" % (i, i))
out += ["  %%x = tfrt.constant.i32 %d" % depth,
        "  %p = tfrt.print.i32 %x, %ch",
        "  tfrt.return %p : !tfrt.chain"]
for i in reversed(range(depth)):
    out += ["  } else {", "  tfrt.return %ch : !tfrt.chain", "  }",
            "  tfrt.return %%r%d : !tfrt.chain" % i]
out.append("}")
print("\n".join(out))
