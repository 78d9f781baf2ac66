// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels | FileCheck %s --check-prefix=DISPATCH
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s

// A nova.fused region whose first op is its matmul runs in the epilogue of
// Nova's GEMM. Here an MLP's GELU backward as nova-fuse-matmul-epilogue
// forms it: one dispatch reads dY, W2, the bias and the pre-activation and
// writes the bf16 gradient, the bias gradient's partial sums (one row per
// 16) and the GELU output.
// DISPATCH-LABEL: func.func @gelu_backward
// DISPATCH-NOT:   nova.
// DISPATCH:       %[[R:.+]]:4 = "flow.dispatch"(%{{.+}}, %{{.+}}, %{{.+}}, %arg2, %arg3, %{{.+}}) <{entry_points = [@[[K:nova_gemm_bf16_kn_bf16_[0-9]+x[0-9]+x64_s[0-9]+_c[12]_g[0-9]+_k1_tma_e0x[0-9a-f]+]]::@[[K]]]
// DISPATCH-SAME:  -> (tensor<2048x512xbf16>, tensor<128x512xf32>, tensor<2048x512xbf16>, tensor<{{[0-9]+}}xi32>)
// DISPATCH:       return %[[R]]#0, %[[R]]#1, %[[R]]#2
// A, B, the bias and the pre-activation, the three results, the tensor-map
// scratch (A, B and a map per stored result), then M, N, K, batch.
// CHECK:      .visible .entry nova_gemm_bf16_kn_bf16_{{.*}}_tma_e0x{{[0-9a-f]+}}(
// CHECK-COUNT-8: .param .u64 .ptr .global
// CHECK-COUNT-4: .param .u32
// Five tensor maps a CTA: A, B, the gradient, the GELU output and the
// pre-activation.
// CHECK-COUNT-5: fence.proxy.tensormap::generic.acquire.gpu [%rd{{[0-9]+}}], 128;
// The consumer TMA-loads its rows of the pre-activation's tile (two boxes
// of 64 columns) as it starts the tile, completing on its inputs barrier,
// the main loop runs under them, and the epilogue waits on the barrier
// before it reads the pairs from shared memory.
// Each thread's bias pairs (one a column group) are loaded as the tile
// starts too, into registers.
// CHECK-COUNT-16: ld.global.nc.b32
// CHECK:      mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [nova_gemm_shared+[[INPUTS:[0-9]+]]], %r{{[0-9]+}};
// CHECK:      cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [nova_gemm_shared+[[INPUTS]]];
// CHECK:      cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [nova_gemm_shared+[[INPUTS]]];
// CHECK:      wgmma.mma_async.sync.aligned
// CHECK:      add.s32 %r{{[0-9]+}}, %r{{[0-9]+}}, [[INPUTS]];
// CHECK:      mbarrier.try_wait.parity.shared.b64
// The epilogue reads the pre-activation from shared memory (no global
// loads), computes tanh from ex2 and rcp, sums each column over a warp's 16
// rows by butterfly shuffles over lanes 4, 8 and 16 apart and stores the
// sums as f32 pairs; each result is staged in shared memory and TMA-stored.
// CHECK-NOT:  ld.global
// CHECK-DAG:  ld.shared.v2.b16
// CHECK-DAG:  ex2.approx.ftz.f32
// CHECK-DAG:  rcp.approx.ftz.f32
// CHECK-DAG:  shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK-DAG:  shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// CHECK-DAG:  shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK-DAG:  st.global.v2.b32
// CHECK-DAG:  cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// CHECK-DAG:  cp.async.bulk.wait_group.read 0;
func.func @gelu_backward(%dy: tensor<2048x256xbf16>, %w: tensor<256x512xbf16>, %b: tensor<512xbf16>, %h: tensor<2048x512xbf16>) -> (tensor<2048x512xbf16>, tensor<128x512xf32>, tensor<2048x512xbf16>) {
  %r:3 = nova.fused(%dy, %w, %b, %h) : (tensor<2048x256xbf16>, tensor<256x512xbf16>, tensor<512xbf16>, tensor<2048x512xbf16>) -> (tensor<2048x512xbf16>, tensor<128x512xf32>, tensor<2048x512xbf16>) {
  ^bb0(%lhs: tensor<2048x256xbf16>, %rhs: tensor<256x512xbf16>, %bias: tensor<512xbf16>, %x: tensor<2048x512xbf16>):
    %d = nova.matmul %lhs, %rhs : tensor<2048x256xbf16>, tensor<256x512xbf16> -> tensor<2048x512xbf16>
    %half = nova.constant dense<5.000000e-01> : tensor<2048x512xf32>
    %one = nova.constant dense<1.000000e+00> : tensor<2048x512xf32>
    %bb = nova.broadcast_in_dim %bias dims = [1] : tensor<512xbf16> -> tensor<2048x512xbf16>
    %pre = nova.add %x, %bb : tensor<2048x512xbf16>
    %p32 = nova.cast %pre : tensor<2048x512xbf16> -> tensor<2048x512xf32>
    %t = nova.tanh %p32 : tensor<2048x512xf32>
    %t1 = nova.add %t, %one : tensor<2048x512xf32>
    %dg = nova.mul %t1, %half : tensor<2048x512xf32>
    %d32 = nova.cast %d : tensor<2048x512xbf16> -> tensor<2048x512xf32>
    %dx = nova.mul %d32, %dg : tensor<2048x512xf32>
    %out = nova.cast %dx : tensor<2048x512xf32> -> tensor<2048x512xbf16>
    %groups = nova.reshape %dx : tensor<2048x512xf32> -> tensor<128x16x512xf32>
    %sums = nova.reduce_sum %groups dims = [1] : tensor<128x16x512xf32> -> tensor<128x512xf32>
    %y = nova.mul %p32, %dg : tensor<2048x512xf32>
    %yb = nova.cast %y : tensor<2048x512xf32> -> tensor<2048x512xbf16>
    nova.yield %out, %sums, %yb : tensor<2048x512xbf16>, tensor<128x512xf32>, tensor<2048x512xbf16>
  }
  return %r#0, %r#1, %r#2 : tensor<2048x512xbf16>, tensor<128x512xf32>, tensor<2048x512xbf16>
}
