#!/bin/bash
# The converters run the way a careless script would run them
# (tests/converter/hostile_io.mlir checks what this prints). Each line says
# what happened: the exit code (a signal would show as 128+N) and whether
# the files involved are as they were. usage: hostile_io.sh SCRATCH_DIR
set -u
dir="$1"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir"
cat > prog.mlir <<'MLIR'
func.func @main() -> i32 {
  %x = tfrt.constant.i32 1
  tfrt.return %x : i32
}
MLIR
echo 'func.func @broken( {' > bad.mlir
cp prog.mlir keep.mlir
mlir-to-bef prog.mlir -o prog.bef

same() {  # tool input output
  "$1" "$2" -o "$3" 2> err.txt; local code=$?
  echo "$1 $2 -o $3: exit $code; $(grep -c 'is the input file' err.txt) refusal; input $(cmp -s "$2" "$4" && echo intact || echo CHANGED)"
}
# Output is the input: directly, through a symbolic link, through a hard link.
ln -s prog.mlir symlink.mlir
ln prog.mlir hardlink.mlir
same mlir-to-bef prog.mlir prog.mlir keep.mlir
same mlir-to-bef prog.mlir symlink.mlir keep.mlir
same mlir-to-bef symlink.mlir hardlink.mlir keep.mlir
same bef-opt prog.mlir prog.mlir keep.mlir
same bef-opt hardlink.mlir symlink.mlir keep.mlir
cp prog.bef keep.bef
same bef-to-mlir prog.bef prog.bef keep.bef

# A failed conversion leaves non-regular outputs alone.
ln -s /dev/null null_link
for tool in mlir-to-bef bef-opt; do
  "$tool" bad.mlir -o null_link 2>/dev/null; code=$?
  echo "$tool failing into a link to /dev/null: exit $code; link $([[ -L null_link ]] && echo kept || echo REMOVED); /dev/null $([[ -c /dev/null ]] && echo kept || echo REMOVED)"
done
bef-to-mlir bad.mlir -o null_link 2>/dev/null; code=$?
echo "bef-to-mlir failing into a link to /dev/null: exit $code; link $([[ -L null_link ]] && echo kept || echo REMOVED)"
mkfifo fifo
for tool in mlir-to-bef bef-opt; do
  timeout 20 cat fifo > fifo.out & reader=$!
  timeout 20 "$tool" bad.mlir -o fifo 2>/dev/null; code=$?
  wait "$reader"
  echo "$tool failing into a FIFO: exit $code; fifo $([[ -p fifo ]] && echo kept || echo REMOVED)"
done
# A failed conversion into a new regular file leaves no file behind.
mlir-to-bef bad.mlir -o new.bef 2>/dev/null; code=$?
echo "mlir-to-bef failing into a new file: exit $code; $([[ -e new.bef ]] && echo 'file LEFT' || echo 'no file')"

# Endless and oversized inputs stop at the bound.
for tool in mlir-to-bef bef-opt; do
  timeout 60 "$tool" /dev/zero --max_input_bytes=1000000 -o /dev/null 2> err.txt; code=$?
  echo "$tool /dev/zero: exit $code; $(grep -oF 'larger than --max_input_bytes=1000000' err.txt)"
done
timeout 60 bef-to-mlir /dev/zero -o /dev/null 2> err.txt; code=$?
echo "bef-to-mlir /dev/zero: exit $code; $(grep -oF 'Invalid BEF file header.' err.txt)"
mlir-to-bef prog.mlir --max_input_bytes=10 -o /dev/null 2> err.txt; code=$?
echo "mlir-to-bef over the limit: exit $code; $(grep -oF 'bytes, more than --max_input_bytes=10' err.txt)"

# Deep nesting: within the limit it converts and runs; beyond it, a message.
python3 "$here/nested_ifs.py" 3000 > deep3000.mlir
mlir-to-bef deep3000.mlir -o deep3000.bef; code=$?
echo "mlir-to-bef 3000 levels: exit $code; $(bef_executor deep3000.bef | grep -oF 'int32 = 3000')"
bef-opt deep3000.mlir -o /dev/null; echo "bef-opt 3000 levels: exit $?"
bef-to-mlir deep3000.bef -o /dev/null; echo "bef-to-mlir 3000 levels: exit $?"
python3 "$here/nested_ifs.py" 10000 > deep10000.mlir
for tool in mlir-to-bef bef-opt; do
  "$tool" deep10000.mlir -o /dev/null 2> err.txt; code=$?
  echo "$tool 10000 levels: exit $code; $(grep -oF 'more than 4096 levels deep (--max_nesting_depth)' err.txt)"
done
python3 "$here/nested_ifs.py" 5000 > deep5000.mlir
mlir-to-bef --max_nesting_depth=6000 deep5000.mlir -o deep5000.bef; echo "mlir-to-bef 5000 levels, raised limit: exit $?"
bef-to-mlir deep5000.bef -o /dev/null 2> err.txt; code=$?
echo "bef-to-mlir 5000 levels: exit $code; $(grep -oF 'BEF functions nest regions more than 4096 levels deep' err.txt)"

# Affine maps: MLIR's affine parser recurses once per operator, and its
# simplification is quadratic in them (260,000 `d0 + d1 + d0 ...` terms
# took 325 s). Past --max_affine_operators (10,000) they are refused before
# parsing.
python3 -c '
print("#map = affine_map<(d0, d1) -> (d0 + d1" + " + d0" * 260000 + ")>")
print("func.func @main() {\n  tfrt.return\n}")' > terms.mlir
start=$(date +%s)
mlir-to-bef terms.mlir -o out.bin 2> err.txt; code=$?
echo "mlir-to-bef terms: exit $code; $(( $(date +%s) - start < 10 )); $(grep -oF 'an affine map or set with more than 10000 operators (--max_affine_operators' err.txt)"

# Nesting brackets do not show, past the pre-scan (--max_affine_operators
# raised): an affine expression of 300,000 unary minus signs (one recursion
# per sign) and a sum of 1,000,000 terms (an expression tree as deep as it
# is long, on the smallest stack). Each overflows its stack: a message,
# exit code 1, no output file left; a raised --max_nesting_depth gives the
# parser the stack for the first.
python3 -c '
print("#map = affine_map<(d0) -> (" + "- " * 300000 + "d0)>")
print("func.func @main() {\n  tfrt.return\n}")' > minus.mlir
python3 -c '
print("#map = affine_map<(d0) -> (d0" + " + d0" * 1000000 + ")>")
print("func.func @main() {\n  tfrt.return\n}")' > sum.mlir
for input in minus sum; do
  for tool in mlir-to-bef bef-opt; do
    rm -f out.bin
    depth=4096; [[ $input == sum ]] && depth=16
    "$tool" --max_nesting_depth=$depth --max_affine_operators=10000000 "$input.mlir" \
      -o out.bin 2> err.txt; code=$?
    left=$([[ -e out.bin ]] && echo "output left" || echo "no output")
    echo "$tool $input: exit $code; $left; $(grep -oE "nests deeper than the converter's [0-9]+ MiB stack holds" err.txt)"
  done
done
mlir-to-bef --max_nesting_depth=65536 --max_affine_operators=1000000 minus.mlir -o minus.bef; code=$?
echo "mlir-to-bef minus, raised limits: exit $code; $(bef_executor minus.bef | grep -c main)"
