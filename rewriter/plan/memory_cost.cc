#include "rewriter/plan/memory_cost.h"

#include <algorithm>

namespace pteshare {
namespace {

void Add(const std::vector<uint64_t>& before, const std::vector<uint64_t>& after,
         MemoryCost* cost) {
  // A plan may add arenas (Layout::kArena): they cost nothing before.
  const size_t count = std::max(before.size(), after.size());
  if (cost->arenas.size() < count) cost->arenas.resize(count);
  for (size_t i = 0; i < count; ++i) {
    ArenaCost& a = cost->arenas[i];
    a.memory_id = static_cast<uint32_t>(i + 1);
    const uint64_t b = i < before.size() ? before[i] : 0;
    const uint64_t n = i < after.size() ? after[i] : b;
    a.one_set_before = std::max(a.one_set_before, b);
    a.one_set_after = std::max(a.one_set_after, n);
    a.separate_before += b;
    a.separate_after += n;
  }
}

void Total(MemoryCost* cost) {
  cost->total = ArenaCost{};
  for (const ArenaCost& a : cost->arenas) {
    cost->total.one_set_before += a.one_set_before;
    cost->total.one_set_after += a.one_set_after;
    cost->total.separate_before += a.separate_before;
    cost->total.separate_after += a.separate_after;
  }
}

}  // namespace

MemoryCost ComputeMemoryCost(const Plan& plan) {
  MemoryCost cost;
  for (const MethodPlan& m : plan.methods) Add(m.arena_sizes_before, m.arena_sizes_after, &cost);
  Total(&cost);
  return cost;
}

std::vector<std::vector<uint64_t>> ArenaSizes(const ProgramView& view) {
  std::vector<std::vector<uint64_t>> sizes;
  for (const MethodView& m : view.methods) {
    sizes.emplace_back();
    for (const Arena& a : m.arenas) sizes.back().push_back(a.size);
  }
  return sizes;
}

MemoryCost ComputeMemoryCost(const std::vector<std::vector<uint64_t>>& arena_sizes_per_method) {
  MemoryCost cost;
  for (const std::vector<uint64_t>& sizes : arena_sizes_per_method) Add(sizes, sizes, &cost);
  Total(&cost);
  return cost;
}

}  // namespace pteshare
