// RUN: nova-opt %s --allow-unregistered-dialect --convert-torch-to-nova \
// RUN:     -split-input-file -verify-diagnostics

// Inputs from torch-mlir's FX importer unless said otherwise; hand-written
// cases mimic its output.

// An op without a handler is named; its users are not reported again.
"func.func"() <{function_type = (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>, sym_name = "atan"}> ({
^bb0(%arg0: !torch.vtensor<[4,8],f32>):
  // expected-error@+1 {{unsupported torch op 'torch.aten.atan'}}
  %2 = "torch.aten.atan"(%arg0) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
  %3 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
  %4 = "torch.aten.add.Tensor"(%2, %arg0, %3) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],f32>
  "func.return"(%4) : (!torch.vtensor<[4,8],f32>) -> ()
}) : () -> ()

// -----

// A handled op in a form nova cannot express says why.
"func.func"() <{function_type = (!torch.vtensor<[10,8],f32>, !torch.vtensor<[3],si64>, !torch.vtensor<[3,8],f32>) -> !torch.vtensor<[10,8],f32>, sym_name = "index_put_overwrite"}> ({
^bb0(%arg0: !torch.vtensor<[10,8],f32>, %arg1: !torch.vtensor<[3],si64>, %arg2: !torch.vtensor<[3,8],f32>):
  %0 = "torch.prim.ListConstruct"(%arg1) : (!torch.vtensor<[3],si64>) -> !torch.list<optional<vtensor>>
  %1 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
  // expected-error@+1 {{unsupported torch op 'torch.aten.index_put': only accumulate=true is supported}}
  %2 = "torch.aten.index_put"(%arg0, %0, %arg2, %1) : (!torch.vtensor<[10,8],f32>, !torch.list<optional<vtensor>>, !torch.vtensor<[3,8],f32>, !torch.bool) -> !torch.vtensor<[10,8],f32>
  "func.return"(%2) : (!torch.vtensor<[10,8],f32>) -> ()
}) : () -> ()

// -----

"func.func"() <{function_type = (!torch.vtensor<[3,8],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[10,8],f32>, sym_name = "embedding_backward_by_frequency"}> ({
^bb0(%arg0: !torch.vtensor<[3,8],f32>, %arg1: !torch.vtensor<[3],si64>):
  %0 = "torch.constant.int"() <{value = 10 : i64}> : () -> !torch.int
  %1 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
  %2 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
  // expected-error@+1 {{unsupported torch op 'torch.aten.embedding_dense_backward': scale_grad_by_freq is not supported}}
  %3 = "torch.aten.embedding_dense_backward"(%arg0, %arg1, %0, %1, %2) : (!torch.vtensor<[3,8],f32>, !torch.vtensor<[3],si64>, !torch.int, !torch.int, !torch.bool) -> !torch.vtensor<[10,8],f32>
  "func.return"(%3) : (!torch.vtensor<[10,8],f32>) -> ()
}) : () -> ()

// -----

// scatter's one-hot lowering is for the few index entries of a loss backward.
"func.func"() <{function_type = (!torch.vtensor<[4,32],f32>, !torch.vtensor<[4,20],si64>, !torch.vtensor<[4,20],f32>) -> !torch.vtensor<[4,32],f32>, sym_name = "wide_scatter"}> ({
^bb0(%arg0: !torch.vtensor<[4,32],f32>, %arg1: !torch.vtensor<[4,20],si64>, %arg2: !torch.vtensor<[4,20],f32>):
  %0 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
  // expected-error@+1 {{unsupported torch op 'torch.aten.scatter.src': the index has 20 entries along dim 1; at most 16 are supported}}
  %1 = "torch.aten.scatter.src"(%arg0, %0, %arg1, %arg2) : (!torch.vtensor<[4,32],f32>, !torch.int, !torch.vtensor<[4,20],si64>, !torch.vtensor<[4,20],f32>) -> !torch.vtensor<[4,32],f32>
  "func.return"(%1) : (!torch.vtensor<[4,32],f32>) -> ()
}) : () -> ()

// -----

// Boolean-mask indexing has a data-dependent shape: the importer writes `?`.
// expected-error@+1 {{cannot convert result #0 of type '!torch.vtensor<[?,8],f32>': dynamic dims are not supported (Nova compiles static shapes)}}
"func.func"() <{function_type = (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4],i1>) -> !torch.vtensor<[?,8],f32>, sym_name = "bool_mask_index"}> ({
^bb0(%arg0: !torch.vtensor<[4,8],f32>, %arg1: !torch.vtensor<[4],i1>):
  %0 = "torch.prim.ListConstruct"(%arg1) : (!torch.vtensor<[4],i1>) -> !torch.list<optional<vtensor>>
  %1 = "torch.aten.index.Tensor"(%arg0, %0) : (!torch.vtensor<[4,8],f32>, !torch.list<optional<vtensor>>) -> !torch.vtensor<[?,8],f32>
  "func.return"(%1) : (!torch.vtensor<[?,8],f32>) -> ()
}) : () -> ()

// -----

// A dynamic argument (hand-written).
"func.func"() <{function_type = (!torch.vtensor<[?,8],f32>) -> !torch.vtensor<[?,8],f32>, sym_name = "dynamic_argument"}> ({
// expected-error@+1 {{cannot convert argument #0 of type '!torch.vtensor<[?,8],f32>': dynamic dims are not supported (Nova compiles static shapes)}}
^bb0(%arg0: !torch.vtensor<[?,8],f32>):
  "func.return"(%arg0) : (!torch.vtensor<[?,8],f32>) -> ()
}) : () -> ()

// -----

// A dynamic intermediate (hand-written).
"func.func"() <{function_type = (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>, sym_name = "dynamic_intermediate"}> ({
^bb0(%arg0: !torch.vtensor<[4,8],f32>):
  %0 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
  %1 = "torch.prim.ListConstruct"(%0) : (!torch.int) -> !torch.list<int>
  // expected-error@+1 {{cannot convert type '!torch.vtensor<[?],f32>': dynamic dims are not supported (Nova compiles static shapes)}}
  %2 = "torch.aten.view"(%arg0, %1) : (!torch.vtensor<[4,8],f32>, !torch.list<int>) -> !torch.vtensor<[?],f32>
  "func.return"(%arg0) : (!torch.vtensor<[4,8],f32>) -> ()
}) : () -> ()

// -----

// Malformed and unsupported tensor types (hand-written).
"func.func"() <{function_type = (!torch.vtensor<[2],f32>) -> (), sym_name = "unknown_shape"}> ({
^bb0(%arg0: !torch.vtensor<[2],f32>):
  // expected-error@+1 {{cannot convert type '!torch.vtensor': its shape and dtype are unknown}}
  %0 = "torch.aten.neg"(%arg0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor
  "func.return"() : () -> ()
}) : () -> ()

// -----

"func.func"() <{function_type = (!torch.vtensor<[2],f32>) -> (), sym_name = "unranked"}> ({
^bb0(%arg0: !torch.vtensor<[2],f32>):
  // expected-error@+1 {{cannot convert type '!torch.vtensor<*,f32>': unranked tensors are not supported}}
  %0 = "torch.aten.neg"(%arg0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<*,f32>
  "func.return"() : () -> ()
}) : () -> ()

// -----

"func.func"() <{function_type = (!torch.vtensor<[2],f32>) -> (), sym_name = "malformed_dim"}> ({
^bb0(%arg0: !torch.vtensor<[2],f32>):
  // expected-error@+1 {{cannot convert type '!torch.vtensor<[2,x],f32>': malformed dim 'x'}}
  %0 = "torch.aten.neg"(%arg0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2,x],f32>
  "func.return"() : () -> ()
}) : () -> ()

// -----

"func.func"() <{function_type = (!torch.vtensor<[2],f32>) -> (), sym_name = "missing_dtype"}> ({
^bb0(%arg0: !torch.vtensor<[2],f32>):
  // expected-error@+1 {{cannot convert type '!torch.vtensor<[2]>': expected ',' and a dtype after the shape}}
  %0 = "torch.aten.neg"(%arg0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2]>
  "func.return"() : () -> ()
}) : () -> ()

// -----

"func.func"() <{function_type = (!torch.vtensor<[2],f32>) -> (), sym_name = "quantized_dtype"}> ({
^bb0(%arg0: !torch.vtensor<[2],f32>):
  // expected-error@+1 {{cannot convert type '!torch.vtensor<[2],!torch.qint8>': unsupported dtype '!torch.qint8'}}
  %0 = "torch.aten.neg"(%arg0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],!torch.qint8>
  "func.return"() : () -> ()
}) : () -> ()

// -----

"func.func"() <{function_type = (!torch.vtensor<[2],f32>) -> (), sym_name = "complex_dtype"}> ({
^bb0(%arg0: !torch.vtensor<[2],f32>):
  // expected-error@+1 {{cannot convert type '!torch.vtensor<[2],complex<f32>>': unsupported dtype 'complex<f32>'}}
  %0 = "torch.aten.neg"(%arg0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],complex<f32>>
  "func.return"() : () -> ()
}) : () -> ()

// -----

"func.func"() <{function_type = (!torch.vtensor<[2],f32>) -> (), sym_name = "non_value_tensor"}> ({
^bb0(%arg0: !torch.vtensor<[2],f32>):
  // expected-error@+1 {{cannot convert type '!torch.tensor<[2],f32>': non-value tensors are not supported (expected !torch.vtensor)}}
  %0 = "torch.aten.neg"(%arg0) : (!torch.vtensor<[2],f32>) -> !torch.tensor<[2],f32>
  "func.return"() : () -> ()
}) : () -> ()

// -----

// Only tensors cross the function boundary.
// expected-error@+1 {{cannot convert result #0 of type '!torch.int': only tensors are supported}}
"func.func"() <{function_type = () -> !torch.int, sym_name = "scalar_result"}> ({
  %0 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
  "func.return"(%0) : (!torch.int) -> ()
}) : () -> ()

// -----

// Unsigned dtypes become signless (as torch-mlir does), which would lose the
// semantics of arithmetic on them.
"func.func"() <{function_type = (!torch.vtensor<[4],ui8>) -> !torch.vtensor<[4],ui8>, sym_name = "unsigned"}> ({
^bb0(%arg0: !torch.vtensor<[4],ui8>):
  %0 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
  // expected-error@+1 {{unsupported torch op 'torch.aten.add.Tensor': unsigned integer dtypes are not supported}}
  %1 = "torch.aten.add.Tensor"(%arg0, %arg0, %0) : (!torch.vtensor<[4],ui8>, !torch.vtensor<[4],ui8>, !torch.int) -> !torch.vtensor<[4],ui8>
  "func.return"(%1) : (!torch.vtensor<[4],ui8>) -> ()
}) : () -> ()

// -----

// A custom op is known by its torch.operator name.
"func.func"() <{function_type = (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>, sym_name = "unknown_custom_op"}> ({
^bb0(%arg0: !torch.vtensor<[4],f32>):
  // expected-error@+1 {{unsupported torch op 'torch.mylib.frobnicate'}}
  %0 = "torch.operator"(%arg0) <{name = "torch.mylib.frobnicate"}> : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  "func.return"(%0) : (!torch.vtensor<[4],f32>) -> ()
}) : () -> ()

// -----

// Python numbers are compile-time constants, never arguments.
"func.func"() <{function_type = (!torch.vtensor<[4],f32>, !torch.float) -> !torch.vtensor<[4],f32>, sym_name = "scalar_argument"}> ({
// expected-error@+1 {{cannot convert argument #1 of type '!torch.float': only tensors are supported}}
^bb0(%arg0: !torch.vtensor<[4],f32>, %arg1: !torch.float):
  %0 = "torch.aten.mul.Scalar"(%arg0, %arg1) : (!torch.vtensor<[4],f32>, !torch.float) -> !torch.vtensor<[4],f32>
  "func.return"(%0) : (!torch.vtensor<[4],f32>) -> ()
}) : () -> ()

// -----

// Torch types belong to torch ops.
"func.func"() <{function_type = (!torch.vtensor<[4],f32>) -> (), sym_name = "foreign_op"}> ({
^bb0(%arg0: !torch.vtensor<[4],f32>):
  // expected-error@+1 {{cannot convert 'test.consume': only torch ops may use torch types}}
  "test.consume"(%arg0) : (!torch.vtensor<[4],f32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// nova::attention operands nova.attention does not take (hand-written): the
// op's verifier says why.
"func.func"() <{function_type = (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>, sym_name = "attention_rank"}> ({
^bb0(%arg0: !torch.vtensor<[4,8],f32>):
  %0 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
  %1 = "torch.constant.float"() <{value = 0.5 : f64}> : () -> !torch.float
  // expected-error@+1 {{'nova.attention' op query must have rank >= 3 ([batch..., Tq, D]), got rank 2}}
  %2:2 = "torch.operator"(%arg0, %arg0, %arg0, %0, %1) <{name = "torch.nova.attention"}> : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.bool, !torch.float) -> (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4],f32>)
  "func.return"(%2#0) : (!torch.vtensor<[4,8],f32>) -> ()
}) : () -> ()

// -----

// nova::uniform draws from a 0-d int64 seed (python/nova/random_ops.py).
"func.func"() <{function_type = (!torch.vtensor<[2],si64>) -> !torch.vtensor<[4],f32>, sym_name = "uniform_seed_not_scalar"}> ({
^bb0(%arg0: !torch.vtensor<[2],si64>):
  %0 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
  %1 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
  %2 = "torch.prim.ListConstruct"(%1) : (!torch.int) -> !torch.list<int>
  // expected-error@+1 {{unsupported torch op 'torch.nova.uniform': the seed must be a 0-d int64 tensor}}
  %3 = "torch.operator"(%arg0, %0, %2) <{name = "torch.nova.uniform"}> : (!torch.vtensor<[2],si64>, !torch.int, !torch.list<int>) -> !torch.vtensor<[4],f32>
  "func.return"(%3) : (!torch.vtensor<[4],f32>) -> ()
}) : () -> ()

// -----

// A convolution's input gradient needs padding <= dilation * (kernel - 1).
"func.func"() <{function_type = (!torch.vtensor<[1,2,7],f32>, !torch.vtensor<[1,2,5],f32>, !torch.vtensor<[2,2,1],f32>) -> !torch.vtensor<[1,2,5],f32>, sym_name = "conv_input_grad_padding"}> ({
^bb0(%arg0: !torch.vtensor<[1,2,7],f32>, %arg1: !torch.vtensor<[1,2,5],f32>, %arg2: !torch.vtensor<[2,2,1],f32>):
  %0 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
  %1 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
  %2 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
  %3 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
  %4 = "torch.prim.ListConstruct"(%1) : (!torch.int) -> !torch.list<int>
  %5 = "torch.prim.ListConstruct"(%0) : (!torch.int) -> !torch.list<int>
  %6 = "torch.prim.ListConstruct"(%3, %2, %2) : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  // expected-error@+1 {{unsupported torch op 'torch.aten.convolution_backward': a padding larger than the dilated kernel is not supported in a convolution's input gradient}}
  %7:3 = "torch.aten.convolution_backward"(%arg0, %arg1, %arg2, %4, %5, %5, %5, %2, %4, %0, %6) : (!torch.vtensor<[1,2,7],f32>, !torch.vtensor<[1,2,5],f32>, !torch.vtensor<[2,2,1],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int, !torch.list<bool>) -> (!torch.vtensor<[1,2,5],f32>, !torch.none, !torch.none)
  "func.return"(%7#0) : (!torch.vtensor<[1,2,5],f32>) -> ()
}) : () -> ()
