// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 f32-matmul-precision=high attention-head-groups=false" --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 f32-matmul-precision=high remarks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 f32-matmul-precision=high attention-head-groups=false" --convert-nova-to-iree-kernels | FileCheck %s --check-prefix=IR

// f32 attention at head dim 128 under TF32: the forward's Q tile [128, 128]
// f32 is 64 KiB, so two of them leave room for two stages of 32-key K and
// V^T blocks; the configurator keeps one Q tile and four stages (213 KB of
// shared memory). The backward has no TF32 kernel at this head dim (K, V
// and K^T resident take 192 KiB): it stays for the decomposition.
// REMARK: remark: attention 2x333x128: flash_wgmma 128x32 (d 128), 4 stages, one Q tile,
// REMARK: remark: not configured: the TF32 backward kernel takes head dim 64 only

// IR-LABEL: func.func @attention_tf32_d128
// IR:         "flow.dispatch"{{.*}}entry_points = [@nova_attention_fwd_d128_128x32_s4_causal_tf32_q1::
// IR:         nova.attention_backward

// S = Q K^T as m64n32k8 (16 a block: D = 128 in k8 steps), O += P V^T' as
// m64n128k8 (4 a block: 32 keys); the first item's first S (before the
// producer's loads), then each block's S with the previous block's P V,
// and at an item's end the next item's first S with the last P V.
// CHECK-LABEL: .visible .entry nova_attention_fwd_d128_128x32_s4_causal_tf32_q1(
// CHECK-COUNT-6: .param .u64 .ptr .global
// CHECK-COUNT-16: .param .u32
// CHECK-COUNT-16: wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32
// CHECK:      cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-COUNT-16: wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK-COUNT-16: wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK-NOT:  wgmma.mma_async
// CHECK:      st.global.v2.b32
// CHECK-NOT:  nova_attention_bwd
func.func @attention_tf32_d128(%q: tensor<1x2x333x128xf32>, %k: tensor<1x2x333x128xf32>, %v: tensor<1x2x333x128xf32>, %do: tensor<1x2x333x128xf32>) -> (tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>) {
  %o, %lse = nova.attention %q, %k, %v {causal, scale = 0.088388347648318 : f64} : tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32> -> tensor<1x2x333x128xf32>, tensor<1x2x333xf32>
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %lse {causal, scale = 0.088388347648318 : f64} : tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>, tensor<1x2x333xf32> -> tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>
  return %o, %dq, %dk, %dv : tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>, tensor<1x2x333x128xf32>
}
