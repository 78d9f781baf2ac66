// RUN: nova-opt %s --split-input-file --nova-bucket-all-reduce="bucket-bytes=64" | FileCheck %s

// Gradients produced in the order %g2 (16 B), %g1 (32 B), %g0 (32 B) (the
// backward's order), all-reduced at the end as the capture marks them.
// Buckets of at most 64 bytes in production order: [%g2, %g1] and [%g0].
// The first bucket is one all-reduce of the two flattened and concatenated,
// right after %g1 is produced (before %g0's matmul); %g0's is moved right
// after %g0. The optimizer reads the split-back values.
// CHECK-LABEL: func.func @buckets
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// CHECK:         %[[G2:.*]] = nova.mul %[[X]], %[[X]] : tensor<2x4xf32>
// CHECK-NEXT:    %[[G1:.*]] = nova.add %[[X]], %[[X]] : tensor<2x4xf32>
// CHECK-NEXT:    %[[F2:.*]] = nova.reshape %[[G2]] : tensor<2x4xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[F1:.*]] = nova.reshape %[[G1]] : tensor<2x4xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[CAT:.*]] = nova.concat %[[F2]], %[[F1]] dim = 0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<16xf32>
// CHECK-NEXT:    %[[R:.*]] = nova.all_reduce "mean" %[[CAT]] : tensor<16xf32>
// CHECK-NEXT:    %[[S2:.*]] = nova.slice %[[R]][0:8:1] : tensor<16xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[R2:.*]] = nova.reshape %[[S2]] : tensor<8xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[S1:.*]] = nova.slice %[[R]][8:16:1] : tensor<16xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[R1:.*]] = nova.reshape %[[S1]] : tensor<8xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[G0:.*]] = nova.matmul %[[W]], %[[W]] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT:    %[[R0:.*]] = nova.all_reduce "mean" %[[G0]] : tensor<4x4xf32>
// CHECK-NEXT:    %[[U0:.*]] = nova.sub %[[W]], %[[R0]] : tensor<4x4xf32>
// CHECK-NEXT:    %[[U1:.*]] = nova.sub %[[X]], %[[R1]] : tensor<2x4xf32>
// CHECK-NEXT:    %[[U2:.*]] = nova.sub %[[X]], %[[R2]] : tensor<2x4xf32>
// CHECK-NEXT:    return %[[U0]], %[[U1]], %[[U2]]
func.func @buckets(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %g2 = nova.mul %x, %x : tensor<2x4xf32>
  %g1 = nova.add %x, %x : tensor<2x4xf32>
  %g0 = nova.matmul %w, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %r0 = nova.all_reduce "mean" %g0 : tensor<4x4xf32>
  %r1 = nova.all_reduce "mean" %g1 : tensor<2x4xf32>
  %r2 = nova.all_reduce "mean" %g2 : tensor<2x4xf32>
  %u0 = nova.sub %w, %r0 : tensor<4x4xf32>
  %u1 = nova.sub %x, %r1 : tensor<2x4xf32>
  %u2 = nova.sub %x, %r2 : tensor<2x4xf32>
  return %u0, %u1, %u2 : tensor<4x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// A bucket holds one element type and one reduction: the bf16 gradient and
// the sum start buckets of their own although all would fit.
// CHECK-LABEL: func.func @bucket_kinds
// CHECK:         nova.all_reduce "mean" %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    nova.all_reduce "mean" %{{.*}} : tensor<4xbf16>
// CHECK-NEXT:    nova.all_reduce "sum" %{{.*}} : tensor<4xf32>
// CHECK-NOT:     nova.concat
func.func @bucket_kinds(%a: tensor<4xf32>, %b: tensor<4xbf16>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>) {
  %0 = nova.all_reduce "mean" %a : tensor<4xf32>
  %1 = nova.all_reduce "mean" %b : tensor<4xbf16>
  %2 = nova.all_reduce "sum" %c : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>
}
