// Fuzz properties: the block planner on a small problem made from the bytes.
// PlanBlocks may refuse an invalid problem (overlapping fixed blocks) or a
// capacity it cannot meet, but every plan it returns must pass the validator
// (validator.h) and be no lower than the lower bound, even from a search cut
// short by a small step budget.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "rewriter/plan/blockplan/lower_bound.h"
#include "rewriter/plan/blockplan/planner.h"
#include "rewriter/plan/blockplan/validator.h"
#include "tests/fuzz/fuzz_support.h"

namespace pteshare::fuzz {

/// The first byte picks the alignment (1..128) and whether a capacity is set;
/// then every 5 bytes are one block: begin, length, size (2 bytes) and a flag
/// byte whose low bit fixes the block at 16 x the rest of that byte.
inline BlockProblem BlockProblemFromBytes(std::span<const uint8_t> bytes) {
  BlockProblem problem;
  if (bytes.empty()) return problem;
  problem.alignment = Bytes{1} << (bytes[0] & 7);
  const bool capped = (bytes[0] & 8) != 0;
  constexpr size_t kMaxBlocks = 64;
  Bytes total = 0;
  for (size_t at = 1; at + 5 <= bytes.size() && problem.blocks.size() < kMaxBlocks; at += 5) {
    Block block;
    block.id = std::to_string(problem.blocks.size());
    block.lifespan.begin = bytes[at];
    block.lifespan.end = block.lifespan.begin + bytes[at + 1] % 64;
    block.size = bytes[at + 2] | (Bytes{bytes[at + 3]} << 8);
    if (bytes[at + 4] & 1) block.fixed_offset = Offset{16} * (bytes[at + 4] >> 1);
    total += block.size;
    problem.blocks.push_back(std::move(block));
  }
  if (capped) problem.capacity = total / 2;
  return problem;
}

/// The properties above on `bytes` (fuzz_plan.cc).
inline void CheckBlockPlan(std::span<const uint8_t> bytes) {
  const BlockProblem problem = BlockProblemFromBytes(bytes);
  BlockPlannerOptions options;
  options.max_steps = 20'000;
  Result<BlockPlan> plan = PlanBlocks(problem, options);
  if (!plan.ok()) return;  // an invalid problem, or a capacity not met
  if (Status valid = ValidateBlockSolution(problem, plan->solution); !valid) {
    Fail("PlanBlocks returned an invalid placement: " + valid.error().message);
  }
  if (plan->solution.height < BlockLowerBound(problem.blocks)) {
    Fail("PlanBlocks returned a placement below the lower bound");
  }
}

}  // namespace pteshare::fuzz
