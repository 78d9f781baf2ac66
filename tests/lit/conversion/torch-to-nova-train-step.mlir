// Whole captured training steps (tests/lit/torch-inputs, written by
// tests/python/test_capture.py) convert completely: no torch op or type is
// left and the nova program verifies.

// RUN: nova-opt %nova_torch_inputs/gpt_tiny_adamw_train_step.mlir \
// RUN:     --allow-unregistered-dialect --convert-torch-to-nova \
// RUN:   | FileCheck %s --check-prefix=GPT --implicit-check-not=torch.aten \
// RUN:       --implicit-check-not='"torch' --implicit-check-not='!torch'

// RUN: nova-opt %nova_torch_inputs/mlp_sgd_train_step.mlir \
// RUN:     --allow-unregistered-dialect --convert-torch-to-nova \
// RUN:   | FileCheck %s --check-prefix=MLP --implicit-check-not=torch.aten \
// RUN:       --implicit-check-not='"torch' --implicit-check-not='!torch'

// gpt-tiny (vocab 256, d 64, 2 layers, T 32, batch 2) with AdamW: token and
// position embeddings, per layer a causal softmax and a tanh GELU, the
// embedding backwards as scatter-adds, one nova.adamw per parameter (28).
// GPT-LABEL: func.func @main(
// GPT-SAME:      %arg0: tensor<256x64xf32>
// GPT-SAME:      %arg89: tensor<f32>, %arg90: tensor<2x32xi64>, %arg91: tensor<2x32xi64>)
// GPT-SAME:      -> (tensor<f32>, tensor<256x64xf32>,
// GPT:         nova.embedding %arg0[%arg90] : tensor<256x64xf32>, tensor<2x32xi64> -> tensor<2x32x64xf32>
// GPT:         nova.embedding %arg1[%{{.*}}] : tensor<32x64xf32>, tensor<32xi64> -> tensor<32x64xf32>
// GPT:         nova.softmax %{{.*}} dim = 3 : tensor<2x4x32x32xf32>
// GPT:         nova.gelu %{{.*}} approximation = tanh : tensor<2x32x256xf32>
// GPT:         nova.softmax %{{.*}} dim = 3 : tensor<2x4x32x32xf32>
// GPT:         nova.gelu %{{.*}} approximation = tanh : tensor<2x32x256xf32>
// GPT:         nova.gather %{{.*}}[%{{.*}}] dim = 1 : tensor<64x256xf32>, tensor<64x1xi64> -> tensor<64x1xf32>
// GPT:         nova.scatter_add %{{.*}}[%{{.*}}], %{{.*}} : tensor<32x64xf32>, tensor<32xi64>, tensor<32x64xf32> -> tensor<32x64xf32>
// GPT:         nova.scatter_add %{{.*}}[%{{.*}}], %{{.*}} : tensor<256x64xf32>, tensor<2x32xi64>, tensor<2x32x64xf32> -> tensor<256x64xf32>
// GPT-COUNT-28: nova.adamw
// GPT:         return

// MLP-LABEL: func.func @main(
// MLP-SAME:      -> (tensor<f32>, tensor<16x8xf32>, tensor<16xf32>, tensor<4x16xf32>, tensor<4xf32>, tensor<16x8xf32>, tensor<16xf32>, tensor<4x16xf32>, tensor<4xf32>)
// MLP:         nova.relu
// MLP:         nova.gather
// MLP-COUNT-4: nova.sgd
// MLP:         return
