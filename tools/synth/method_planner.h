// Resolves where every tensor of a method lives: runs the exporter-like
// greedy planner per arena for PlanInArena tensors (with lifetimes from
// value_lifetimes.h, merged over alias groups), keeps FixedPlacement as
// given, and places each AliasOf at its base's offset plus the relative
// offset. Also derives non_const_buffer_sizes.
#pragma once

#include <optional>
#include <vector>

#include "rewriter/base/result.h"
#include "tools/synth/program_spec.h"

namespace pteshare::synth {

/// Where a planned tensor lives; nbytes is the tensor's own size.
struct ResolvedPlacement {
  MemoryId memory_id = 0;
  ByteOffset offset = 0;
  uint64_t nbytes = 0;
  bool operator==(const ResolvedPlacement&) const = default;
};

struct MethodPlacements {
  /// Indexed by ValueIndex; empty for non-tensors and unplanned tensors.
  std::vector<std::optional<ResolvedPlacement>> by_value;
  /// [0, size of arena 1, size of arena 2, ...]: at least two entries (as
  /// the exporter writes for a method with nothing planned). An arena's
  /// size covers the greedy buckets and every fixed or aliased tensor's end.
  std::vector<int64_t> non_const_buffer_sizes;
};

/// Fails on a spec the builder cannot lay out, naming the method, the value
/// and the numbers (alias of a non-tensor, alias cycle, memory_id 0, ...).
Result<MethodPlacements> PlanMethod(const MethodSpec& method, uint64_t alignment);

}  // namespace pteshare::synth
