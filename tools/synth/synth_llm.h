// A synthetic decoder-only language model with two methods, `prefill`
// (prefill_len tokens) and `decode` (one token), that share per-layer KV
// caches as mutable buffers (initial state zeros, shape [max_seq, heads,
// head_dim]), unnamed as the exporter writes them by default, or with
// `named` called `layers.{i}.attention.kv_cache.k_cache` and `.v_cache`.
//
// Each method: tokens (int64 [T]) and input_pos (int64 [T], each token's
// cache row) in, logits ([T, vocab]) out, in aten operators that have a
// portable kernel, written as the emitter writes them (operators.h; facts in
// docs/exporter-facts.md). Per layer, with dim = heads x head_dim, every
// projection an mm with the weight stored [in, out]:
//   n          = rms_norm(x): x * rsqrt(mean(x * x, -1, keepdim) + eps) * w
//   q, k, v    = mm(n, Wq / Wk / Wv)                                 [T, dim]
//   k_cache    = index_put(k_cache, [input_pos], view_copy(k, [T, heads,
//                head_dim]))  (out is the cache itself: updated in place)
//   scores     = bmm(permute(q3, [1,0,2]), permute(k_cache, [1,2,0]))
//                * 1/sqrt(head_dim) + mask[input_pos]     [heads, T, max_seq]
//   probs      = _softmax(scores, -1)
//   attn       = view_copy(permute(bmm(probs, permute(v_cache, [1,0,2])), [1,0,2]))
//   x1         = x + mm(attn, Wo);  x2 = x1 + mm(h * h, W2), h = mm(rms_norm(x1), W1)
// then logits = mm(rms_norm(x), embedding^T). mask is a constant [max_seq,
// max_seq] (0 at or below the diagonal, -inf above), its rows taken once per
// method with index.Tensor.
// With const_methods (the default), the exporter's metadata methods follow.
//
// The exporter-like planner plans each method on its own, and prefill's
// activations (scores [heads, T, max_seq], the ffn hidden [T, 4 dim]) outgrow
// a cache whenever prefill_len > head_dim or prefill_len > max_seq / 4, so
// the caches land at different offsets in prefill and decode: the problem
// pteshare solves.
#pragma once

#include <cstdint>

#include "rewriter/base/result.h"
#include "tools/synth/program_spec.h"

namespace pteshare::synth {

struct LlmConfig {
  int32_t layers = 2;
  int32_t heads = 4;
  int32_t head_dim = 16;
  int32_t max_seq = 128;
  /// Tokens prefill takes; 0 means max_seq / 2. Must be < max_seq.
  int32_t prefill_len = 0;
  int32_t vocab = 256;
  /// Caches, their update inputs and the attention scores/probs go to
  /// arena 2, which non_const_buffer_device puts on CUDA.
  bool device_arena = false;
  /// The exporter's older sharing: every mutable buffer in an extra arena
  /// 2 at identical offsets (sorted by name) in both methods.
  bool legacy_shared = false;
  /// Write fully_qualified_name on the caches (the exporter does only when
  /// asked to emit mutable buffer names).
  bool named = false;
  /// After prefill and decode, the constant metadata methods LLM exporters
  /// emit (ExportedLlamaMetadata: get_max_seq_len, get_vocab_size,
  /// use_kv_cache, ...): each returns its value, runs no instruction and
  /// plans nothing (non_const_buffer_sizes [0]). docs/exporter-facts.md.
  bool const_methods = true;
  uint64_t seed = 0;
};

/// The program spec, or an error naming the bad setting and its value.
Result<ProgramSpec> SynthesizeLlm(const LlmConfig& config);

/// The cache names of layer `layer`.
std::string KCacheName(int32_t layer);
std::string VCacheName(int32_t layer);

}  // namespace pteshare::synth
