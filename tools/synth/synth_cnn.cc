#include "tools/synth/synth_cnn.h"

#include <cmath>
#include <string>

#include "tools/synth/operators.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare::synth {
namespace {

constexpr int32_t kImageChannels = 3;
constexpr int32_t kKernel = 3;

/// Builds the single method; keeps the shared convolution arguments.
class CnnBuilder {
 public:
  explicit CnnBuilder(const CnnConfig& config) : config_(config) {}

  MethodSpec Build() {
    method_.name = "forward";
    ValueIndex image = AddActivation(method_, {1, kImageChannels, config_.height, config_.width});
    method_.inputs = {image};
    no_bias_ = AddNull(method_);
    ones_ = AddIntList(method_, {1, 1});
    padding_ = AddIntList(method_, {1, 1});
    zeros_ = AddIntList(method_, {0, 0});
    not_transposed_ = AddBool(method_, false);
    one_group_ = AddInt(method_, 1);

    ValueIndex a = ConvRelu(image, kImageChannels);
    ValueIndex before_last = a;
    for (int32_t layer = 0; layer < config_.layers; ++layer) {
      ValueIndex residual = ConvRelu(a, config_.channels);
      ValueIndex sum = FeatureMap(config_.channels);
      CallAdd(method_, a, residual, sum);
      before_last = a;
      a = sum;
    }

    ValueIndex pair = method_.Add(TensorList{{a, before_last}});
    ValueIndex both = FeatureMap(2 * config_.channels);
    Call(ops::kCat, {pair, AddInt(method_, 1)}, both);
    ValueIndex pooled = AddActivation(method_, {1, 2 * config_.channels});
    Call(ops::kMeanDim, {both, AddIntList(method_, {2, 3}), AddBool(method_, false), no_bias_},
         pooled);
    // The classifier as mm with its weight stored [in, out] (the exporter
    // folds linear's transpose into the constant; no portable linear).
    ValueIndex fc = Weight({2 * config_.channels, config_.classes}, 2 * config_.channels);
    ValueIndex logits = AddActivation(method_, {1, config_.classes});
    Call(ops::kMm, {pooled, fc}, logits);
    method_.outputs = {logits};
    return std::move(method_);
  }

 private:
  ValueIndex ConvRelu(ValueIndex input, int32_t in_channels) {
    ValueIndex weight =
        Weight({config_.channels, in_channels, kKernel, kKernel}, in_channels * kKernel * kKernel);
    ValueIndex conv = FeatureMap(config_.channels);
    Call(ops::kConvolution,
         {input, weight, no_bias_, ones_, padding_, ones_, not_transposed_, zeros_, one_group_},
         conv);
    ValueIndex relu = FeatureMap(config_.channels);
    Call(ops::kRelu, {conv}, relu);
    return relu;
  }

  ValueIndex FeatureMap(int32_t channels) {
    return AddActivation(method_, {1, channels, config_.height, config_.width});
  }

  ValueIndex Weight(std::vector<int32_t> sizes, int32_t fan_in) {
    size_t count = 1;
    for (int32_t size : sizes) count *= static_cast<size_t>(size);
    auto bytes = RandomFloatBytes(config_.seed, next_stream_++, count,
                                  1.0f / std::sqrt(static_cast<float>(fan_in)));
    return AddConstant(method_, std::move(sizes), std::move(bytes));
  }

  void Call(const OperatorName& op, std::vector<ValueIndex> args, ValueIndex out) {
    CallOut(method_, op, std::move(args), out);
  }

  const CnnConfig& config_;
  MethodSpec method_;
  uint64_t next_stream_ = 0;
  ValueIndex no_bias_ = 0, ones_ = 0, padding_ = 0, zeros_ = 0, not_transposed_ = 0, one_group_ = 0;
};

}  // namespace

Result<ProgramSpec> SynthesizeCnn(const CnnConfig& config) {
  struct Setting {
    const char* name;
    int64_t value;
  };
  for (Setting setting : {Setting{"layers", config.layers}, Setting{"channels", config.channels},
                          Setting{"height", config.height}, Setting{"width", config.width},
                          Setting{"classes", config.classes}}) {
    if (setting.value < 1) {
      return Error{std::string(setting.name) + " is " + std::to_string(setting.value) +
                   ", must be >= 1"};
    }
  }
  const int64_t feature_bytes = int64_t{4} * 2 * config.channels * config.height * config.width;
  if (feature_bytes > (int64_t{1} << 31)) {
    return Error{"a feature map would be " + std::to_string(feature_bytes) +
                 " bytes; keep every tensor under 2 GiB"};
  }
  ProgramSpec spec;
  spec.methods.push_back(CnnBuilder(config).Build());
  return spec;
}

}  // namespace pteshare::synth
