// RUN: nova-opt %s --split-input-file --nova-convert-packed-params | FileCheck %s
// RUN: nova-opt %s --split-input-file --nova-convert-packed-params=min-coverage=0.99 | FileCheck %s --check-prefix=STRICT

// Two weights and a bias cast to bf16 cover 4160 of the group's 4224
// elements: one cast of the group (as rows of 128, which a row kernel runs),
// each member a slice of it; the f32 view the bias's add still reads stays.
// CHECK-LABEL: func.func @bf16_group
// CHECK-NEXT:    %[[R:.*]] = nova.reshape %arg0 : tensor<4224xf32> -> tensor<33x128xf32>
// CHECK-NEXT:    %[[C:.*]] = nova.cast %[[R]] : tensor<33x128xf32> -> tensor<33x128xbf16>
// CHECK-NEXT:    %[[W:.*]] = nova.reshape %[[C]] : tensor<33x128xbf16> -> tensor<4224xbf16>
// CHECK-NEXT:    %[[S0:.*]] = nova.slice %[[W]][0:2048:1] : tensor<4224xbf16> -> tensor<2048xbf16>
// CHECK-NEXT:    %[[A:.*]] = nova.reshape %[[S0]] : tensor<2048xbf16> -> tensor<32x64xbf16>
// CHECK-NEXT:    %[[S1:.*]] = nova.slice %[[W]][2048:4096:1] : tensor<4224xbf16> -> tensor<2048xbf16>
// CHECK-NEXT:    %[[B:.*]] = nova.reshape %[[S1]] : tensor<2048xbf16> -> tensor<64x32xbf16>
// CHECK-NEXT:    %[[BIAS:.*]] = nova.slice %arg0[4096:4160:1] : tensor<4224xf32> -> tensor<64xf32>
// CHECK-NEXT:    %[[S2:.*]] = nova.slice %[[W]][4096:4160:1] : tensor<4224xbf16> -> tensor<64xbf16>
// CHECK-NEXT:    %[[P:.*]] = nova.matmul %[[A]], %[[B]]
// CHECK-NEXT:    %[[F:.*]] = nova.add %[[BIAS]], %[[BIAS]]
// CHECK-NEXT:    return %[[P]], %[[S2]], %[[F]]
// STRICT-LABEL: func.func @bf16_group
// STRICT-NOT:    nova.cast %arg0
// STRICT-COUNT-3: nova.cast
func.func @bf16_group(%flat: tensor<4224xf32>) -> (tensor<32x32xbf16>, tensor<64xbf16>, tensor<64xf32>) {
  %0 = nova.slice %flat[0:2048:1] : tensor<4224xf32> -> tensor<2048xf32>
  %1 = nova.reshape %0 : tensor<2048xf32> -> tensor<32x64xf32>
  %2 = nova.cast %1 : tensor<32x64xf32> -> tensor<32x64xbf16>
  %3 = nova.slice %flat[2048:4096:1] : tensor<4224xf32> -> tensor<2048xf32>
  %4 = nova.reshape %3 : tensor<2048xf32> -> tensor<64x32xf32>
  %5 = nova.cast %4 : tensor<64x32xf32> -> tensor<64x32xbf16>
  %6 = nova.slice %flat[4096:4160:1] : tensor<4224xf32> -> tensor<64xf32>
  %7 = nova.cast %6 : tensor<64xf32> -> tensor<64xbf16>
  %8 = nova.matmul %2, %5 : tensor<32x64xbf16>, tensor<64x32xbf16> -> tensor<32x32xbf16>
  %9 = nova.add %6, %6 : tensor<64xf32>
  return %8, %7, %9 : tensor<32x32xbf16>, tensor<64xbf16>, tensor<64xf32>
}

// -----

// TF32 rounding likewise; a member rounded twice counts once.
// CHECK-LABEL: func.func @tf32_group
// CHECK-NEXT:    %[[V:.*]] = nova.reshape %arg0 : tensor<4096xf32> -> tensor<8x512xf32>
// CHECK-NEXT:    %[[T:.*]] = nova.round_tf32 %[[V]] : tensor<8x512xf32>
// CHECK-NEXT:    %[[R:.*]] = nova.reshape %[[T]] : tensor<8x512xf32> -> tensor<4096xf32>
// CHECK-NEXT:    %[[S0:.*]] = nova.slice %[[R]][0:2048:1]
// CHECK-NEXT:    nova.reshape %[[S0]] : tensor<2048xf32> -> tensor<32x64xf32>
// CHECK-NEXT:    %[[S1:.*]] = nova.slice %[[R]][0:2048:1]
// CHECK-NEXT:    nova.reshape %[[S1]] : tensor<2048xf32> -> tensor<32x64xf32>
// CHECK-NEXT:    %[[S2:.*]] = nova.slice %[[R]][2048:4096:1]
// CHECK-NOT:     nova.round_tf32
func.func @tf32_group(%flat: tensor<4096xf32>) -> (tensor<32x64xf32>, tensor<32x64xf32>, tensor<2048xf32>) {
  %0 = nova.slice %flat[0:2048:1] : tensor<4096xf32> -> tensor<2048xf32>
  %1 = nova.reshape %0 : tensor<2048xf32> -> tensor<32x64xf32>
  %2 = nova.round_tf32 %1 : tensor<32x64xf32>
  %3 = nova.round_tf32 %1 : tensor<32x64xf32>
  %4 = nova.slice %flat[2048:4096:1] : tensor<4096xf32> -> tensor<2048xf32>
  %5 = nova.round_tf32 %4 : tensor<2048xf32>
  return %2, %3, %5 : tensor<32x64xf32>, tensor<32x64xf32>, tensor<2048xf32>
}

// -----

// Left alone: one member converted; members covering too little of their
// group; a strided slice; a cast to another type.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     {{nova.(cast|reshape) %arg}}
// CHECK:         return
func.func @left_alone(%one: tensor<4096xf32>, %sparse: tensor<8192xf32>, %strided: tensor<4096xf32>, %f16: tensor<4096xf32>)
    -> (tensor<4032xbf16>, tensor<2048xbf16>, tensor<2048xbf16>, tensor<2048xbf16>, tensor<2048xbf16>, tensor<2048xf16>, tensor<2048xf16>) {
  %s = nova.slice %one[0:4032:1] : tensor<4096xf32> -> tensor<4032xf32>
  %0 = nova.cast %s : tensor<4032xf32> -> tensor<4032xbf16>
  %1 = nova.slice %sparse[0:2048:1] : tensor<8192xf32> -> tensor<2048xf32>
  %2 = nova.cast %1 : tensor<2048xf32> -> tensor<2048xbf16>
  %3 = nova.slice %sparse[2048:4096:1] : tensor<8192xf32> -> tensor<2048xf32>
  %4 = nova.cast %3 : tensor<2048xf32> -> tensor<2048xbf16>
  %5 = nova.slice %strided[0:4096:2] : tensor<4096xf32> -> tensor<2048xf32>
  %6 = nova.cast %5 : tensor<2048xf32> -> tensor<2048xbf16>
  %7 = nova.slice %strided[1:4096:2] : tensor<4096xf32> -> tensor<2048xf32>
  %8 = nova.cast %7 : tensor<2048xf32> -> tensor<2048xbf16>
  %9 = nova.slice %f16[0:2048:1] : tensor<4096xf32> -> tensor<2048xf32>
  %10 = nova.cast %9 : tensor<2048xf32> -> tensor<2048xf16>
  %11 = nova.slice %f16[2048:4096:1] : tensor<4096xf32> -> tensor<2048xf32>
  %12 = nova.cast %11 : tensor<2048xf32> -> tensor<2048xf16>
  return %0, %2, %4, %6, %8, %10, %12 : tensor<4032xbf16>, tensor<2048xbf16>, tensor<2048xbf16>, tensor<2048xbf16>, tensor<2048xbf16>, tensor<2048xf16>, tensor<2048xf16>
}

// -----

// A group no row width (512, 256, 128 or 64) divides is cast flat.
// CHECK-LABEL: func.func @flat_group
// CHECK-NEXT:    %[[W:.*]] = nova.cast %arg0 : tensor<4100xf32> -> tensor<4100xbf16>
// CHECK-NEXT:    nova.slice %[[W]][0:2048:1]
// CHECK-NEXT:    nova.slice %[[W]][2048:4100:1]
func.func @flat_group(%flat: tensor<4100xf32>) -> (tensor<2048xbf16>, tensor<2052xbf16>) {
  %0 = nova.slice %flat[0:2048:1] : tensor<4100xf32> -> tensor<2048xf32>
  %1 = nova.cast %0 : tensor<2048xf32> -> tensor<2048xbf16>
  %2 = nova.slice %flat[2048:4100:1] : tensor<4100xf32> -> tensor<2052xf32>
  %3 = nova.cast %2 : tensor<2052xf32> -> tensor<2052xbf16>
  return %1, %3 : tensor<2048xbf16>, tensor<2052xbf16>
}
