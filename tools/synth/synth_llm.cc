#include "tools/synth/synth_llm.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "tools/synth/operators.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare::synth {
namespace {

constexpr uint64_t kLegacyBufferAlignment = 16;

/// Weights shared by both methods (same bytes, so stored once).
struct LayerWeights {
  std::vector<uint8_t> attention_norm, wq, wk, wv, wo, ffn_norm, w1, w2;
};

struct Weights {
  std::vector<uint8_t> embedding;  // [vocab, dim]
  std::vector<LayerWeights> layers;
  std::vector<uint8_t> final_norm;  // [dim]
};

Weights MakeWeights(const LlmConfig& config, int32_t dim, int32_t ffn) {
  Weights weights;
  uint64_t stream = 0;
  auto matrix = [&](int32_t rows, int32_t cols) {
    return RandomFloatBytes(config.seed, stream++, static_cast<size_t>(rows) * cols,
                            1.0f / std::sqrt(static_cast<float>(cols)));
  };
  weights.embedding = matrix(config.vocab, dim);
  for (int32_t i = 0; i < config.layers; ++i) {
    LayerWeights& layer = weights.layers.emplace_back();
    layer.attention_norm = matrix(1, dim);
    layer.wq = matrix(dim, dim);
    layer.wk = matrix(dim, dim);
    layer.wv = matrix(dim, dim);
    layer.wo = matrix(dim, dim);
    layer.ffn_norm = matrix(1, dim);
    layer.w1 = matrix(ffn, dim);
    layer.w2 = matrix(dim, ffn);
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

/// Builds one method; `tokens` is T (prefill_len or 1).
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
    ValueIndex input_pos = AddLongInput({1});
    method_.inputs = {token_ids, input_pos};
    start_pos_ = AddInt(method_, 0);  // written by _local_scalar_dense
    method_.Call(ops::kLocalScalarDense, {input_pos, start_pos_});
    heads_ = AddInt(method_, config_.heads);
    last_dim_ = AddInt(method_, -1);
    no_half_to_float_ = AddBool(method_, false);
    norm_eps_ = method_.Add(Double{1e-5});

    ValueIndex embedding = AddConstant(method_, {config_.vocab, dim_}, weights_.embedding);
    ValueIndex x = AddActivation(method_, {t_, dim_});
    Call(ops::kEmbedding, {embedding, token_ids}, x);
    for (int32_t layer = 0; layer < config_.layers; ++layer) x = AddLayer(layer, x);
    x = RmsNorm(x, weights_.final_norm);
    ValueIndex logits = AddActivation(method_, {t_, config_.vocab});
    Call(ops::kLinear, {x, embedding}, logits);
    method_.outputs = {logits};
    if (config_.device_arena) method_.arena_devices.push_back(ArenaDevice{2, DeviceType::CUDA, 0});
    return std::move(method_);
  }

 private:
  ValueIndex AddLayer(int32_t layer, ValueIndex x) {
    const LayerWeights& w = weights_.layers[layer];
    ValueIndex normed = RmsNorm(x, w.attention_norm);
    ValueIndex q = Linear(normed, w.wq, dim_);
    ValueIndex k = Linear(normed, w.wk, dim_);
    ValueIndex v = Linear(normed, w.wv, dim_);

    ValueIndex k_view = UpdateCache(KCacheName(layer), k);
    ValueIndex v_view = UpdateCache(VCacheName(layer), v);

    ValueIndex scores = AddActivation(method_, {config_.heads, t_, config_.max_seq}, device_arena_);
    Call(ops::kAttentionScores, {q, k_view, start_pos_, heads_}, scores);
    ValueIndex probs = AddActivation(method_, {config_.heads, t_, config_.max_seq}, device_arena_);
    Call(ops::kSoftmax, {scores, last_dim_, no_half_to_float_}, probs);
    ValueIndex attn = AddActivation(method_, {t_, dim_});
    Call(ops::kAttentionMix, {probs, v_view}, attn);
    ValueIndex x1 = Add(x, Linear(attn, w.wo, dim_));

    ValueIndex hidden = Linear(RmsNorm(x1, w.ffn_norm), w.w1, ffn_);
    ValueIndex squared = AddActivation(method_, {t_, ffn_});
    Call(ops::kMul, {hidden, hidden}, squared);
    return Add(x1, Linear(squared, w.w2, dim_));
  }

  /// Writes this step's k or v into the named cache in place and returns a
  /// static [max_seq, dim] view of the cache for attention to read.
  ValueIndex UpdateCache(const std::string& name, ValueIndex projected) {
    ValueIndex split = AddActivation(method_, {t_, config_.heads, config_.head_dim}, device_arena_);
    // The exporter emits a fresh IntList (and Ints) for every use.
    ValueIndex shape = AddIntList(method_, {t_, config_.heads, config_.head_dim});
    Call(ops::kViewCopy, {projected, shape}, split);

    Tensor cache;
    cache.sizes = {config_.max_seq, config_.heads, config_.head_dim};
    cache.initial_state = std::vector<uint8_t>(TensorNbytes(cache), 0);
    if (config_.named) cache.fully_qualified_name = name;
    if (config_.legacy_shared) {
      cache.memory = FixedPlacement{2, legacy_offsets_.at(name)};
    } else {
      cache.memory = PlanInArena{device_arena_};
    }
    ValueIndex cache_index = method_.Add(std::move(cache));

    ValueIndex updated =
        AddAlias(method_, cache_index, {config_.max_seq, config_.heads, config_.head_dim});
    Call(ops::kUpdateCache, {split, cache_index, start_pos_}, updated);
    return AddAlias(method_, cache_index, {config_.max_seq, dim_});
  }

  ValueIndex Linear(ValueIndex x, const std::vector<uint8_t>& weight, int32_t out_features) {
    int32_t in_features = static_cast<int32_t>(weight.size() / sizeof(float) / out_features);
    ValueIndex w = AddConstant(method_, {out_features, in_features}, weight);
    ValueIndex out = AddActivation(method_, {t_, out_features});
    Call(ops::kLinear, {x, w}, out);
    return out;
  }

  ValueIndex RmsNorm(ValueIndex x, const std::vector<uint8_t>& weight) {
    ValueIndex w = AddConstant(method_, {dim_}, weight);
    ValueIndex out = AddActivation(method_, {t_, dim_});
    Call(ops::kRmsNorm, {x, w, norm_eps_}, out);
    return out;
  }

  ValueIndex Add(ValueIndex a, ValueIndex b) {
    ValueIndex out = AddActivation(method_, {t_, dim_});
    Call(ops::kAdd, {a, b}, out);
    return out;
  }

  ValueIndex AddLongInput(std::vector<int32_t> sizes) {
    Tensor tensor;
    tensor.scalar_type = ScalarType::LONG;
    tensor.sizes = std::move(sizes);
    return method_.Add(std::move(tensor));
  }

  void Call(const OperatorName& op, std::vector<ValueIndex> args, ValueIndex out) {
    CallOut(method_, op, std::move(args), out);
  }

  const LlmConfig& config_;
  const Weights& weights_;
  const std::map<std::string, ByteOffset>& legacy_offsets_;
  const int32_t dim_;
  const int32_t ffn_;
  const MemoryId device_arena_;
  MethodSpec method_;
  int32_t t_ = 0;
  ValueIndex start_pos_ = 0, heads_ = 0, last_dim_ = 0, no_half_to_float_ = 0, norm_eps_ = 0;
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
