// RUN: nova-opt %s --split-input-file --nova-split-reductions | FileCheck %s
// RUN: nova-opt %s --split-input-file --nova-split-reductions=rows-per-thread=256 | FileCheck %s --check-prefix=FIXED

// A bias-gradient sum over all tokens: two stages, in f32 for bf16; each
// loops over about sqrt(8192) rows (64 + 128), or 256 + 32 when fixed.
// CHECK-LABEL: func.func @bf16_sum
// CHECK-NEXT:    %[[R:.*]] = nova.reshape %arg0 : tensor<8192x64xbf16> -> tensor<64x128x64xbf16>
// CHECK-NEXT:    %[[W:.*]] = nova.cast %[[R]] : tensor<64x128x64xbf16> -> tensor<64x128x64xf32>
// CHECK-NEXT:    %[[S1:.*]] = nova.reduce_sum %[[W]] dims = [0] : tensor<64x128x64xf32> -> tensor<128x64xf32>
// CHECK-NEXT:    %[[S2:.*]] = nova.reduce_sum %[[S1]] dims = [0] : tensor<128x64xf32> -> tensor<64xf32>
// FIXED-LABEL: func.func @bf16_sum
// FIXED:         nova.reduce_sum %{{.*}} dims = [0] : tensor<256x32x64xf32> -> tensor<32x64xf32>
// FIXED-NEXT:    nova.reduce_sum %{{.*}} dims = [0] : tensor<32x64xf32> -> tensor<64xf32>
// CHECK-NEXT:    %[[N:.*]] = nova.cast %[[S2]] : tensor<64xf32> -> tensor<64xbf16>
// CHECK-NEXT:    return %[[N]]
func.func @bf16_sum(%x: tensor<8192x64xbf16>) -> tensor<64xbf16> {
  %0 = nova.reduce_sum %x dims = [0] : tensor<8192x64xbf16> -> tensor<64xbf16>
  return %0 : tensor<64xbf16>
}

// -----

// Several leading dims, keepdim, max: no widening, unit dims restored.
// CHECK-LABEL: func.func @max_keepdim
// CHECK-NEXT:    %[[R:.*]] = nova.reshape %arg0 : tensor<4x2048x8xf32> -> tensor<64x128x8xf32>
// CHECK-NEXT:    %[[M1:.*]] = nova.reduce_max %[[R]] dims = [0] : tensor<64x128x8xf32> -> tensor<128x8xf32>
// CHECK-NEXT:    %[[M2:.*]] = nova.reduce_max %[[M1]] dims = [0] : tensor<128x8xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[K:.*]] = nova.reshape %[[M2]] : tensor<8xf32> -> tensor<1x1x8xf32>
// CHECK-NEXT:    return %[[K]]
func.func @max_keepdim(%x: tensor<4x2048x8xf32>) -> tensor<1x1x8xf32> {
  %0 = nova.reduce_max %x dims = [0, 1] keepdim : tensor<4x2048x8xf32> -> tensor<1x1x8xf32>
  return %0 : tensor<1x1x8xf32>
}

// -----

// Left alone: too few rows (under 1024), a trailing (row-wise) reduction.
// CHECK-LABEL: func.func @unchanged
// CHECK-NEXT:    nova.reduce_mean %arg0 dims = [0] : tensor<1000x64xf32> -> tensor<64xf32>
// CHECK-NEXT:    nova.reduce_sum %arg1 dims = [1] : tensor<64x8192xf32> -> tensor<64xf32>
// CHECK-NEXT:    return
func.func @unchanged(%a: tensor<1000x64xf32>, %b: tensor<64x8192xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %0 = nova.reduce_mean %a dims = [0] : tensor<1000x64xf32> -> tensor<64xf32>
  %1 = nova.reduce_sum %b dims = [1] : tensor<64x8192xf32> -> tensor<64xf32>
  return %0, %1 : tensor<64xf32>, tensor<64xf32>
}

// -----

// A row kernel's 1024 column partials (nova-fuse-elementwise's first stage
// of a bias gradient over 16384 tokens): 32 + 32.
// CHECK-LABEL: func.func @partials
// CHECK-NEXT:    %[[R:.*]] = nova.reshape %arg0 : tensor<1024x768xf32> -> tensor<32x32x768xf32>
// CHECK-NEXT:    %[[S1:.*]] = nova.reduce_sum %[[R]] dims = [0] : tensor<32x32x768xf32> -> tensor<32x768xf32>
// CHECK-NEXT:    nova.reduce_sum %[[S1]] dims = [0] : tensor<32x768xf32> -> tensor<768xf32>
func.func @partials(%a: tensor<1024x768xf32>) -> tensor<768xf32> {
  %0 = nova.reduce_sum %a dims = [0] : tensor<1024x768xf32> -> tensor<768xf32>
  return %0 : tensor<768xf32>
}

// -----

// A reduction to a scalar (a loss's sum and its count of targets over the
// tokens): row-wise over [parts, R / parts] first, then over the parts.
// CHECK-LABEL: func.func @to_scalar
// CHECK-NEXT:    %[[R:.*]] = nova.reshape %arg0 : tensor<16384xi64> -> tensor<128x128xi64>
// CHECK-NEXT:    %[[S1:.*]] = nova.reduce_sum %[[R]] dims = [1] : tensor<128x128xi64> -> tensor<128xi64>
// CHECK-NEXT:    %[[S2:.*]] = nova.reduce_sum %[[S1]] dims = [0] : tensor<128xi64> -> tensor<i64>
// CHECK-NEXT:    %[[M:.*]] = nova.reshape %arg1 : tensor<32x512xf32> -> tensor<128x128xf32>
// CHECK-NEXT:    %[[M1:.*]] = nova.reduce_max %[[M]] dims = [1] : tensor<128x128xf32> -> tensor<128xf32>
// CHECK-NEXT:    %[[M2:.*]] = nova.reduce_max %[[M1]] dims = [0] : tensor<128xf32> -> tensor<f32>
// CHECK-NEXT:    %[[K:.*]] = nova.reshape %[[M2]] : tensor<f32> -> tensor<1x1xf32>
// CHECK-NEXT:    return %[[S2]], %[[K]]
func.func @to_scalar(%c: tensor<16384xi64>, %x: tensor<32x512xf32>) -> (tensor<i64>, tensor<1x1xf32>) {
  %0 = nova.reduce_sum %c dims = [0] : tensor<16384xi64> -> tensor<i64>
  %1 = nova.reduce_max %x dims = [0, 1] keepdim : tensor<32x512xf32> -> tensor<1x1xf32>
  return %0, %1 : tensor<i64>, tensor<1x1xf32>
}

// -----

// A column-sums region's reductions (nova-fuse-elementwise=column-sums) are
// its kernel's, one launch: not split.
// CHECK-LABEL: func.func @column_sums_region
// CHECK:         nova.fused
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      nova.reduce_sum %{{.*}} dims = [0] : tensor<1024x512xf32> -> tensor<512xf32>
// CHECK-NEXT:      nova.yield
func.func @column_sums_region(%p: tensor<1024x512xf32>) -> tensor<512xf32> {
  %r = nova.fused(%p) : (tensor<1024x512xf32>) -> tensor<512xf32> {
  ^bb0(%a: tensor<1024x512xf32>):
    %s = nova.reduce_sum %a dims = [0] : tensor<1024x512xf32> -> tensor<512xf32>
    nova.yield %s : tensor<512xf32>
  }
  return %r : tensor<512xf32>
}
