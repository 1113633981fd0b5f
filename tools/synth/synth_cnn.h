// A synthetic single-method convolutional network without state: the
// "nothing to share" case, and a program with IntList, Null, Bool and
// TensorList arguments as real conv nets have them.
//
// forward(image [1, 3, H, W]) -> logits [1, classes]:
//   a = relu(conv3x3(image, W_stem))                      [1, C, H, W]
//   per layer: a = a + relu(conv3x3(a, W_i))              (residual)
//   both = cat([a_last, a_before_last], dim 1)            [1, 2C, H, W]
//   pooled = mean(both, dims [2, 3])                      [1, 2C]
//   logits = mm(pooled, W_fc) (W_fc stored [in, out])     [1, classes]
// Convolutions use padding 1, stride 1 (operators.h).
#pragma once

#include <cstdint>

#include "rewriter/base/result.h"
#include "tools/synth/program_spec.h"

namespace pteshare::synth {

struct CnnConfig {
  int32_t layers = 4;
  int32_t channels = 16;
  int32_t height = 32;
  int32_t width = 32;
  int32_t classes = 10;
  uint64_t seed = 0;
};

/// The program spec, or an error naming the bad setting and its value.
Result<ProgramSpec> SynthesizeCnn(const CnnConfig& config);

}  // namespace pteshare::synth
