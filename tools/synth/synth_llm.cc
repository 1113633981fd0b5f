#include "tools/synth/synth_llm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "tools/synth/operators.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare::synth {
namespace {

constexpr uint64_t kLegacyBufferAlignment = 16;

/// Weights shared by both methods (same bytes, so stored once). Each
/// projection is stored as mm's second operand, [in, out]: the exporter
/// folds linear's weight transpose into the constant (there is no portable
/// linear kernel).
struct LayerWeights {
  std::vector<uint8_t> attention_norm, wq, wk, wv, wo, ffn_norm, w1, w2;
};

struct Weights {
  std::vector<uint8_t> embedding;    // [vocab, dim]
  std::vector<uint8_t> output;       // [dim, vocab]: the embedding transposed (tied)
  std::vector<uint8_t> causal_mask;  // [max_seq, max_seq]: 0 at or below the diagonal, -inf above
  std::vector<LayerWeights> layers;
  std::vector<uint8_t> final_norm;  // [dim]
};

std::vector<uint8_t> Transposed(const std::vector<uint8_t>& bytes, int32_t rows, int32_t cols) {
  std::vector<uint8_t> out(bytes.size());
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t c = 0; c < cols; ++c) {
      std::memcpy(&out[(static_cast<size_t>(c) * rows + r) * 4],
                  &bytes[(static_cast<size_t>(r) * cols + c) * 4], 4);
    }
  }
  return out;
}

std::vector<uint8_t> CausalMask(int32_t seq) {
  std::vector<float> mask(static_cast<size_t>(seq) * seq, 0.0f);
  for (int32_t row = 0; row < seq; ++row) {
    for (int32_t col = row + 1; col < seq; ++col)
      mask[static_cast<size_t>(row) * seq + col] = -INFINITY;
  }
  std::vector<uint8_t> bytes(mask.size() * 4);
  std::memcpy(bytes.data(), mask.data(), bytes.size());
  return bytes;
}

Weights MakeWeights(const LlmConfig& config, int32_t dim, int32_t ffn) {
  Weights weights;
  uint64_t stream = 0;
  // [in, out], scaled by the fan-in.
  auto matrix = [&](int32_t in, int32_t out) {
    return RandomFloatBytes(config.seed, stream++, static_cast<size_t>(in) * out,
                            1.0f / std::sqrt(static_cast<float>(in)));
  };
  weights.embedding =
      RandomFloatBytes(config.seed, stream++, static_cast<size_t>(config.vocab) * dim,
                       1.0f / std::sqrt(static_cast<float>(dim)));
  weights.output = Transposed(weights.embedding, config.vocab, dim);
  weights.causal_mask = CausalMask(config.max_seq);
  for (int32_t i = 0; i < config.layers; ++i) {
    LayerWeights& layer = weights.layers.emplace_back();
    layer.attention_norm = matrix(1, dim);
    layer.wq = matrix(dim, dim);
    layer.wk = matrix(dim, dim);
    layer.wv = matrix(dim, dim);
    layer.wo = matrix(dim, dim);
    layer.ffn_norm = matrix(1, dim);
    layer.w1 = matrix(dim, ffn);
    layer.w2 = matrix(ffn, dim);
  }
  weights.final_norm = matrix(1, dim);
  return weights;
}

/// Fixed arena-2 offsets of every cache for --legacy-shared: sorted by
/// name, each aligned, identical in both methods.
std::map<std::string, ByteOffset> LegacySharedOffsets(const LlmConfig& config,
                                                      uint64_t cache_bytes) {
  std::vector<std::string> names;
  for (int32_t i = 0; i < config.layers; ++i) {
    names.push_back(KCacheName(i));
    names.push_back(VCacheName(i));
  }
  std::sort(names.begin(), names.end());
  std::map<std::string, ByteOffset> offsets;
  ByteOffset next = 0;
  const uint64_t slot =
      (cache_bytes + kLegacyBufferAlignment - 1) / kLegacyBufferAlignment * kLegacyBufferAlignment;
  for (const std::string& name : names) {
    offsets[name] = next;
    next += slot;
  }
  return offsets;
}

/// Builds one method; `tokens` is T (prefill_len or 1). Every operator is
/// an aten one with a portable kernel, with the emitter's argument list
/// (operators.h); scalars and int lists are new values at every use, as the
/// emitter writes them.
class LlmMethodBuilder {
 public:
  LlmMethodBuilder(const LlmConfig& config, const Weights& weights,
                   const std::map<std::string, ByteOffset>& legacy_offsets)
      : config_(config),
        weights_(weights),
        legacy_offsets_(legacy_offsets),
        dim_(config.heads * config.head_dim),
        ffn_(4 * dim_),
        device_arena_(config.device_arena ? 2 : 1) {}

  MethodSpec Build(const std::string& name, int32_t tokens) {
    method_ = MethodSpec{};
    method_.name = name;
    t_ = tokens;
    ValueIndex token_ids = AddLongInput({t_});
    input_pos_ = AddLongInput({t_});  // the cache row of each token
    method_.inputs = {token_ids, input_pos_};

    ValueIndex embedding = AddConstant(method_, {config_.vocab, dim_}, weights_.embedding);
    ValueIndex x = AddActivation(method_, {t_, dim_});
    CallEmbedding(method_, embedding, token_ids, x);
    // The rows of the causal mask for these positions, once per method.
    ValueIndex mask =
        AddConstant(method_, {config_.max_seq, config_.max_seq}, weights_.causal_mask);
    mask_rows_ = AddActivation(method_, {t_, config_.max_seq});
    CallOut(method_, ops::kIndexTensor, {mask, Positions()}, mask_rows_);
    for (int32_t layer = 0; layer < config_.layers; ++layer) x = AddLayer(layer, x);
    x = RmsNorm(x, weights_.final_norm);
    ValueIndex logits = Mm(x, weights_.output, config_.vocab);
    method_.outputs = {logits};
    if (config_.device_arena) method_.arena_devices.push_back(ArenaDevice{2, DeviceType::CUDA, 0});
    return std::move(method_);
  }

 private:
  ValueIndex AddLayer(int32_t layer, ValueIndex x) {
    const LayerWeights& w = weights_.layers[layer];
    const int32_t heads = config_.heads, head_dim = config_.head_dim, seq = config_.max_seq;
    ValueIndex normed = RmsNorm(x, w.attention_norm);
    ValueIndex q = Mm(normed, w.wq, dim_);
    ValueIndex k = Mm(normed, w.wk, dim_);
    ValueIndex v = Mm(normed, w.wv, dim_);

    ValueIndex k_cache = UpdateCache(KCacheName(layer), k);  // [seq, heads, head_dim]
    ValueIndex v_cache = UpdateCache(VCacheName(layer), v);

    // scores[h, t, s] = q[t, h, :] . k[s, h, :] / sqrt(head_dim) + mask[t, s]
    ValueIndex q_heads = Permute(View(q, {t_, heads, head_dim}), {1, 0, 2}, {heads, t_, head_dim});
    ValueIndex k_heads = Permute(k_cache, {1, 2, 0}, {heads, head_dim, seq}, device_arena_);
    ValueIndex scores = AddActivation(method_, {heads, t_, seq}, device_arena_);
    CallOut(method_, ops::kBmm, {q_heads, k_heads}, scores);
    ValueIndex scaled = AddActivation(method_, {heads, t_, seq}, device_arena_);
    CallOut(method_, ops::kMulScalar,
            {scores, method_.Add(Double{1.0 / std::sqrt(static_cast<double>(head_dim))})}, scaled);
    ValueIndex masked = AddActivation(method_, {heads, t_, seq}, device_arena_);
    CallAdd(method_, scaled, mask_rows_, masked);
    ValueIndex probs = AddActivation(method_, {heads, t_, seq}, device_arena_);
    CallOut(method_, ops::kSoftmax, {masked, AddInt(method_, -1), AddBool(method_, false)}, probs);
    ValueIndex v_heads = Permute(v_cache, {1, 0, 2}, {heads, seq, head_dim}, device_arena_);
    ValueIndex mixed = AddActivation(method_, {heads, t_, head_dim});
    CallOut(method_, ops::kBmm, {probs, v_heads}, mixed);
    ValueIndex attn = View(Permute(mixed, {1, 0, 2}, {t_, heads, head_dim}), {t_, dim_});
    ValueIndex x1 = Add(x, Mm(attn, w.wo, dim_));

    ValueIndex hidden = Mm(RmsNorm(x1, w.ffn_norm), w.w1, ffn_);
    ValueIndex squared = AddActivation(method_, {t_, ffn_});
    CallOut(method_, ops::kMul, {hidden, hidden}, squared);
    return Add(x1, Mm(squared, w.w2, dim_));
  }

  /// The Tensor?[] [input_pos] both index ops take.
  ValueIndex Positions() { return AddOptionalTensorList(method_, {input_pos_}); }

  /// Writes this step's k or v into the named cache at the tokens'
  /// positions, in place (index_put's out is the cache: the exporter's
  /// reinplaced mutable buffer), and returns the updated cache.
  ValueIndex UpdateCache(const std::string& name, ValueIndex projected) {
    const std::vector<int32_t> rows = {config_.max_seq, config_.heads, config_.head_dim};
    ValueIndex split = View(projected, {t_, config_.heads, config_.head_dim}, device_arena_);
    Tensor cache;
    cache.sizes = rows;
    cache.initial_state = std::vector<uint8_t>(TensorNbytes(cache), 0);
    if (config_.named) cache.fully_qualified_name = name;
    if (config_.legacy_shared) {
      cache.memory = FixedPlacement{2, legacy_offsets_.at(name)};
    } else {
      cache.memory = PlanInArena{device_arena_};
    }
    ValueIndex cache_index = method_.Add(std::move(cache));
    ValueIndex updated = AddAlias(method_, cache_index, rows);
    CallOut(method_, ops::kIndexPut, {cache_index, Positions(), split, AddBool(method_, false)},
            updated);
    return updated;
  }

  ValueIndex View(ValueIndex x, std::vector<int32_t> sizes, MemoryId memory_id = 1) {
    ValueIndex out = AddActivation(method_, sizes, memory_id);
    IntList shape;
    for (int32_t size : sizes) shape.items.push_back(AddInt(method_, size));
    CallOut(method_, ops::kViewCopy, {x, method_.Add(std::move(shape))}, out);
    return out;
  }

  ValueIndex Permute(ValueIndex x, std::initializer_list<int64_t> dims, std::vector<int32_t> sizes,
                     MemoryId memory_id = 1) {
    ValueIndex out = AddActivation(method_, std::move(sizes), memory_id);
    CallOut(method_, ops::kPermuteCopy, {x, AddIntList(method_, dims)}, out);
    return out;
  }

  /// x [T, in] @ weight [in, out_features].
  ValueIndex Mm(ValueIndex x, const std::vector<uint8_t>& weight, int32_t out_features) {
    const int32_t in_features = static_cast<int32_t>(weight.size() / sizeof(float) / out_features);
    ValueIndex w = AddConstant(method_, {in_features, out_features}, weight);
    ValueIndex out = AddActivation(method_, {t_, out_features});
    CallOut(method_, ops::kMm, {x, w}, out);
    return out;
  }

  /// RMSNorm as the exporter decomposes it: x * rsqrt(mean(x * x, -1,
  /// keepdim) + eps) * weight, the last two broadcast.
  ValueIndex RmsNorm(ValueIndex x, const std::vector<uint8_t>& weight) {
    ValueIndex squared = AddActivation(method_, {t_, dim_});
    CallOut(method_, ops::kMul, {x, x}, squared);
    ValueIndex mean = AddActivation(method_, {t_, 1});
    CallOut(method_, ops::kMeanDim,
            {squared, AddIntList(method_, {-1}), AddBool(method_, true), AddNull(method_)}, mean);
    ValueIndex shifted = AddActivation(method_, {t_, 1});
    CallOut(method_, ops::kAddScalar, {mean, method_.Add(Double{1e-5}), AddInt(method_, 1)},
            shifted);
    ValueIndex scale = AddActivation(method_, {t_, 1});
    CallOut(method_, ops::kRsqrt, {shifted}, scale);
    ValueIndex normed = AddActivation(method_, {t_, dim_});
    CallOut(method_, ops::kMul, {x, scale}, normed);
    ValueIndex w = AddConstant(method_, {dim_}, weight);
    ValueIndex out = AddActivation(method_, {t_, dim_});
    CallOut(method_, ops::kMul, {normed, w}, out);
    return out;
  }

  ValueIndex Add(ValueIndex a, ValueIndex b) {
    ValueIndex out = AddActivation(method_, {t_, dim_});
    CallAdd(method_, a, b, out);
    return out;
  }

  ValueIndex AddLongInput(std::vector<int32_t> sizes) {
    Tensor tensor;
    tensor.scalar_type = ScalarType::LONG;
    tensor.sizes = std::move(sizes);
    return method_.Add(std::move(tensor));
  }

  const LlmConfig& config_;
  const Weights& weights_;
  const std::map<std::string, ByteOffset>& legacy_offsets_;
  const int32_t dim_;
  const int32_t ffn_;
  const MemoryId device_arena_;
  MethodSpec method_;
  int32_t t_ = 0;
  ValueIndex input_pos_ = 0, mask_rows_ = 0;
};

/// The metadata methods, in the order export_llama_lib builds its dict
/// (the emitter keeps that order, after the sorted graph methods): each a
/// value per leaf, outputs listing them, no instruction, nothing planned.
std::vector<MethodSpec> ConstMethods(const LlmConfig& config) {
  auto getter = [](std::string name, Value value, std::string spec) {
    MethodSpec method;
    method.name = std::move(name);
    method.outputs = {method.Add(std::move(value))};
    method.encoded_out_spec = std::move(spec);
    method.non_const_buffer_sizes = std::vector<int64_t>{0};  // no planned buffer
    return method;
  };
  std::vector<MethodSpec> methods;
  methods.push_back(getter("get_bos_id", Int{1}, "$"));
  methods.push_back(getter("get_eos_ids", Int{2}, "L1#1($)"));  // a list of one id
  methods.push_back(getter("get_max_seq_len", Int{config.max_seq}, "$"));
  methods.push_back(getter("get_n_layers", Int{config.layers}, "$"));
  methods.push_back(getter("get_vocab_size", Int{config.vocab}, "$"));
  methods.push_back(getter("use_kv_cache", Bool{true}, "$"));
  methods.push_back(getter("use_sdpa_with_kv_cache", Bool{false}, "$"));
  methods.push_back(getter("enable_dynamic_shape", Bool{false}, "$"));
  return methods;
}

Status CheckConfig(const LlmConfig& config) {
  auto at_least = [](const char* what, int64_t value, int64_t minimum) -> Status {
    if (value >= minimum) return Status::Ok();
    return Error{std::string(what) + " is " + std::to_string(value) +
                 ", must be >= " + std::to_string(minimum)};
  };
  for (Status status :
       {at_least("layers", config.layers, 1), at_least("heads", config.heads, 1),
        at_least("head-dim", config.head_dim, 1), at_least("max-seq", config.max_seq, 2),
        at_least("vocab", config.vocab, 1), at_least("prefill-len", config.prefill_len, 0)}) {
    if (!status) return status;
  }
  if (config.prefill_len >= config.max_seq) {
    return Error{"prefill-len " + std::to_string(config.prefill_len) + " must be < max-seq " +
                 std::to_string(config.max_seq) + " (decode needs a free cache row)"};
  }
  if (config.device_arena && config.legacy_shared) {
    return Error{
        "--legacy-shared cannot be combined with --device-arena: the old exporter refuses "
        "programs that already use more than one arena"};
  }
  // Every tensor's byte size must fit the int32 sizes and stay sane.
  const int64_t largest =
      int64_t{4} * std::max<int64_t>(int64_t{config.heads} * config.max_seq * config.max_seq,
                                     int64_t{config.vocab} * config.heads * config.head_dim * 4);
  if (largest > (int64_t{1} << 31)) {
    return Error{"largest tensor would be " + std::to_string(largest) +
                 " bytes; keep every tensor under 2 GiB"};
  }
  return Status::Ok();
}

}  // namespace

std::string KCacheName(int32_t layer) {
  return "layers." + std::to_string(layer) + ".attention.kv_cache.k_cache";
}
std::string VCacheName(int32_t layer) {
  return "layers." + std::to_string(layer) + ".attention.kv_cache.v_cache";
}

Result<ProgramSpec> SynthesizeLlm(const LlmConfig& config) {
  if (Status status = CheckConfig(config); !status) return status.error();
  const int32_t dim = config.heads * config.head_dim;
  const int32_t prefill_len = config.prefill_len > 0 ? config.prefill_len : config.max_seq / 2;
  Weights weights = MakeWeights(config, dim, 4 * dim);
  const uint64_t cache_bytes = uint64_t{4} * config.max_seq * dim;
  std::map<std::string, ByteOffset> legacy_offsets;
  if (config.legacy_shared) legacy_offsets = LegacySharedOffsets(config, cache_bytes);

  ProgramSpec spec;
  LlmMethodBuilder builder(config, weights, legacy_offsets);
  spec.methods.push_back(builder.Build("prefill", prefill_len));
  spec.methods.push_back(builder.Build("decode", 1));
  if (config.const_methods) {
    for (MethodSpec& getter : ConstMethods(config)) spec.methods.push_back(std::move(getter));
  }
  return spec;
}

}  // namespace pteshare::synth
