// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --convert-nova-to-iree-kernels -verify-diagnostics

// pipeline_stages of a fused-rows kernel: 1 (a chunk at a time) or the whole
// row's chunks (768 columns in 4-wide vectors: 6).
func.func @stages_not_whole_row(%x: tensor<64x768xf32>) -> tensor<64x1xf32> {
  // expected-error @+1 {{fused_rows config cannot be built: pipeline_stages must be 1 (a chunk at a time) or the row's 6 chunks}}
  %r = nova.fused(%x) {lowering_config = #nova.lowering_config<tile_sizes = [1, 4, 1], warp_layout = [4, 1], mma_shape = [1, 1, 1], pipeline_stages = 3, swizzle = 0, kernel = "fused_rows", precision = "f32">} : (tensor<64x768xf32>) -> tensor<64x1xf32> {
  ^bb0(%a: tensor<64x768xf32>):
    %s = nova.reduce_sum %a dims = [1] keepdim : tensor<64x768xf32> -> tensor<64x1xf32>
    nova.yield %s : tensor<64x1xf32>
  }
  return %r : tensor<64x1xf32>
}

// -----

// A row without reductions is swept once: nothing to hold across sweeps.
func.func @whole_row_without_reductions(%x: tensor<64x768xf32>) -> tensor<64x768xf32> {
  // expected-error @+1 {{fused_rows config cannot be built: only a row swept more than once by one warp is held whole}}
  %r = nova.fused(%x) {lowering_config = #nova.lowering_config<tile_sizes = [1, 4, 1], warp_layout = [4, 1], mma_shape = [1, 1, 1], pipeline_stages = 6, swizzle = 0, kernel = "fused_rows", precision = "f32">} : (tensor<64x768xf32>) -> tensor<64x768xf32> {
  ^bb0(%a: tensor<64x768xf32>):
    %y = nova.mul %a, %a : tensor<64x768xf32>
    nova.yield %y : tensor<64x768xf32>
  }
  return %r : tensor<64x768xf32>
}
