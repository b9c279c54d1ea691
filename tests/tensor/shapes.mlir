// ts.* shape kernels: shapes, partial shapes, fixed-rank shapes.
// RUN: mlir-to-bef %s | bef_executor 2>&1 | FileCheck %s
// RUN: mlir-to-bef %s | bef-to-mlir | FileCheck %s --check-prefix=ROUNDTRIP

// CHECK-LABEL: --- Running 'shapes':
func.func @shapes() -> (i64, i64, i64, i1, i1) {
  %c0 = tfrt.new.chain
  %a = ts.build_shape [2 : i64, 3 : i64]
  %c1 = ts.print_shape %a, %c0
  %e = ts.build_shape []
  %c2 = ts.print_shape %e, %c1
  %neg = ts.build_shape [-1 : i64, 6 : i64]
  %n1 = ts.get_num_elements %a
  %n2 = ts.get_num_elements %e
  %n3 = ts.get_num_elements %neg
  %a2 = ts.build_shape [2 : i64, 3 : i64]
  %t = ts.build_shape [3 : i64, 2 : i64]
  %eq = ts.equal_shape %a, %a2
  %ne = ts.equal_shape %a, %t
  tfrt.return %n1, %n2, %n3, %eq, %ne : i64, i64, i64, i1, i1
}
// The prints are not ordered before the results (the chain is not
// returned), so under the single-threaded queue they come after.
// CHECK-NEXT: 'shapes' returned 6,1,-6,1,0
// CHECK-NEXT: shape = [2, 3]
// CHECK-NEXT: shape = []

// CHECK-LABEL: --- Running 'fixed_and_partial':
func.func @fixed_and_partial() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %a = ts.build_shape [4 : i64, 5 : i64]
  %f = ts.as_fixed_rank_shape.2 %a
  %c1 = ts.print_fixed_rank_shape.2 %f, %c0
  %z = ts.build_shape [4 : i64, 0 : i64]
  %fz = ts.as_fixed_rank_shape.2 %z
  // A zero element count prints [] (TFRT's printer tests the count).
  %c2 = ts.print_fixed_rank_shape.2 %fz, %c1
  %p = ts.build_partial_shape [-1 : i64, 7 : i64]
  %c3 = ts.print_partial_shape %p, %c2
  %u = ts.build_unranked_partial_shape
  %c4 = ts.print_partial_shape %u, %c3
  %k = ts.build_partial_shape [1 : i64, 2 : i64]
  %s = ts.to_shape %k
  %c5 = ts.print_shape %s, %c4
  %back = ts.to_partial_shape %s
  %c6 = ts.print_partial_shape %back, %c5
  %one = ts.build_shape [6 : i64]
  %f1 = ts.as_fixed_rank_shape.1 %one
  %c7 = ts.print_fixed_rank_shape.1 %f1, %c6
  %three = ts.build_shape [1 : i64, 2 : i64, 3 : i64]
  %f3 = ts.as_fixed_rank_shape.3 %three
  %c8 = ts.print_fixed_rank_shape.3 %f3, %c7
  // no_op_ht consumes a dense tensor and gives a new chain.
  %t = tfrt_dht.create_uninitialized_tensor.i32.1 [1 : i64]
  %c9 = "tfrt_dht.no_op_ht"(%t) : (!tfrt_tensor.tensor) -> !tfrt.chain
  %c10 = tfrt.merge.chains %c8, %c9 : !tfrt.chain, !tfrt.chain
  tfrt.return %c10 : !tfrt.chain
}
// CHECK-NEXT: fixed_rank_shape = [4, 5]
// CHECK-NEXT: fixed_rank_shape = []
// CHECK-NEXT: partial_tensor_shape = [-1, 7]
// CHECK-NEXT: partial_tensor_shape = Unknown rank
// CHECK-NEXT: shape = [1, 2]
// CHECK-NEXT: partial_tensor_shape = [1, 2]
// CHECK-NEXT: fixed_rank_shape = [6]
// CHECK-NEXT: fixed_rank_shape = [1, 2, 3]
// CHECK-NEXT: 'fixed_and_partial' returned !tfrt.chain value

// CHECK-LABEL: --- Running 'errors':
func.func @errors() -> (!ts.shape, !ts.shape, i64, !ts.fixed_rank_shape.3) {
  %u = ts.build_unranked_partial_shape
  %e1 = ts.to_shape %u // expected-error {{Unknown rank}}
  %p = ts.build_partial_shape [-1 : i64, 4 : i64, -1 : i64]
  %e2 = ts.to_shape %p // expected-error {{Unknown dimensions at following indices = [0, 2]}}
  %s = ts.build_shape [3 : i64]
  %nine = tfrt.constant.i32 9
  // Checked here (undefined behaviour in TFRT).
  %d = ts.get_dimension %s, %nine // expected-error {{ts.get_dimension: index 9 is out of range for rank 1}}
  %f = ts.as_fixed_rank_shape.3 %s // expected-error {{ts.as_fixed_rank_shape.3: the shape [3] does not have rank 3}}
  tfrt.return %e1, %e2, %d, %f : !ts.shape, !ts.shape, i64, !ts.fixed_rank_shape.3
}
// CHECK-NEXT: 'errors' returned <<error: Unknown rank>>,<<error: Unknown dimensions at following indices = [0, 2]>>,<<error: ts.get_dimension: index 9 is out of range for rank 1>>,<<error: ts.as_fixed_rank_shape.3: the shape [3] does not have rank 3>>

// bef-to-mlir reads !ts.fixed_rank_shape.N back (TFRT's parser rejects it).
// ROUNDTRIP: ts.as_fixed_rank_shape.2 %{{.*}}
// ROUNDTRIP: func.func @errors() -> (!ts.shape, !ts.shape, i64, !ts.fixed_rank_shape.3)
