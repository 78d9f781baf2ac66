// RUN: nova-opt %s --split-input-file -verify-diagnostics

// One case per diagnostic that NovaOps.cpp and NovaAttrs.cpp emit. The generic
// form is used where the custom form cannot spell the error.

//===----------------------------------------------------------------------===//
// custom<SameTypes>
//===----------------------------------------------------------------------===//

func.func @same_types_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected 3 types, got 2}}
  %0 = nova.add %a, %a : (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise (verifyElementwise)
//===----------------------------------------------------------------------===//

func.func @elementwise_rank(%a: tensor<4xf32>, %b: tensor<1x4xf32>) {
  // expected-error @+1 {{'nova.add' op operand #1 has rank 2 but the result has rank 1}}
  %0 = nova.add %a, %b : (tensor<4xf32>, tensor<1x4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @elementwise_implicit_broadcast(%a: tensor<2x4xf32>, %b: tensor<2x1xf32>) {
  // expected-error @+1 {{'nova.mul' op operand #1 dim 1 is 1 but the result's dim 1 is 4 (broadcasts must be explicit: nova.broadcast_in_dim)}}
  %0 = nova.mul %a, %b : (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @elementwise_element_type(%a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{'nova.sub' op operand #1 has element type 'bf16' but the result has element type 'f32'}}
  %0 = nova.sub %a, %b : (tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>)
  return
}

// -----

func.func @unary_result_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nova.exp' op operand #0 dim 0 is 4 but the result's dim 0 is 8}}
  %0 = nova.exp %a : (tensor<4xf32>, tensor<8xf32>)
  return
}

// -----

func.func @gelu_element_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nova.gelu' op operand #0 has element type 'f32' but the result has element type 'bf16'}}
  %0 = nova.gelu %a approximation = tanh : (tensor<4xf32>, tensor<4xbf16>)
  return
}

// -----

func.func @compare_shape(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'nova.compare' op operand #1 dim 0 is 3 but the result's dim 0 is 4}}
  %0 = nova.compare lt, %a, %b : tensor<4xf32>, tensor<3xf32> -> tensor<4xi1>
  return
}

// -----

func.func @compare_element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'nova.compare' op lhs element type 'f32' differs from rhs element type 'f16'}}
  %0 = nova.compare eq, %a, %b : tensor<4xf32>, tensor<4xf16> -> tensor<4xi1>
  return
}

// -----

func.func @select_cond_shape(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'nova.select' op operand #0 dim 0 is 3 but the result's dim 0 is 4}}
  %0 = nova.select %c, %a, %a : tensor<3xi1>, tensor<4xf32>
  return
}

// -----

func.func @select_element_type(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'nova.select' op operand #2 has element type 'f16' but the result has element type 'f32'}}
  %0 = nova.select %c, %a, %b : tensor<4xi1>, (tensor<4xf32>, tensor<4xf16>, tensor<4xf32>)
  return
}

// -----

func.func @cast_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nova.cast' op operand #0 dim 0 is 4 but the result's dim 0 is 2}}
  %0 = nova.cast %a : tensor<4xf32> -> tensor<2xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// nova.matmul
//===----------------------------------------------------------------------===//

func.func @matmul_rank1(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nova.matmul' op lhs must have rank >= 2, got 1}}
  %0 = nova.matmul %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @matmul_rank_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'nova.matmul' op lhs has rank 3 but rhs has rank 2}}
  %0 = nova.matmul %a, %b : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  return
}

// -----

func.func @matmul_result_rank(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'nova.matmul' op result has rank 3 but the operands have rank 2}}
  %0 = nova.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<1x4x16xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) {
  // expected-error @+1 {{'nova.matmul' op batch dim 0 is 2 in lhs but 3 in rhs}}
  %0 = nova.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x16xf32> -> tensor<2x4x16xf32>
  return
}

// -----

func.func @matmul_result_batch(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'nova.matmul' op result batch dim 0 is 5 but the operands' is 2}}
  %0 = nova.matmul %a, %b : tensor<2x4x8xf32>, tensor<2x8x16xf32> -> tensor<5x4x16xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{'nova.matmul' op contraction size differs: lhs dim 1 is 8 but rhs dim 0 is 16}}
  %0 = nova.matmul %a, %b : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// With transpose_rhs the rhs is [N, K]: K is rhs dim 1.
func.func @matmul_contraction_transposed(%a: tensor<8x4xf32>, %b: tensor<16x9xf32>) {
  // expected-error @+1 {{'nova.matmul' op contraction size differs: lhs dim 0 is 8 but rhs dim 1 is 9}}
  %0 = nova.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<8x4xf32>, tensor<16x9xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @matmul_m(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'nova.matmul' op result dim 0 is 8 but lhs dim 1 (M) is 4}}
  %0 = nova.matmul %a, %b {transpose_lhs} : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @matmul_n(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'nova.matmul' op result dim 2 is 32 but rhs dim 2 (N) is 16}}
  %0 = nova.matmul %a, %b : tensor<2x4x8xf32>, tensor<2x8x16xf32> -> tensor<2x4x32xf32>
  return
}

// -----

func.func @matmul_operand_types(%a: tensor<4x8xbf16>, %b: tensor<8x16xf16>) {
  // expected-error @+1 {{'nova.matmul' op lhs element type 'bf16' differs from rhs element type 'f16'}}
  %0 = nova.matmul %a, %b : tensor<4x8xbf16>, tensor<8x16xf16> -> tensor<4x16xf32>
  return
}

// -----

func.func @matmul_result_kind(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>) {
  // expected-error @+1 {{'nova.matmul' op result element type 'i32' does not match the kind of the operands' 'bf16'}}
  %0 = nova.matmul %a, %b : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions (verifyReduction)
//===----------------------------------------------------------------------===//

func.func @reduce_dim_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.reduce_sum' op reduced dim 2 is out of range for rank 2}}
  %0 = nova.reduce_sum %a dims = [2] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_dims_order(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.reduce_max' op dims must be strictly increasing, got [1, 0]}}
  %0 = nova.reduce_max %a dims = [1, 0] : tensor<2x3xf32> -> tensor<f32>
  return
}

// -----

func.func @reduce_dims_duplicate(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.reduce_mean' op dims must be strictly increasing, got [1, 1]}}
  %0 = nova.reduce_mean %a dims = [1, 1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_shape(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.reduce_sum' op result shape [2] does not match the reduced shape [2, 1]}}
  %0 = nova.reduce_sum %a dims = [1] keepdim : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_element_type(%a: tensor<2x3xbf16>) {
  // expected-error @+1 {{'nova.reduce_mean' op result element type 'f32' differs from the input's 'bf16'}}
  %0 = nova.reduce_mean %a dims = [1] : tensor<2x3xbf16> -> tensor<2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// nova.broadcast_in_dim
//===----------------------------------------------------------------------===//

func.func @broadcast_dims_count(%a: tensor<3xf32>) {
  // expected-error @+1 {{'nova.broadcast_in_dim' op dims has 2 entries but the operand has rank 1}}
  %0 = nova.broadcast_in_dim %a dims = [0, 1] : tensor<3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_dims_range(%a: tensor<3xf32>) {
  // expected-error @+1 {{'nova.broadcast_in_dim' op dims entry 2 is out of range for rank 2}}
  %0 = nova.broadcast_in_dim %a dims = [2] : tensor<3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_dims_twice(%a: tensor<3x3xf32>) {
  // expected-error @+1 {{'nova.broadcast_in_dim' op result dim 1 appears twice in dims}}
  %0 = nova.broadcast_in_dim %a dims = [1, 1] : tensor<3x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_size(%a: tensor<3xf32>) {
  // expected-error @+1 {{'nova.broadcast_in_dim' op operand dim 0 (size 3) cannot broadcast to result dim 0 (size 2)}}
  %0 = nova.broadcast_in_dim %a dims = [0] : tensor<3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_element_type(%a: tensor<3xf32>) {
  // expected-error @+1 {{'nova.broadcast_in_dim' op result element type 'f16' differs from the operand's 'f32'}}
  %0 = nova.broadcast_in_dim %a dims = [1] : tensor<3xf32> -> tensor<2x3xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// nova.transpose
//===----------------------------------------------------------------------===//

func.func @transpose_not_permutation(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.transpose' op permutation [1, 1] is not a permutation of 0..1}}
  %0 = nova.transpose %a permutation = [1, 1] : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @transpose_permutation_size(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.transpose' op permutation [1, 0, 2] is not a permutation of 0..1}}
  %0 = nova.transpose %a permutation = [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_result_rank(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.transpose' op result has rank 3 but the input has rank 2}}
  %0 = nova.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2x1xf32>
  return
}

// -----

func.func @transpose_result_dim(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.transpose' op result dim 0 is 2 but input dim 1 is 3}}
  %0 = nova.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_element_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.transpose' op result element type 'bf16' differs from the input's 'f32'}}
  %0 = nova.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// nova.reshape
//===----------------------------------------------------------------------===//

func.func @reshape_size(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.reshape' op input [2, 3] has 6 elements but result [7] has 7}}
  %0 = nova.reshape %a : tensor<2x3xf32> -> tensor<7xf32>
  return
}

// -----

func.func @reshape_element_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.reshape' op result element type 'i32' differs from the input's 'f32'}}
  %0 = nova.reshape %a : tensor<2x3xf32> -> tensor<6xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// nova.slice
//===----------------------------------------------------------------------===//

func.func @slice_entries(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.slice' op start, limit and stride need 2 entries each (the input's rank), got 1, 1 and 1}}
  %0 = nova.slice %a [0:2:1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_result_rank(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.slice' op result has rank 1 but the input has rank 2}}
  %0 = nova.slice %a [0:2:1, 0:3:1] : tensor<2x3xf32> -> tensor<6xf32>
  return
}

// -----

func.func @slice_stride(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.slice' op stride of dim 1 must be >= 1, got 0}}
  %0 = nova.slice %a [0:2:1, 0:3:0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.slice' op dim 1 range 1:4 is not within [0, 3]}}
  %0 = nova.slice %a [0:2:1, 1:4:1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_result_dim(%a: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.slice' op result dim 1 is 4 but the slice has 3 elements}}
  %0 = nova.slice %a [0:2:1, 1:8:3] : tensor<2x8xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @slice_element_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.slice' op result element type 'f16' differs from the input's 'f32'}}
  %0 = nova.slice %a [0:2:1, 0:3:1] : tensor<2x3xf32> -> tensor<2x3xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// nova.concat
//===----------------------------------------------------------------------===//

func.func @concat_empty() {
  // expected-error @+1 {{'nova.concat' op needs at least one input}}
  %0 = "nova.concat"() <{dim = 0 : i64}> : () -> tensor<2xf32>
  return
}

// -----

func.func @concat_dim(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.concat' op dim 2 is out of range for rank 2}}
  %0 = nova.concat %a, %a dim = 2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_result_rank(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nova.concat' op result has rank 1 but the inputs have rank 2}}
  %0 = nova.concat %a, %a dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<12xf32>
  return
}

// -----

func.func @concat_input_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'nova.concat' op input #1 has rank 1 but input #0 has rank 2}}
  %0 = nova.concat %a, %b dim = 0 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @concat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xbf16>) {
  // expected-error @+1 {{'nova.concat' op input #1 has element type 'bf16' but the result has element type 'f32'}}
  %0 = nova.concat %a, %b dim = 0 : (tensor<2x3xf32>, tensor<2x3xbf16>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_other_dim(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{'nova.concat' op input #1 dim 1 is 4 but the result's is 3}}
  %0 = nova.concat %a, %b dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_total(%a: tensor<2x3xf32>, %b: tensor<5x3xf32>) {
  // expected-error @+1 {{'nova.concat' op result dim 0 is 8 but the inputs add up to 7}}
  %0 = nova.concat %a, %b dim = 0 : (tensor<2x3xf32>, tensor<5x3xf32>) -> tensor<8x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// nova.gather
//===----------------------------------------------------------------------===//

func.func @gather_dim(%a: tensor<4x5xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+1 {{'nova.gather' op dim -1 is out of range for rank 2}}
  %0 = nova.gather %a[%i] dim = -1 : tensor<4x5xf32>, tensor<4x2xi64> -> tensor<4x2xf32>
  return
}

// -----

func.func @gather_index_rank(%a: tensor<4x5xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{'nova.gather' op index has rank 1 but the input has rank 2}}
  %0 = nova.gather %a[%i] dim = 1 : tensor<4x5xf32>, tensor<4xi64> -> tensor<4xf32>
  return
}

// -----

func.func @gather_result_shape(%a: tensor<4x5xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+1 {{'nova.gather' op result shape [4, 5] differs from the index shape [4, 2]}}
  %0 = nova.gather %a[%i] dim = 1 : tensor<4x5xf32>, tensor<4x2xi64> -> tensor<4x5xf32>
  return
}

// -----

func.func @gather_index_dim(%a: tensor<4x5xf32>, %i: tensor<6x2xi64>) {
  // expected-error @+1 {{'nova.gather' op index dim 0 is 6 but input dim 0 is only 4}}
  %0 = nova.gather %a[%i] dim = 1 : tensor<4x5xf32>, tensor<6x2xi64> -> tensor<6x2xf32>
  return
}

// -----

func.func @gather_element_type(%a: tensor<4x5xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+1 {{'nova.gather' op result element type 'f16' differs from the input's 'f32'}}
  %0 = nova.gather %a[%i] dim = 1 : tensor<4x5xf32>, tensor<4x2xi64> -> tensor<4x2xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// nova.embedding
//===----------------------------------------------------------------------===//

func.func @embedding_table_rank(%t: tensor<f32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'nova.embedding' op table must have rank >= 1}}
  %0 = nova.embedding %t[%i] : tensor<f32>, tensor<3xi64> -> tensor<3xf32>
  return
}

// -----

func.func @embedding_shape(%t: tensor<10x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+1 {{'nova.embedding' op result shape [2, 3] differs from indices shape + row shape [2, 3, 4]}}
  %0 = nova.embedding %t[%i] : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3xf32>
  return
}

// -----

func.func @embedding_element_type(%t: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'nova.embedding' op result element type 'bf16' differs from the table's 'f32'}}
  %0 = nova.embedding %t[%i] : tensor<10x4xf32>, tensor<3xi64> -> tensor<3x4xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// nova.scatter_add
//===----------------------------------------------------------------------===//

func.func @scatter_add_dest_rank(%d: tensor<f32>, %i: tensor<3xi64>, %u: tensor<3xf32>) {
  // expected-error @+1 {{'nova.scatter_add' op dest must have rank >= 1}}
  %0 = nova.scatter_add %d[%i], %u : tensor<f32>, tensor<3xi64>, tensor<3xf32> -> tensor<f32>
  return
}

// -----

func.func @scatter_add_result(%d: tensor<10x4xf32>, %i: tensor<3xi64>, %u: tensor<3x4xf32>) {
  // expected-error @+1 {{'nova.scatter_add' op result has type 'tensor<10x5xf32>' but dest has type 'tensor<10x4xf32>'}}
  %0 = nova.scatter_add %d[%i], %u : tensor<10x4xf32>, tensor<3xi64>, tensor<3x4xf32> -> tensor<10x5xf32>
  return
}

// -----

func.func @scatter_add_updates_shape(%d: tensor<10x4xf32>, %i: tensor<3xi64>, %u: tensor<3x5xf32>) {
  // expected-error @+1 {{'nova.scatter_add' op updates shape [3, 5] differs from indices shape + row shape [3, 4]}}
  %0 = nova.scatter_add %d[%i], %u : tensor<10x4xf32>, tensor<3xi64>, tensor<3x5xf32> -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_add_updates_type(%d: tensor<10x4xf32>, %i: tensor<3xi64>, %u: tensor<3x4xbf16>) {
  // expected-error @+1 {{'nova.scatter_add' op updates element type 'bf16' differs from the dest's 'f32'}}
  %0 = nova.scatter_add %d[%i], %u : tensor<10x4xf32>, tensor<3xi64>, tensor<3x4xbf16> -> tensor<10x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Composite ops
//===----------------------------------------------------------------------===//

func.func @softmax_dim(%a: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.softmax' op dim 2 is out of range for rank 2}}
  %0 = nova.softmax %a dim = 2 : tensor<2x8xf32>
  return
}

// -----

func.func @softmax_shape(%a: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.softmax' op operand #0 dim 1 is 8 but the result's dim 1 is 4}}
  %0 = nova.softmax %a dim = 1 : (tensor<2x8xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @log_softmax_dim(%a: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.log_softmax' op dim -1 is out of range for rank 2}}
  %0 = nova.log_softmax %a dim = -1 : tensor<2x8xf32>
  return
}

// -----

func.func @log_softmax_element_type(%a: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.log_softmax' op operand #0 has element type 'f32' but the result has element type 'f16'}}
  %0 = nova.log_softmax %a dim = 1 : (tensor<2x8xf32>, tensor<2x8xf16>)
  return
}

// -----

func.func @layer_norm_result(%a: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.layer_norm' op result has type 'tensor<2x8xf16>' but input has type 'tensor<2x8xf32>'}}
  %0 = nova.layer_norm %a {epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf16>
  return
}

// -----

func.func @layer_norm_rank(%a: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.layer_norm' op normalized_rank 3 must be in [1, 2]}}
  %0 = nova.layer_norm %a {epsilon = 1.0e-05 : f64, normalized_rank = 3 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_rank_zero(%a: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.layer_norm' op normalized_rank 0 must be in [1, 2]}}
  %0 = nova.layer_norm %a {epsilon = 1.0e-05 : f64, normalized_rank = 0 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_epsilon(%a: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.layer_norm' op epsilon must be non-negative}}
  %0 = nova.layer_norm %a {epsilon = -1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_weight(%a: tensor<2x8xf32>, %w: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.layer_norm' op weight has type 'tensor<2x8xf32>' but the normalized shape has type 'tensor<8xf32>'}}
  %0 = nova.layer_norm %a weight(%w : tensor<2x8xf32>) {epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_bias(%a: tensor<2x8xf32>, %w: tensor<2x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'nova.layer_norm' op bias has type 'tensor<8xf32>' but the normalized shape has type 'tensor<2x8xf32>'}}
  %0 = nova.layer_norm %a weight(%w : tensor<2x8xf32>) bias(%b : tensor<8xf32>) {epsilon = 1.0e-05 : f64, normalized_rank = 2 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

func.func @attention_rank(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) {
  // expected-error @+1 {{'nova.attention' op query must have rank >= 3 ([batch..., Tq, D]), got rank 2}}
  %o, %l = nova.attention %q, %k, %v {scale = 1.0 : f64} : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>, tensor<8xf32>
  return
}

// -----

func.func @attention_key_rank(%q: tensor<2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'nova.attention' op key has rank 4 but query has rank 3}}
  %o, %l = nova.attention %q, %k, %v {scale = 1.0 : f64} : tensor<2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @attention_batch(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x3x8x16xf32>) {
  // expected-error @+1 {{'nova.attention' op value batch dim 1 is 3 but query's is 4}}
  %o, %l = nova.attention %q, %k, %v {scale = 1.0 : f64} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x3x8x16xf32> -> tensor<2x4x8x16xf32>, tensor<2x4x8xf32>
  return
}

// -----

func.func @attention_element_type(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xbf16>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'nova.attention' op key element type 'bf16' differs from query's 'f32'}}
  %o, %l = nova.attention %q, %k, %v {scale = 1.0 : f64} : tensor<2x8x16xf32>, tensor<2x8x16xbf16>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @attention_head_dim(%q: tensor<2x8x16xf32>, %k: tensor<2x8x32xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'nova.attention' op key head dim (last) is 32 but query's is 16}}
  %o, %l = nova.attention %q, %k, %v {scale = 1.0 : f64} : tensor<2x8x16xf32>, tensor<2x8x32xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @attention_value_rows(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x6x16xf32>) {
  // expected-error @+1 {{'nova.attention' op value has 6 rows (dim 1) but key has 8}}
  %o, %l = nova.attention %q, %k, %v {scale = 1.0 : f64} : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x6x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @attention_causal(%q: tensor<2x4x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'nova.attention' op causal needs Tq == Tk, got Tq = 4 and Tk = 8}}
  %o, %l = nova.attention %q, %k, %v {causal, scale = 1.0 : f64} : tensor<2x4x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x4x16xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @attention_scale(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'nova.attention' op scale must be finite, got INF}}
  %o, %l = nova.attention %q, %k, %v {scale = 0x7FF0000000000000 : f64} : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @attention_mask_shape(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>, %m: tensor<3x8xf32>) {
  // expected-error @+1 {{'nova.attention' op mask [3, 8] does not broadcast to the scores [2, 8, 8]: dim 0 is 3 where the scores have 8}}
  %o, %l = nova.attention %q, %k, %v mask(%m : tensor<3x8xf32>) {scale = 1.0 : f64} : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @attention_mask_rank(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>, %m: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'nova.attention' op mask has rank 4 but the scores [2, 8, 8] have rank 3}}
  %o, %l = nova.attention %q, %k, %v mask(%m : tensor<1x2x8x8xf32>) {scale = 1.0 : f64} : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @attention_mask_element_type(%q: tensor<2x8x16xbf16>, %k: tensor<2x8x16xbf16>, %v: tensor<2x8x16xbf16>, %m: tensor<8x8xf16>) {
  // expected-error @+1 {{'nova.attention' op mask element type 'f16' is neither query's 'bf16' nor f32}}
  %o, %l = nova.attention %q, %k, %v mask(%m : tensor<8x8xf16>) {scale = 1.0 : f64} : tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x16xbf16>, tensor<2x8xf32>
  return
}

// -----

func.func @attention_out_type(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x32xf32>) {
  // expected-error @+1 {{'nova.attention' op out has type 'tensor<2x8x16xf32>' but the operands imply 'tensor<2x8x32xf32>'}}
  %o, %l = nova.attention %q, %k, %v {scale = 1.0 : f64} : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x32xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @attention_lse_type(%q: tensor<2x8x16xbf16>, %k: tensor<2x8x16xbf16>, %v: tensor<2x8x16xbf16>) {
  // expected-error @+1 {{'nova.attention' op lse has type 'tensor<2x8x1xf32>' but the operands imply 'tensor<2x8xf32>'}}
  %o, %l = nova.attention %q, %k, %v {scale = 1.0 : f64} : tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x16xbf16>, tensor<2x8x1xf32>
  return
}

// -----

func.func @attention_backward_causal(%do: tensor<2x4x16xf32>, %q: tensor<2x4x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>, %o: tensor<2x4x16xf32>, %l: tensor<2x4xf32>) {
  // expected-error @+1 {{'nova.attention_backward' op causal needs Tq == Tk, got Tq = 4 and Tk = 8}}
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %l {causal, scale = 1.0 : f64} : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x4x16xf32>, tensor<2x4xf32> -> tensor<2x4x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @attention_backward_grad_out(%do: tensor<2x8x32xf32>, %q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>, %o: tensor<2x8x16xf32>, %l: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.attention_backward' op grad_out has type 'tensor<2x8x32xf32>' but the operands imply 'tensor<2x8x16xf32>'}}
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %l {scale = 1.0 : f64} : tensor<2x8x32xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8xf32> -> tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @attention_backward_out(%do: tensor<2x8x16xf32>, %q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>, %o: tensor<2x8x16xbf16>, %l: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.attention_backward' op out has type 'tensor<2x8x16xbf16>' but the operands imply 'tensor<2x8x16xf32>'}}
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %l {scale = 1.0 : f64} : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xbf16>, tensor<2x8xf32> -> tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @attention_backward_grad_key(%do: tensor<2x8x16xf32>, %q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>, %o: tensor<2x8x16xf32>, %l: tensor<2x8xf32>) {
  // expected-error @+1 {{'nova.attention_backward' op grad_key has type 'tensor<2x16x8xf32>' but key has type 'tensor<2x8x16xf32>'}}
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %l {scale = 1.0 : f64} : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8xf32> -> tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<2x8x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// nova.iota
//===----------------------------------------------------------------------===//

func.func @iota_dim() {
  // expected-error @+1 {{'nova.iota' op dim 1 is out of range for rank 1}}
  %0 = nova.iota dim = 1 : tensor<4xi64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// nova.fused
//===----------------------------------------------------------------------===//

func.func @fused_num_args(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nova.fused' op body has 2 arguments but the op has 1 inputs}}
  %0 = nova.fused(%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    nova.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @fused_arg_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nova.fused' op body argument #0 has type 'tensor<4xf16>' but input #0 has type 'tensor<4xf32>'}}
  %0 = nova.fused(%a) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%x: tensor<4xf16>):
    nova.yield %x : tensor<4xf16>
  }
  return
}

// -----

func.func @fused_num_yields(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nova.fused' op yields 2 values but the op has 1 results}}
  %0 = nova.fused(%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    nova.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @fused_yield_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nova.fused' op yielded value #0 has type 'tensor<4xf32>' but result #0 has type 'tensor<4xf16>'}}
  %0 = nova.fused(%a) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%x: tensor<4xf32>):
    nova.yield %x : tensor<4xf32>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// Optimizer updates (verifySameType)
//===----------------------------------------------------------------------===//

func.func @sgd_grad(%p: tensor<4xf32>, %g: tensor<4xbf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'nova.sgd' op grad has type 'tensor<4xbf16>' but param has type 'tensor<4xf32>'}}
  %0:2 = nova.sgd %p, %g, %p lr(%s) momentum(%s) dampening(%s) weight_decay(%s) first_step(%s) : (tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_new_momentum_buf(%p: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'nova.sgd' op new_momentum_buf has type 'tensor<8xf32>' but param has type 'tensor<4xf32>'}}
  %0:2 = nova.sgd %p, %p, %p lr(%s) momentum(%s) dampening(%s) weight_decay(%s) first_step(%s) {nesterov} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>)
  return
}

// -----

func.func @adamw_exp_avg_sq(%p: tensor<4xf32>, %v: tensor<4x1xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'nova.adamw' op exp_avg_sq has type 'tensor<4x1xf32>' but param has type 'tensor<4xf32>'}}
  %0:3 = nova.adamw %p, %p, %p, %v step(%s) lr(%s) betas(%s, %s) eps(%s) weight_decay(%s) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x1xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_new_exp_avg(%p: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'nova.adamw' op new_exp_avg has type 'tensor<4xf16>' but param has type 'tensor<4xf32>'}}
  %0:3 = nova.adamw %p, %p, %p, %p step(%s) lr(%s) betas(%s, %s) eps(%s) weight_decay(%s) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// #nova.target
//===----------------------------------------------------------------------===//

// expected-error @+1 {{arch must look like 'sm_90', got 'gfx942'}}
func.func @target_arch() attributes {nova.target = #nova.target<arch = "gfx942", sm_count = 132, shared_memory_per_sm = 233472, registers_per_sm = 65536, mma_shapes = [], peak_tflops = {}, memory_bandwidth_gbps = 4800>} {
  return
}

// -----

// expected-error @+1 {{sm_count must be positive, got 0}}
func.func @target_sm_count() attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 0, shared_memory_per_sm = 233472, registers_per_sm = 65536, mma_shapes = [], peak_tflops = {}, memory_bandwidth_gbps = 4800>} {
  return
}

// -----

// expected-error @+1 {{shared_memory_per_sm must be positive, got -1}}
func.func @target_smem() attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = -1, registers_per_sm = 65536, mma_shapes = [], peak_tflops = {}, memory_bandwidth_gbps = 4800>} {
  return
}

// -----

// expected-error @+1 {{registers_per_sm must be positive, got 0}}
func.func @target_registers() attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = 233472, registers_per_sm = 0, mma_shapes = [], peak_tflops = {}, memory_bandwidth_gbps = 4800>} {
  return
}

// -----

// expected-error @+1 {{memory_bandwidth_gbps must be positive, got 0}}
func.func @target_bandwidth() attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = 233472, registers_per_sm = 65536, mma_shapes = [], peak_tflops = {}, memory_bandwidth_gbps = 0>} {
  return
}

// -----

// expected-error @+1 {{mma_shapes[1] must be array<i64: m, n, k>, got array<i64: 16, 8>}}
func.func @target_mma_shape_size() attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = 233472, registers_per_sm = 65536, mma_shapes = [array<i64: 16, 8, 16>, array<i64: 16, 8>], peak_tflops = {}, memory_bandwidth_gbps = 4800>} {
  return
}

// -----

// expected-error @+1 {{mma_shapes[0] must be array<i64: m, n, k>, got [16, 8, 16]}}
func.func @target_mma_shape_kind() attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = 233472, registers_per_sm = 65536, mma_shapes = [[16, 8, 16]], peak_tflops = {}, memory_bandwidth_gbps = 4800>} {
  return
}

// -----

// expected-error @+1 {{mma_shapes[0] has a non-positive dim}}
func.func @target_mma_shape_dim() attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = 233472, registers_per_sm = 65536, mma_shapes = [array<i64: 16, 0, 16>], peak_tflops = {}, memory_bandwidth_gbps = 4800>} {
  return
}

// -----

// expected-error @+1 {{peak_tflops has unknown element type 'fp32' (expected f64, f32, tf32, bf16, f16 or f8)}}
func.func @target_peak_name() attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = 233472, registers_per_sm = 65536, mma_shapes = [], peak_tflops = {fp32 = 67 : i64}, memory_bandwidth_gbps = 4800>} {
  return
}

// -----

// expected-error @+1 {{peak_tflops.bf16 must be a positive integer, got 9.890000e+02 : f32}}
func.func @target_peak_value() attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = 233472, registers_per_sm = 65536, mma_shapes = [], peak_tflops = {bf16 = 989.0 : f32}, memory_bandwidth_gbps = 4800>} {
  return
}

// -----

//===----------------------------------------------------------------------===//
// #nova.lowering_config
//===----------------------------------------------------------------------===//

func.func @config_tile_sizes(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{tile_sizes must be [M, N, K], got 2 entries}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128>} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_warp_layout(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{warp_layout must be [M, N], got 3 entries}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128>} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_mma_shape(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{mma_shape must be [m, n, k], got 2 entries}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1], mma_shape = [64, 256], pipeline_stages = 4, swizzle = 128>} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_positive(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{tile and mma sizes must be positive (dim N)}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 0, 64], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128>} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_divisible(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{tile size 40 in K is not a multiple of the mma shape's 16}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 40], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128>} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_warp_positive(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{warp_layout entries must be positive}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 0], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128>} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_stages(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{pipeline_stages must be at least 1, got 0}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 0, swizzle = 128>} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_swizzle(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{swizzle must be 0, 32, 64 or 128 bytes, got 16}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 16>} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_kernel(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{kernel must be "wgmma_tma", "wgmma_tma_pingpong", "wgmma_tma_stream_k", "mma_sync_cp_async", "flash_wgmma", "cross_entropy_rows" or "fused_rows", got "wmma"}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128, kernel = "wmma">} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_pingpong(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{a wgmma_tma_pingpong tile is one warp group's (warp_layout = [1, 1]) and one split}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 128, 64], warp_layout = [2, 1], mma_shape = [64, 128, 16], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma_pingpong">} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_precision(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{precision must be bf16, f16, tf32, tf32x3 or f32, got "fp8"}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128, precision = "fp8">} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_split_k(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{cluster_m, cluster_n, split_k and raster_group must be >= 1}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128, split_k = 0>} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_persistent(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{producer_warpgroups, persistent_ctas and min_ctas_per_sm must be >= 0}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128, persistent_ctas = -1>} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @config_min_ctas(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) {
  // expected-error @+1 {{producer_warpgroups, persistent_ctas and min_ctas_per_sm must be >= 0}}
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128, min_ctas_per_sm = -1>} : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @cross_entropy_rank(%x: tensor<2x6x10xf32>, %t: tensor<6xi64>) {
  // expected-error @+1 {{expects logits [N, C], got rank 3}}
  %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100} : tensor<2x6x10xf32>, tensor<6xi64> -> tensor<6xf32>, tensor<6xf32>
  return
}

// -----

func.func @cross_entropy_target(%x: tensor<6x10xf32>, %t: tensor<5xi64>) {
  // expected-error @+1 {{expects target [N] with N = 6 logits rows}}
  %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100} : tensor<6x10xf32>, tensor<5xi64> -> tensor<6xf32>, tensor<6xf32>
  return
}

// -----

func.func @cross_entropy_lse(%x: tensor<6x10xf32>, %t: tensor<6xi64>) {
  // expected-error @+1 {{expects lse of type 'tensor<6xf32>', got 'tensor<6x1xf32>'}}
  %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100} : tensor<6x10xf32>, tensor<6xi64> -> tensor<6xf32>, tensor<6x1xf32>
  return
}

// -----

func.func @cross_entropy_backward_type(%g: tensor<6xf32>, %x: tensor<6x10xbf16>, %t: tensor<6xi64>, %l: tensor<6xf32>) {
  // expected-error @+1 {{grad_logits}}
  %dx = nova.cross_entropy_backward %g, %x, %t, %l {ignore_index = -100} : tensor<6xf32>, tensor<6x10xbf16>, tensor<6xi64>, tensor<6xf32> -> tensor<6x10xf32>
  return
}

// -----

func.func @cross_entropy_with_grad_type(%g: tensor<6xf32>, %x: tensor<6x10xbf16>, %t: tensor<6xi64>) {
  // expected-error @+1 {{grad_logits}}
  %loss, %lse, %dx = nova.cross_entropy_with_grad %x, %t, %g {ignore_index = -100} : tensor<6x10xbf16>, tensor<6xi64>, tensor<6xf32> -> tensor<6xf32>, tensor<6xf32>, tensor<6x10xf32>
  return
}

// -----

func.func @cross_entropy_with_grad_rows(%g: tensor<5xf32>, %x: tensor<6x10xbf16>, %t: tensor<6xi64>) {
  // expected-error @+1 {{expects grad_loss of type 'tensor<6xf32>'}}
  %loss, %lse, %dx = nova.cross_entropy_with_grad %x, %t, %g {ignore_index = -100} : tensor<6x10xbf16>, tensor<6xi64>, tensor<5xf32> -> tensor<6xf32>, tensor<6xf32>, tensor<6x10xbf16>
  return
}

// -----

func.func @cumsum_dim_out_of_range(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'nova.cumsum' op dim 2 is out of range for rank 2}}
  %0 = nova.cumsum %x dim = 2 : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @reverse_dim_twice(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'nova.reverse' op dim 1 appears twice}}
  %0 = nova.reverse %x dims = [1, 1] : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

//===----------------------------------------------------------------------===//
// nova.convolution
//===----------------------------------------------------------------------===//

// -----

func.func @convolution_rank(%x: tensor<2x4xf32>, %w: tensor<6x4xf32>) {
  // expected-error @+1 {{input must have rank >= 3 ([N, C, spatial...]), got 2}}
  %0 = nova.convolution %x, %w {stride = array<i64>, padding_low = array<i64>, padding_high = array<i64>, dilation = array<i64>, lhs_dilation = array<i64>, groups = 1 : i64} : tensor<2x4xf32>, tensor<6x4xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @convolution_attribute_length(%x: tensor<2x4x9x9xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{stride has 1 entries for 2 spatial dims}}
  %0 = nova.convolution %x, %w {stride = array<i64: 1>, padding_low = array<i64: 0, 0>, padding_high = array<i64: 0, 0>, dilation = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<2x4x9x9xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x7x7xf32>
  return
}

// -----

func.func @convolution_negative_padding(%x: tensor<2x4x9x9xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{padding_low entries must be >= 0, got [-1, 0]}}
  %0 = nova.convolution %x, %w {stride = array<i64: 1, 1>, padding_low = array<i64: -1, 0>, padding_high = array<i64: 0, 0>, dilation = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<2x4x9x9xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x6x7xf32>
  return
}

// -----

func.func @convolution_groups(%x: tensor<2x4x9x9xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{groups 4 must divide the input's 4 channels and the weight's 6 features}}
  %0 = nova.convolution %x, %w {stride = array<i64: 1, 1>, padding_low = array<i64: 0, 0>, padding_high = array<i64: 0, 0>, dilation = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, groups = 4 : i64} : tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x7x7xf32>
  return
}

// -----

func.func @convolution_channels(%x: tensor<2x4x9x9xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error @+1 {{weight [6, 3, 3, 3] takes 3 channels per group, but the input has 4 channels in 1 groups}}
  %0 = nova.convolution %x, %w {stride = array<i64: 1, 1>, padding_low = array<i64: 0, 0>, padding_high = array<i64: 0, 0>, dilation = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<2x4x9x9xf32>, tensor<6x3x3x3xf32> -> tensor<2x6x7x7xf32>
  return
}

// -----

func.func @convolution_window(%x: tensor<2x4x2x9xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{the kernel window 5 is larger than the padded input extent 2 along spatial dim 0}}
  %0 = nova.convolution %x, %w {stride = array<i64: 1, 1>, padding_low = array<i64: 0, 0>, padding_high = array<i64: 0, 0>, dilation = array<i64: 2, 1>, lhs_dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<2x4x2x9xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x1x7xf32>
  return
}

// -----

func.func @convolution_result_shape(%x: tensor<2x4x9x9xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{result shape [2, 6, 7, 7] differs from the expected [2, 6, 4, 7]}}
  %0 = nova.convolution %x, %w {stride = array<i64: 2, 1>, padding_low = array<i64: 0, 0>, padding_high = array<i64: 0, 0>, dilation = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, groups = 1 : i64} : tensor<2x4x9x9xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x7x7xf32>
  return
}

// -----

func.func @random_uniform_seed(%seed: tensor<i32>) {
  // expected-error @+1 {{operand #0 must be 0D tensor of 64-bit signless integer values}}
  %0 = nova.random_uniform %seed stream = 0 : tensor<i32> -> tensor<4xf32>
  return
}

// -----

func.func @all_reduce_reduction(%g: tensor<4xf32>) {
  // expected-error @+1 {{reduction must be "sum" or "mean", got "max"}}
  %0 = nova.all_reduce "max" %g : tensor<4xf32>
  return
}
