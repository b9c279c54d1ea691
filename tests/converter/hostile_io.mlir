// The converters on hostile inputs and paths (docs/converters.md): an output
// that is the input is refused and the input kept; a failed run never
// removes what it did not create (devices, FIFOs, links); endless inputs stop
// at --max_input_bytes; nesting beyond --max_nesting_depth, affine maps
// beyond --max_affine_operators, and nesting without brackets deeper than
// the parser's stack holds, are a message and exit code 1, never a signal. The work is done by Inputs/hostile_io.sh.
// RUN: bash %S/Inputs/hostile_io.sh %t | FileCheck %s

// CHECK: mlir-to-bef prog.mlir -o prog.mlir: exit 1; 1 refusal; input intact
// CHECK: mlir-to-bef prog.mlir -o symlink.mlir: exit 1; 1 refusal; input intact
// CHECK: mlir-to-bef symlink.mlir -o hardlink.mlir: exit 1; 1 refusal; input intact
// CHECK: bef-opt prog.mlir -o prog.mlir: exit 1; 1 refusal; input intact
// CHECK: bef-opt hardlink.mlir -o symlink.mlir: exit 1; 1 refusal; input intact
// CHECK: bef-to-mlir prog.bef -o prog.bef: exit 1; 1 refusal; input intact
// CHECK: mlir-to-bef failing into a link to /dev/null: exit 1; link kept; /dev/null kept
// CHECK: bef-opt failing into a link to /dev/null: exit 1; link kept; /dev/null kept
// CHECK: bef-to-mlir failing into a link to /dev/null: exit 1; link kept
// CHECK: mlir-to-bef failing into a FIFO: exit 1; fifo kept
// CHECK: bef-opt failing into a FIFO: exit 1; fifo kept
// CHECK: mlir-to-bef failing into a new file: exit 1; no file
// CHECK: mlir-to-bef /dev/zero: exit 1; larger than --max_input_bytes=1000000
// CHECK: bef-opt /dev/zero: exit 1; larger than --max_input_bytes=1000000
// CHECK: bef-to-mlir /dev/zero: exit 1; Invalid BEF file header.
// CHECK: mlir-to-bef over the limit: exit 1; bytes, more than --max_input_bytes=10
// CHECK: mlir-to-bef 3000 levels: exit 0; int32 = 3000
// CHECK: bef-opt 3000 levels: exit 0
// CHECK: bef-to-mlir 3000 levels: exit 0
// CHECK: mlir-to-bef 10000 levels: exit 1; more than 4096 levels deep (--max_nesting_depth)
// CHECK: bef-opt 10000 levels: exit 1; more than 4096 levels deep (--max_nesting_depth)
// CHECK: mlir-to-bef 5000 levels, raised limit: exit 0
// CHECK: bef-to-mlir 5000 levels: exit 1; BEF functions nest regions more than 4096 levels deep
// CHECK: mlir-to-bef terms: exit 1; 1; an affine map or set with more than 10000 operators (--max_affine_operators
// CHECK: mlir-to-bef minus: exit 1; no output; nests deeper than the converter's 256 MiB stack holds
// CHECK: bef-opt minus: exit 1; no output; nests deeper than the converter's 256 MiB stack holds
// CHECK: mlir-to-bef sum: exit 1; no output; nests deeper than the converter's 64 MiB stack holds
// CHECK: bef-opt sum: exit 1; no output; nests deeper than the converter's 64 MiB stack holds
// CHECK: mlir-to-bef minus, raised limits: exit 0; 1
