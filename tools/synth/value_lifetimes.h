// When each value of a method is live, in instruction indices, the way
// ExecuTorch's memory planner sees it: a closed interval [first, last]
// (two lifetimes overlap unless one ends strictly before the other starts).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tools/synth/program_spec.h"

namespace pteshare::synth {

/// Inclusive range of instruction indices during which a value is live.
struct Lifetime {
  int32_t first = 0;
  int32_t last = 0;

  bool Overlaps(const Lifetime& other) const { return !(last < other.first || first > other.last); }
  void Cover(const Lifetime& other) {
    if (other.first < first) first = other.first;
    if (other.last > last) last = other.last;
  }
};

/// Lifetime of every value (indexed by ValueIndex), derived from the
/// method's instruction list:
///  - a value is live from the first to the last instruction that refers to
///    it, directly or as an item of a TensorList / OptionalTensorList;
///  - plan inputs live from instruction 0, plan outputs to the last one;
///  - mutable buffers (a Tensor with initial state or a name) live always;
///  - a value live anywhere inside a backward JumpFalseCall loop
///    [destination, jump] lives across the whole loop (it is needed again
///    on the next iteration);
///  - a Tensor nothing refers to lives always (we cannot know better, and
///    never overlapping is the safe choice).
/// Values that are not tensors get a lifetime too; the planner ignores it.
/// Does not follow aliases (method_planner.cc merges alias lifetimes).
std::vector<Lifetime> ComputeValueLifetimes(const MethodSpec& method);

/// The [first, last] interval covering the whole method.
Lifetime WholeMethod(const MethodSpec& method);

}  // namespace pteshare::synth
