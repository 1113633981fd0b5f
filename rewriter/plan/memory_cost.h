// What the application allocates for a program's arenas, before and after
// a plan, in the two ways it can bind them: one set of arenas for every
// method (ExecuTorch's Module(share_memory_arenas=true), or one
// HierarchicalAllocator for all methods), where each arena is as large as
// its largest method needs; or a separate set per method, the sum. Sharing
// state needs the one set; this is where the saving shows.
#pragma once

#include <cstdint>
#include <vector>

#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"

namespace pteshare {

/// Bytes of one arena (or of all of them, in MemoryCost::total).
struct ArenaCost {
  uint32_t memory_id = 0;  // 0 in the total
  uint64_t one_set_before = 0;
  uint64_t one_set_after = 0;
  uint64_t separate_before = 0;
  uint64_t separate_after = 0;
};

struct MemoryCost {
  std::vector<ArenaCost> arenas;  // memory_id 1..n (the most any method has)
  ArenaCost total;
};

/// From the plan's per-method arena sizes before and after.
MemoryCost ComputeMemoryCost(const Plan& plan);

/// Each method's arena sizes as the program states them (memory_id order).
std::vector<std::vector<uint64_t>> ArenaSizes(const ProgramView& view);

/// The same for a program as it stands (before == after).
MemoryCost ComputeMemoryCost(const std::vector<std::vector<uint64_t>>& arena_sizes_per_method);

}  // namespace pteshare
