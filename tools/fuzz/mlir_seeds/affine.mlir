#map = affine_map<(d0, d1) -> (d0 + d1 * 2 - (d0 floordiv 4), -d1)>
func.func @main() -> i32 attributes {map = #map, set = affine_set<(d0) : (d0 - 1 >= 0)>} {
  %c = tfrt.constant.i32 1
  %d = tfrt.add.i32 %c, %c
  tfrt.return %d : i32
}
