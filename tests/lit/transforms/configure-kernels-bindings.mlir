// RUN: nova-opt %s --nova-configure-kernels="target=sm_90 remarks=true" -o /dev/null 2>&1 | FileCheck %s

// IREE 3.13's CUDA HAL binds at most 16 buffers to a dispatch: a region of
// 15 inputs and a result gets the fused-rows kernel, one of 16 inputs is
// left to IREE (inlined back), which splits it.
// CHECK: remark: fused rows 64x32
// CHECK: remark: not configured: 17 buffers, and a dispatch binds 16
func.func @fits(%a0: tensor<64x32xf32>, %a1: tensor<64x32xf32>, %a2: tensor<64x32xf32>, %a3: tensor<64x32xf32>, %a4: tensor<64x32xf32>, %a5: tensor<64x32xf32>, %a6: tensor<64x32xf32>, %a7: tensor<64x32xf32>, %a8: tensor<64x32xf32>, %a9: tensor<64x32xf32>, %a10: tensor<64x32xf32>, %a11: tensor<64x32xf32>, %a12: tensor<64x32xf32>, %a13: tensor<64x32xf32>, %a14: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = nova.fused(%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11, %a12, %a13, %a14) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32> {
  ^bb0(%b0: tensor<64x32xf32>, %b1: tensor<64x32xf32>, %b2: tensor<64x32xf32>, %b3: tensor<64x32xf32>, %b4: tensor<64x32xf32>, %b5: tensor<64x32xf32>, %b6: tensor<64x32xf32>, %b7: tensor<64x32xf32>, %b8: tensor<64x32xf32>, %b9: tensor<64x32xf32>, %b10: tensor<64x32xf32>, %b11: tensor<64x32xf32>, %b12: tensor<64x32xf32>, %b13: tensor<64x32xf32>, %b14: tensor<64x32xf32>):
    %s1 = nova.add %b0, %b1 : tensor<64x32xf32>
    %s2 = nova.add %s1, %b2 : tensor<64x32xf32>
    %s3 = nova.add %s2, %b3 : tensor<64x32xf32>
    %s4 = nova.add %s3, %b4 : tensor<64x32xf32>
    %s5 = nova.add %s4, %b5 : tensor<64x32xf32>
    %s6 = nova.add %s5, %b6 : tensor<64x32xf32>
    %s7 = nova.add %s6, %b7 : tensor<64x32xf32>
    %s8 = nova.add %s7, %b8 : tensor<64x32xf32>
    %s9 = nova.add %s8, %b9 : tensor<64x32xf32>
    %s10 = nova.add %s9, %b10 : tensor<64x32xf32>
    %s11 = nova.add %s10, %b11 : tensor<64x32xf32>
    %s12 = nova.add %s11, %b12 : tensor<64x32xf32>
    %s13 = nova.add %s12, %b13 : tensor<64x32xf32>
    %s14 = nova.add %s13, %b14 : tensor<64x32xf32>
    nova.yield %s14 : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}

func.func @too_many(%a0: tensor<64x32xf32>, %a1: tensor<64x32xf32>, %a2: tensor<64x32xf32>, %a3: tensor<64x32xf32>, %a4: tensor<64x32xf32>, %a5: tensor<64x32xf32>, %a6: tensor<64x32xf32>, %a7: tensor<64x32xf32>, %a8: tensor<64x32xf32>, %a9: tensor<64x32xf32>, %a10: tensor<64x32xf32>, %a11: tensor<64x32xf32>, %a12: tensor<64x32xf32>, %a13: tensor<64x32xf32>, %a14: tensor<64x32xf32>, %a15: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = nova.fused(%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11, %a12, %a13, %a14, %a15) : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32> {
  ^bb0(%b0: tensor<64x32xf32>, %b1: tensor<64x32xf32>, %b2: tensor<64x32xf32>, %b3: tensor<64x32xf32>, %b4: tensor<64x32xf32>, %b5: tensor<64x32xf32>, %b6: tensor<64x32xf32>, %b7: tensor<64x32xf32>, %b8: tensor<64x32xf32>, %b9: tensor<64x32xf32>, %b10: tensor<64x32xf32>, %b11: tensor<64x32xf32>, %b12: tensor<64x32xf32>, %b13: tensor<64x32xf32>, %b14: tensor<64x32xf32>, %b15: tensor<64x32xf32>):
    %s1 = nova.add %b0, %b1 : tensor<64x32xf32>
    %s2 = nova.add %s1, %b2 : tensor<64x32xf32>
    %s3 = nova.add %s2, %b3 : tensor<64x32xf32>
    %s4 = nova.add %s3, %b4 : tensor<64x32xf32>
    %s5 = nova.add %s4, %b5 : tensor<64x32xf32>
    %s6 = nova.add %s5, %b6 : tensor<64x32xf32>
    %s7 = nova.add %s6, %b7 : tensor<64x32xf32>
    %s8 = nova.add %s7, %b8 : tensor<64x32xf32>
    %s9 = nova.add %s8, %b9 : tensor<64x32xf32>
    %s10 = nova.add %s9, %b10 : tensor<64x32xf32>
    %s11 = nova.add %s10, %b11 : tensor<64x32xf32>
    %s12 = nova.add %s11, %b12 : tensor<64x32xf32>
    %s13 = nova.add %s12, %b13 : tensor<64x32xf32>
    %s14 = nova.add %s13, %b14 : tensor<64x32xf32>
    %s15 = nova.add %s14, %b15 : tensor<64x32xf32>
    nova.yield %s15 : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}
