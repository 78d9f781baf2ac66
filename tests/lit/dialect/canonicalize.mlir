// RUN: nova-opt %s --canonicalize --split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// Elementwise identities
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]], %[[X]] : tensor<2x3xf32>, tensor<2x3xf32>
func.func @add_zero(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = nova.constant dense<0.0> : tensor<2x3xf32>
  %0 = nova.add %x, %zero : tensor<2x3xf32>
  %1 = nova.add %zero, %x : tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @add_zero_int
// CHECK-SAME: (%[[X:.*]]: tensor<4xi64>)
// CHECK-NEXT: return %[[X]] : tensor<4xi64>
func.func @add_zero_int(%x: tensor<4xi64>) -> tensor<4xi64> {
  %zero = nova.constant dense<0> : tensor<4xi64>
  %0 = nova.add %zero, %x : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @sub_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4xf32>
func.func @sub_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = nova.constant dense<0.0> : tensor<4xf32>
  %0 = nova.sub %x, %zero : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>)
// CHECK-NEXT: return %[[X]], %[[X]] : tensor<4xbf16>, tensor<4xbf16>
func.func @mul_one(%x: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  %one = nova.constant dense<1.0> : tensor<4xbf16>
  %0 = nova.mul %x, %one : tensor<4xbf16>
  %1 = nova.mul %one, %x : tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @div_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4xf32>
func.func @div_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = nova.constant dense<1.0> : tensor<4xf32>
  %0 = nova.div %x, %one : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4xf32>
func.func @neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nova.neg %x : tensor<4xf32>
  %1 = nova.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Only the outer pair cancels.
// CHECK-LABEL: func.func @neg_neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[N:.*]] = nova.neg %[[X]] : tensor<4xf32>
// CHECK-NEXT: return %[[N]] : tensor<4xf32>
func.func @neg_neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nova.neg %x : tensor<4xf32>
  %1 = nova.neg %0 : tensor<4xf32>
  %2 = nova.neg %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @cast_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4xf32>
func.func @cast_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nova.cast %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Negative cases: none of these is an identity.
// CHECK-LABEL: func.func @no_fold_elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[ONE:.*]] = nova.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[ZERO:.*]] = nova.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[TWO:.*]] = nova.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK: %[[ADD:.*]] = nova.add %[[X]], %[[ONE]] : tensor<4xf32>
// CHECK-NEXT: %[[SUB:.*]] = nova.sub %[[ZERO]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[MUL:.*]] = nova.mul %[[X]], %[[TWO]] : tensor<4xf32>
// CHECK-NEXT: %[[DIV:.*]] = nova.div %[[ONE]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[MUL0:.*]] = nova.mul %[[X]], %[[ZERO]] : tensor<4xf32>
// CHECK-NEXT: %[[CAST:.*]] = nova.cast %[[X]] : tensor<4xf32> -> tensor<4xf16>
// CHECK-NEXT: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[MUL0]], %[[CAST]]
func.func @no_fold_elementwise(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>) {
  %one = nova.constant dense<1.0> : tensor<4xf32>
  %zero = nova.constant dense<0.0> : tensor<4xf32>
  %two = nova.constant dense<2.0> : tensor<4xf32>
  %0 = nova.add %x, %one : tensor<4xf32>
  %1 = nova.sub %zero, %x : tensor<4xf32>
  %2 = nova.mul %x, %two : tensor<4xf32>
  %3 = nova.div %one, %x : tensor<4xf32>
  %4 = nova.mul %x, %zero : tensor<4xf32>
  %5 = nova.cast %x : tensor<4xf32> -> tensor<4xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>
}

// -----

// A non-splat constant with a zero in it is not zero.
// CHECK-LABEL: func.func @no_fold_add_non_splat
// CHECK: nova.add
func.func @no_fold_add_non_splat(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = nova.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = nova.add %x, %c : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Folding to an operand whose type differs from the result's (a dynamic dim
// where the result is static) would change the type: not folded. (The
// constant of the commutative mul moves to the rhs.)
// CHECK-LABEL: func.func @no_fold_type_change
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>)
// CHECK: nova.add %[[X]], %{{.*}} : (tensor<?xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: nova.mul %[[X]], %{{.*}} : (tensor<?xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: nova.neg %{{.*}} : (tensor<?xf32>, tensor<4xf32>)
func.func @no_fold_type_change(%x: tensor<?xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = nova.constant dense<0.0> : tensor<4xf32>
  %one = nova.constant dense<1.0> : tensor<4xf32>
  %0 = nova.add %x, %zero : (tensor<?xf32>, tensor<4xf32>, tensor<4xf32>)
  %1 = nova.mul %one, %x : (tensor<4xf32>, tensor<?xf32>, tensor<4xf32>)
  %n = nova.neg %x : tensor<?xf32>
  %2 = nova.neg %n : (tensor<?xf32>, tensor<4xf32>)
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @reshape_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nova.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = nova.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x6xf32>
func.func @reshape_reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = nova.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %1 = nova.reshape %0 : tensor<24xf32> -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// A reshape back to the original shape disappears altogether.
// CHECK-LABEL: func.func @reshape_roundtrip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @reshape_roundtrip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nova.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = nova.reshape %0 : tensor<6xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_constant
// CHECK-NEXT: %[[C:.*]] = nova.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NEXT: return %[[C]] : tensor<2x3xi32>
func.func @reshape_constant() -> tensor<2x3xi32> {
  %c = nova.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %0 = nova.reshape %c : tensor<6xi32> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nova.transpose %x permutation = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3x4xf32>
func.func @transpose_transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = nova.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = nova.transpose %0 permutation = [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// transpose(transpose(x, p), q) = transpose(x, p[q[i]]): [1, 2, 0] then
// [1, 0, 2] is [2, 1, 0].
// CHECK-LABEL: func.func @transpose_transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = nova.transpose %[[X]] permutation = [2, 1, 0] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[T]] : tensor<4x3x2xf32>
func.func @transpose_transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = nova.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = nova.transpose %0 permutation = [1, 0, 2] : tensor<3x4x2xf32> -> tensor<4x3x2xf32>
  return %1 : tensor<4x3x2xf32>
}

// -----

// autocast's weight gradient: transpose(cast(transpose(g))) is cast(g).
// CHECK-LABEL: func.func @transpose_cast_transpose_cancel
// CHECK-SAME: (%[[G:.*]]: tensor<6x4xbf16>)
// CHECK-NEXT: %[[C:.*]] = nova.cast %[[G]] : tensor<6x4xbf16> -> tensor<6x4xf32>
// CHECK-NEXT: return %[[C]] : tensor<6x4xf32>
func.func @transpose_cast_transpose_cancel(%g: tensor<6x4xbf16>) -> tensor<6x4xf32> {
  %0 = nova.transpose %g permutation = [1, 0] : tensor<6x4xbf16> -> tensor<4x6xbf16>
  %1 = nova.cast %0 : tensor<4x6xbf16> -> tensor<4x6xf32>
  %2 = nova.transpose %1 permutation = [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  return %2 : tensor<6x4xf32>
}

// -----

// Permutations that do not cancel compose into one transpose before the cast.
// CHECK-LABEL: func.func @transpose_cast_transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xbf16>)
// CHECK-NEXT: %[[T:.*]] = nova.transpose %[[X]] permutation = [2, 1, 0] : tensor<2x3x4xbf16> -> tensor<4x3x2xbf16>
// CHECK-NEXT: %[[C:.*]] = nova.cast %[[T]] : tensor<4x3x2xbf16> -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[C]] : tensor<4x3x2xf32>
func.func @transpose_cast_transpose_compose(%x: tensor<2x3x4xbf16>) -> tensor<4x3x2xf32> {
  %0 = nova.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xbf16> -> tensor<3x4x2xbf16>
  %1 = nova.cast %0 : tensor<3x4x2xbf16> -> tensor<3x4x2xf32>
  %2 = nova.transpose %1 permutation = [1, 0, 2] : tensor<3x4x2xf32> -> tensor<4x3x2xf32>
  return %2 : tensor<4x3x2xf32>
}

// -----

// A cast with another use stays: the pattern would duplicate it.
// CHECK-LABEL: func.func @transpose_cast_shared
// CHECK:      nova.transpose
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova.transpose
func.func @transpose_cast_shared(%g: tensor<6x4xbf16>) -> (tensor<6x4xf32>, tensor<4x6xf32>) {
  %0 = nova.transpose %g permutation = [1, 0] : tensor<6x4xbf16> -> tensor<4x6xbf16>
  %1 = nova.cast %0 : tensor<4x6xbf16> -> tensor<4x6xf32>
  %2 = nova.transpose %1 permutation = [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  return %2, %1 : tensor<6x4xf32>, tensor<4x6xf32>
}

// -----

// The inner transpose keeps its other use.
// CHECK-LABEL: func.func @transpose_transpose_shared
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T0:.*]] = nova.transpose %[[X]] permutation = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK-NEXT: %[[T1:.*]] = nova.transpose %[[X]] permutation = [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
// CHECK-NEXT: return %[[T0]], %[[T1]]
func.func @transpose_transpose_shared(%x: tensor<2x3x4xf32>) -> (tensor<3x4x2xf32>, tensor<2x4x3xf32>) {
  %0 = nova.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = nova.transpose %0 permutation = [2, 1, 0] : tensor<3x4x2xf32> -> tensor<2x4x3xf32>
  return %0, %1 : tensor<3x4x2xf32>, tensor<2x4x3xf32>
}

// -----

// An identity permutation that refines a dynamic dim is not a no-op; the
// pair composes to it but stays a transpose.
// CHECK-LABEL: func.func @transpose_identity_refines_type
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
// CHECK-NEXT: %[[T:.*]] = nova.transpose %[[X]] permutation = [0, 1] : tensor<?x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_identity_refines_type(%x: tensor<?x3xf32>) -> tensor<4x3xf32> {
  %0 = nova.transpose %x permutation = [1, 0] : tensor<?x3xf32> -> tensor<3x?xf32>
  %1 = nova.transpose %0 permutation = [1, 0] : tensor<3x?xf32> -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @broadcast_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nova.broadcast_in_dim %x dims = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_splat
// CHECK-NEXT: %[[C:.*]] = nova.constant dense<2.500000e-01> : tensor<4x8xf32>
// CHECK-NEXT: return %[[C]] : tensor<4x8xf32>
func.func @broadcast_splat() -> tensor<4x8xf32> {
  %c = nova.constant dense<0.25> : tensor<8xf32>
  %0 = nova.broadcast_in_dim %c dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A splat broadcast into a dynamic shape has no constant form; a
// dims = [1, 0] broadcast of a square tensor is a transpose, not an identity.
// CHECK-LABEL: func.func @no_fold_broadcast
// CHECK: nova.broadcast_in_dim %{{.*}} dims = [] : tensor<f32> -> tensor<?x8xf32>
// CHECK: nova.broadcast_in_dim %{{.*}} dims = [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
// CHECK: nova.broadcast_in_dim %{{.*}} dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
func.func @no_fold_broadcast(%x: tensor<3x3xf32>, %y: tensor<3xf32>) -> (tensor<?x8xf32>, tensor<3x3xf32>, tensor<2x3xf32>) {
  %c = nova.constant dense<1.0> : tensor<f32>
  %0 = nova.broadcast_in_dim %c dims = [] : tensor<f32> -> tensor<?x8xf32>
  %1 = nova.broadcast_in_dim %x dims = [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  %2 = nova.broadcast_in_dim %y dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<?x8xf32>, tensor<3x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @slice_full
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @slice_full(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nova.slice %x [0:2:1, 0:3:1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A partial slice, and a slice of a dynamic dim whose limit need not be the
// dim's size, both stay.
// CHECK-LABEL: func.func @no_fold_slice
// CHECK: nova.slice %{{.*}}[0:2:1, 1:3:1] : tensor<2x3xf32> -> tensor<2x2xf32>
// CHECK: nova.slice %{{.*}}[0:2:1] : tensor<?xf32> -> tensor<?xf32>
func.func @no_fold_slice(%x: tensor<2x3xf32>, %y: tensor<?xf32>) -> (tensor<2x2xf32>, tensor<?xf32>) {
  %0 = nova.slice %x [0:2:1, 1:3:1] : tensor<2x3xf32> -> tensor<2x2xf32>
  %1 = nova.slice %y [0:2:1] : tensor<?xf32> -> tensor<?xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @concat_single
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @concat_single(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nova.concat %x dim = 0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @no_fold_concat
// CHECK: nova.concat %{{.*}}, %{{.*}} dim = 1
func.func @no_fold_concat(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %0 = nova.concat %x, %x dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

//===----------------------------------------------------------------------===//
// FoldTransposeIntoMatmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_transpose_lhs
// CHECK-SAME: (%[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16x32xf32>)
// CHECK-NEXT: %[[M:.*]] = nova.matmul %[[A]], %[[B]] {transpose_lhs} : tensor<16x8xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_transpose_lhs(%a: tensor<16x8xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %t = nova.transpose %a permutation = [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %0 = nova.matmul %t, %b : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_transpose_rhs
// CHECK-SAME: (%[[A:.*]]: tensor<8x16xbf16>, %[[B:.*]]: tensor<32x16xbf16>)
// CHECK-NEXT: %[[M:.*]] = nova.matmul %[[A]], %[[B]] {transpose_rhs} : tensor<8x16xbf16>, tensor<32x16xbf16> -> tensor<8x32xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_transpose_rhs(%a: tensor<8x16xbf16>, %b: tensor<32x16xbf16>) -> tensor<8x32xf32> {
  %t = nova.transpose %b permutation = [1, 0] : tensor<32x16xbf16> -> tensor<16x32xbf16>
  %0 = nova.matmul %a, %t : tensor<8x16xbf16>, tensor<16x32xbf16> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Batched: the inner two dims swap, the batch dims stay; both operands.
// CHECK-LABEL: func.func @matmul_transpose_both_batched
// CHECK-SAME: (%[[A:.*]]: tensor<2x16x8xf32>, %[[B:.*]]: tensor<2x32x16xf32>)
// CHECK-NEXT: %[[M:.*]] = nova.matmul %[[A]], %[[B]] {transpose_lhs, transpose_rhs} : tensor<2x16x8xf32>, tensor<2x32x16xf32> -> tensor<2x8x32xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_transpose_both_batched(%a: tensor<2x16x8xf32>, %b: tensor<2x32x16xf32>) -> tensor<2x8x32xf32> {
  %ta = nova.transpose %a permutation = [0, 2, 1] : tensor<2x16x8xf32> -> tensor<2x8x16xf32>
  %tb = nova.transpose %b permutation = [0, 2, 1] : tensor<2x32x16xf32> -> tensor<2x16x32xf32>
  %0 = nova.matmul %ta, %tb : tensor<2x8x16xf32>, tensor<2x16x32xf32> -> tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}

// -----

// A transposed operand under a set flag clears it (the lowering config stays).
// CHECK-LABEL: func.func @matmul_transpose_clears_flag
// CHECK-SAME: (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x32xf32>)
// CHECK-NEXT: %[[M:.*]] = nova.matmul %[[A]], %[[B]] {lowering_config = #nova.lowering_config<{{.*}}>} : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_transpose_clears_flag(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %t = nova.transpose %a permutation = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %0 = nova.matmul %t, %b {transpose_lhs, lowering_config = #nova.lowering_config<tile_sizes = [16, 16, 16], warp_layout = [1, 1], mma_shape = [16, 8, 16], pipeline_stages = 1, swizzle = 0>} : tensor<16x8xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// FoldTransposeIntoMatmul through a cast: autocast's weight, cast(t(w)), used
// by the forward and the input gradient's matmuls: the cast takes w as it
// lies, both layout flags flip and the transpose is gone (CSE then merges
// the two casts).
// CHECK-LABEL: func.func @matmul_cast_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xbf16>, %[[W:.*]]: tensor<32x16xf32>, %[[DY:.*]]: tensor<8x32xbf16>)
// CHECK-NOT:  nova.transpose
// CHECK:      %[[C0:.*]] = nova.cast %[[W]] : tensor<32x16xf32> -> tensor<32x16xbf16>
// CHECK:      nova.matmul %[[X]], %[[C0]] {transpose_rhs} : tensor<8x16xbf16>, tensor<32x16xbf16> -> tensor<8x32xbf16>
// CHECK:      %[[C1:.*]] = nova.cast %[[W]] : tensor<32x16xf32> -> tensor<32x16xbf16>
// CHECK:      nova.matmul %[[DY]], %[[C1]] : tensor<8x32xbf16>, tensor<32x16xbf16> -> tensor<8x16xbf16>
// CHECK-NOT:  nova.transpose
func.func @matmul_cast_transpose(%x: tensor<8x16xbf16>, %w: tensor<32x16xf32>, %dy: tensor<8x32xbf16>) -> (tensor<8x32xbf16>, tensor<8x16xbf16>) {
  %t = nova.transpose %w permutation = [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
  %c = nova.cast %t : tensor<16x32xf32> -> tensor<16x32xbf16>
  %y = nova.matmul %x, %c : tensor<8x16xbf16>, tensor<16x32xbf16> -> tensor<8x32xbf16>
  %dx = nova.matmul %dy, %c {transpose_rhs} : tensor<8x32xbf16>, tensor<16x32xbf16> -> tensor<8x16xbf16>
  return %y, %dx : tensor<8x32xbf16>, tensor<8x16xbf16>
}

// -----

// The cast also feeds a non-matmul: left as it is (a second cast of w
// would cost as much as the transpose saves).
// CHECK-LABEL: func.func @matmul_cast_transpose_shared
// CHECK:      nova.transpose
// CHECK:      %[[C:.*]] = nova.cast
// CHECK:      nova.matmul %{{.*}}, %[[C]] :
func.func @matmul_cast_transpose_shared(%x: tensor<8x16xbf16>, %w: tensor<32x16xf32>) -> (tensor<8x32xbf16>, tensor<16x32xbf16>) {
  %t = nova.transpose %w permutation = [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
  %c = nova.cast %t : tensor<16x32xf32> -> tensor<16x32xbf16>
  %y = nova.matmul %x, %c : tensor<8x16xbf16>, tensor<16x32xbf16> -> tensor<8x32xbf16>
  return %y, %c : tensor<8x32xbf16>, tensor<16x32xbf16>
}

// -----

// A transpose that has other uses is absorbed by the matmul and kept for them.
// CHECK-LABEL: func.func @matmul_transpose_shared
// CHECK-SAME: (%[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16x32xf32>)
// CHECK-NEXT: %[[T:.*]] = nova.transpose %[[A]] permutation = [1, 0]
// CHECK-NEXT: %[[M:.*]] = nova.matmul %[[A]], %[[B]] {transpose_lhs}
// CHECK-NEXT: return %[[M]], %[[T]]
func.func @matmul_transpose_shared(%a: tensor<16x8xf32>, %b: tensor<16x32xf32>) -> (tensor<8x32xf32>, tensor<8x16xf32>) {
  %t = nova.transpose %a permutation = [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %0 = nova.matmul %t, %b : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %0, %t : tensor<8x32xf32>, tensor<8x16xf32>
}

// -----

// Negative: a transpose that moves a batch dim is not a layout flag.
// CHECK-LABEL: func.func @no_fold_matmul_batch_transpose
// CHECK-SAME: (%[[A:.*]]: tensor<8x2x16xf32>, %[[B:.*]]: tensor<2x16x32xf32>)
// CHECK-NEXT: %[[T:.*]] = nova.transpose %[[A]] permutation = [1, 0, 2] : tensor<8x2x16xf32> -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[M:.*]] = nova.matmul %[[T]], %[[B]] : tensor<2x8x16xf32>, tensor<2x16x32xf32> -> tensor<2x8x32xf32>
// CHECK-NEXT: return %[[M]]
func.func @no_fold_matmul_batch_transpose(%a: tensor<8x2x16xf32>, %b: tensor<2x16x32xf32>) -> tensor<2x8x32xf32> {
  %t = nova.transpose %a permutation = [1, 0, 2] : tensor<8x2x16xf32> -> tensor<2x8x16xf32>
  %0 = nova.matmul %t, %b : tensor<2x8x16xf32>, tensor<2x16x32xf32> -> tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}

// -----

// Negative: swapping the inner dims together with the batch dims
// ([2, 1, 0]) is not an inner swap either.
// CHECK-LABEL: func.func @no_fold_matmul_full_reverse
// CHECK: nova.transpose %{{.*}} permutation = [2, 1, 0]
// CHECK: nova.matmul %{{.*}}, %{{.*}} : tensor<2x2x2xf32>, tensor<2x2x2xf32> -> tensor<2x2x2xf32>
func.func @no_fold_matmul_full_reverse(%a: tensor<2x2x2xf32>, %b: tensor<2x2x2xf32>) -> tensor<2x2x2xf32> {
  %t = nova.transpose %a permutation = [2, 1, 0] : tensor<2x2x2xf32> -> tensor<2x2x2xf32>
  %0 = nova.matmul %t, %b : tensor<2x2x2xf32>, tensor<2x2x2xf32> -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

// -----

// reverse(reverse(x)) along the same dims is x; reversing size-1 dims is a
// no-op.
// CHECK-LABEL: func.func @reverse_twice
// CHECK-SAME: (%[[X:.*]]: tensor<1x5xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @reverse_twice(%x: tensor<1x5xf32>) -> (tensor<1x5xf32>, tensor<1x5xf32>) {
  %0 = nova.reverse %x dims = [1] : tensor<1x5xf32>
  %1 = nova.reverse %0 dims = [1] : tensor<1x5xf32>
  %2 = nova.reverse %x dims = [0] : tensor<1x5xf32>
  return %1, %2 : tensor<1x5xf32>, tensor<1x5xf32>
}

// -----

// torch's cumsum backward (flip, cumsum, flip along one dim) is one suffix
// sum; reversing a suffix sum the same way gives the prefix sum back.
// CHECK-LABEL: func.func @flip_cumsum_flip
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK-NEXT: %[[S:.*]] = nova.cumsum %[[X]] dim = 1 reverse : tensor<2x5xf32>
// CHECK-NEXT: %[[P:.*]] = nova.cumsum %[[X]] dim = 1 : tensor<2x5xf32>
// CHECK-NEXT: return %[[S]], %[[P]]
func.func @flip_cumsum_flip(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = nova.reverse %x dims = [1] : tensor<2x5xf32>
  %1 = nova.cumsum %0 dim = 1 : tensor<2x5xf32>
  %2 = nova.reverse %1 dims = [1] : tensor<2x5xf32>
  %3 = nova.reverse %x dims = [1] : tensor<2x5xf32>
  %4 = nova.cumsum %3 dim = 1 reverse : tensor<2x5xf32>
  %5 = nova.reverse %4 dims = [1] : tensor<2x5xf32>
  return %2, %5 : tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

// Along another dim than the sum's, the reversals stay.
// CHECK-LABEL: func.func @flip_cumsum_flip_other_dim
// CHECK: nova.reverse
// CHECK: nova.cumsum
// CHECK: nova.reverse
func.func @flip_cumsum_flip_other_dim(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = nova.reverse %x dims = [0] : tensor<2x5xf32>
  %1 = nova.cumsum %0 dim = 1 : tensor<2x5xf32>
  %2 = nova.reverse %1 dims = [0] : tensor<2x5xf32>
  return %2 : tensor<2x5xf32>
}

// -----

// Rounding to TF32 twice is rounding once.
// CHECK-LABEL: func.func @round_tf32_twice
// CHECK-NEXT: %[[R:.*]] = nova.round_tf32 %arg0 : tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @round_tf32_twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nova.round_tf32 %x : tensor<4xf32>
  %1 = nova.round_tf32 %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
