// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels | FileCheck %s --check-prefix=DISPATCH
// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s
// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 remarks" 2>&1 | FileCheck %s --check-prefix=REMARK

// A layer norm backward's column partials (gain, bias, and the linear bias
// before it; a mean and a max too, as a region may yield them), summed over
// their groups in one launch: one CTA of 32 warps per 32 columns of an input
// (16 + 16 + 13 column blocks; the last input's 400 columns end in a partial
// block), each warp 8 rows in flight; the warps' sums meet in shared memory
// and warp 0 adds them up and stores them.
// REMARK: remark: column sums of 3 inputs
// DISPATCH-LABEL: func.func @layer_norm_partials
// DISPATCH:  %[[CTAS:.*]] = arith.constant 45 : index
// DISPATCH:  "flow.dispatch"(%[[CTAS]], %arg0, %arg1, %arg2) <{entry_points = [@[[K:nova_column_sums_n3_0x[0-9a-f]+]]::@[[K]]]
// DISPATCH-SAME: -> (tensor<512xf32>, tensor<400xf32>, tensor<512xf32>)
// CHECK-LABEL: .visible .entry nova_column_sums_n3_
// CHECK:      .maxntid 1024, 1, 1
// CHECK:      .shared .align 16 .b8 nova_column_sums[4224];
// CHECK-COUNT-8: ld.global.nc.b32
// CHECK:      add.f32
// CHECK:      bar.sync 0;
// CHECK:      st.global.b32
// The mean: its sum times 1 / 64 (0f3C800000); the max from -inf.
// CHECK-DAG:  mul.f32 {{.*}}, 0f3C800000;
// CHECK-DAG:  mov.b32 {{.*}}, 0fFF800000;
// CHECK-DAG:  max.f32
func.func @layer_norm_partials(%g: tensor<1024x512xf32>, %m: tensor<64x512xf32>, %x: tensor<1024x400xf32>) -> (tensor<512xf32>, tensor<400xf32>, tensor<512xf32>) {
  %r:3 = nova.fused(%g, %m, %x) : (tensor<1024x512xf32>, tensor<64x512xf32>, tensor<1024x400xf32>) -> (tensor<512xf32>, tensor<400xf32>, tensor<512xf32>) {
  ^bb0(%a: tensor<1024x512xf32>, %b: tensor<64x512xf32>, %c: tensor<1024x400xf32>):
    %s = nova.reduce_sum %a dims = [0] : tensor<1024x512xf32> -> tensor<512xf32>
    %x1 = nova.reduce_max %c dims = [0] : tensor<1024x400xf32> -> tensor<400xf32>
    %mean = nova.reduce_mean %b dims = [0] : tensor<64x512xf32> -> tensor<512xf32>
    nova.yield %s, %x1, %mean : tensor<512xf32>, tensor<400xf32>, tensor<512xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<512xf32>, tensor<400xf32>, tensor<512xf32>
}

// -----

// Anything else in such a region (here a cast) makes it a row kernel's or
// nobody's: no column-sums config.
// REMARK: remark: not configured
// DISPATCH-LABEL: func.func @not_only_reductions
// DISPATCH:       nova.fused
func.func @not_only_reductions(%g: tensor<1024x512xf32>) -> tensor<512xbf16> {
  %r = nova.fused(%g) : (tensor<1024x512xf32>) -> tensor<512xbf16> {
  ^bb0(%a: tensor<1024x512xf32>):
    %s = nova.reduce_sum %a dims = [0] : tensor<1024x512xf32> -> tensor<512xf32>
    %c = nova.cast %s : tensor<512xf32> -> tensor<512xbf16>
    nova.yield %c : tensor<512xbf16>
  }
  return %r : tensor<512xbf16>
}
