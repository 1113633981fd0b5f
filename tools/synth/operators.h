// The operator vocabulary of synthetic programs: a few float32 operators
// whose exact semantics are written here, so that a reference executor can
// run any program the synthesizers build and get bit-for-bit the same
// result everywhere. Keep the list short and every definition total and
// deterministic (fixed loop order, float32 accumulation in index order).
//
// The aten operators are named, and take their arguments, exactly as
// ExecuTorch's emitter writes them for the portable kernels
// (docs/exporter-facts.md): name without overload, overload "" for a
// `default` one, every schema argument in order with its default filled
// in, then the returns. Their semantics are the portable kernels' for
// float32. `pte-synth llm` uses only those. The `llama::` operators and
// `aten::linear.out` exist in no stock portable library; random programs
// (random_program.h) still use them to reach shapes of dataflow the LLM
// does not have.
//
// Conventions
//  - Tensors are float32 and row-major (dim_order 0..n-1) unless stated.
//  - A KernelCall's args are the schema arguments, out included, followed by
//    the return values again (the exporter's convention). An `.out`
//    operator with one return therefore lists `out` twice:
//        aten::add.out(a, b, out) -> out      args = [a, b, out, out]
//  - "Int i" is the index of an Int value; "IntList l" the index of an
//    IntList value (whose items are indices of Int values).
//  - Shapes are checked by whoever builds the program; executors may assume
//    them.
#pragma once

#include "tools/synth/program_spec.h"

namespace pteshare::synth::ops {

/// add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out):
/// out = self + other, broadcast (numpy rules, sizes aligned from the
/// right); alpha is the Int 1 (args = [self, other, alpha, out, out]).
inline const OperatorName kAdd{"aten::add", "out"};

/// mul.out(Tensor self, Tensor other, *, Tensor(a!) out): out = self *
/// other, broadcast as add.
inline const OperatorName kMul{"aten::mul", "out"};

/// add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, out):
/// out[i] = self[i] + (float)other; other a Double, alpha the Int 1.
inline const OperatorName kAddScalar{"aten::add", "Scalar_out"};

/// mul.Scalar_out(Tensor self, Scalar other, *, out): out[i] = self[i] *
/// (float)other; other a Double.
inline const OperatorName kMulScalar{"aten::mul", "Scalar_out"};

/// rsqrt.out(Tensor self, *, out): out[i] = (float)(1.0 / (double)sqrtf(x[i])).
inline const OperatorName kRsqrt{"aten::rsqrt", "out"};

/// mm.out(Tensor self [N, K], Tensor mat2 [K, M], *, out [N, M]):
/// out[n, m] = sum over k = 0..K-1 in order of self[n, k] * mat2[k, m],
/// starting from 0.0f.
inline const OperatorName kMm{"aten::mm", "out"};

/// bmm.out(Tensor self [B, N, K], Tensor mat2 [B, K, M], *, out [B, N, M]):
/// mm for each b.
inline const OperatorName kBmm{"aten::bmm", "out"};

/// permute_copy.out(Tensor self, int[] dims, *, out): out's dimension i is
/// self's dimension dims[i]; elements copied in out's row-major order.
inline const OperatorName kPermuteCopy{"aten::permute_copy", "out"};

/// index_put.out(Tensor self [S, ...], Tensor?[] indices = [idx (int64)
/// [T]], Tensor values [T, ...], bool accumulate = False, *, out): out =
/// self with rows idx[t] (negative ones wrapped) set to values[t], in t
/// order (the last write wins). Only this form (one index tensor, on dim 0)
/// occurs; out may alias self (a cache updated in place).
inline const OperatorName kIndexPut{"aten::index_put", "out"};

/// index.Tensor_out(Tensor self [S, ...], Tensor?[] indices = [idx (int64)
/// [T]], *, out [T, ...]): out[t] = self[idx[t]] (negative ones wrapped).
inline const OperatorName kIndexTensor{"aten::index", "Tensor_out"};

/// out[i] = max(x[i], 0.0f); x, out have one shape.
inline const OperatorName kRelu{"aten::relu", "out"};

/// rms_norm.out(x [N, D], weight [D], Double eps, out [N, D]):
///   r[n] = 1.0f / sqrtf((sum over i in order of x[n, i] * x[n, i]) / D + eps)
///   out[n, i] = x[n, i] * r[n] * weight[i]
inline const OperatorName kRmsNorm{"llama::rms_norm", "out"};

/// linear.out(x [N, in], w [out_features, in], out [N, out_features]):
/// out[n, o] = sum over k = 0..in-1 in order of x[n, k] * w[o, k], starting
/// from 0.0f. No bias.
inline const OperatorName kLinear{"aten::linear", "out"};

/// cat.out(TensorList tensors, Int dim, out): concatenates the list's
/// tensors along `dim` in list order; all other sizes equal.
inline const OperatorName kCat{"aten::cat", "out"};

/// view_copy.out(x, IntList size, out): copies x's elements in row-major
/// order into out, whose sizes are `size` (same element count).
inline const OperatorName kViewCopy{"aten::view_copy", "out"};

/// embedding.out(Tensor weight [V, D], Tensor indices (int64) [N], SymInt
/// padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False, *, out
/// [N, D]): out[n, :] = weight[indices[n], :] (the last three ignored, as
/// the portable kernel does); an index outside [0, V) is an error.
inline const OperatorName kEmbedding{"aten::embedding", "out"};

/// _local_scalar_dense(x (int64) [1]) -> Int r: writes x[0] into Int value
/// r. args = [x, r]. A `default` overload, so written with overload "" (the
/// prim-ops library registers it as `aten::_local_scalar_dense`).
inline const OperatorName kLocalScalarDense{"aten::_local_scalar_dense", ""};

/// update_cache.out(value [T, H, D], cache [S, H, D], Int start_pos, out):
/// cache[start_pos + t, :, :] = value[t, :, :] for t in 0..T-1, in place;
/// `out` aliases `cache` (same placement), nothing else is written.
/// start_pos + T > S is an error.
inline const OperatorName kUpdateCache{"llama::update_cache", "out"};

/// attention_scores.out(q [T, H*D], k_cache [S, H*D], Int start_pos,
/// Int heads, out [H, T, S]): with D = (H*D) / heads,
///   out[h, t, s] = (sum over d in order of q[t, h*D+d] * k_cache[s, h*D+d])
///                  / sqrtf(D)             if s <= start_pos + t
///                = -INFINITY              otherwise (causal mask).
inline const OperatorName kAttentionScores{"llama::attention_scores", "out"};

/// _softmax.out(x, Int dim, Bool half_to_float, out): softmax over the last
/// dimension (dim must be -1; half_to_float false), as the portable kernel:
/// m = max over the row (from element 0, in order), s = sum of expf(x_i -
/// m) in order, out_i = expf(x_i - m) / s (the exp computed again). A row
/// of all -INFINITY is an error.
inline const OperatorName kSoftmax{"aten::_softmax", "out"};

/// attention_mix.out(probs [H, T, S], v_cache [S, H*D], out [T, H*D]):
///   out[t, h*D+d] = sum over s in order of probs[h, t, s] * v_cache[s, h*D+d].
inline const OperatorName kAttentionMix{"llama::attention_mix", "out"};

/// convolution.out(x [1, Cin, H, W], w [Cout, Cin, K, K], Null bias,
/// IntList stride = [1, 1], IntList padding = [p, p], IntList dilation =
/// [1, 1], Bool transposed = false, IntList output_padding = [0, 0],
/// Int groups = 1, out [1, Cout, H + 2p - K + 1, W + 2p - K + 1]):
///   out[0, o, y, x] = sum over c, i, j in that order of
///                     w[o, c, i, j] * x[0, c, y + i - p, x + j - p]
/// (terms outside the image are skipped). Only the values above occur.
inline const OperatorName kConvolution{"aten::convolution", "out"};

/// mean.out(x, int[1]? dim, bool keepdim, *, ScalarType? dtype = Null, out):
/// the mean over the trailing dims `dim` names (dims = [2, 3] of [1, C, H,
/// W], or [-1]): as the portable kernel, the sum starts at the first
/// reduced element and adds the rest in order, then is divided by
/// (float)count.
inline const OperatorName kMeanDim{"aten::mean", "out"};

}  // namespace pteshare::synth::ops
