// The `replan` strategy: plan each arena of a method again from its
// lifetimes, near the lower bound, keeping the front regions.
//
// Per method and arena:
//  - the front region [0, F) is one fixed block live throughout (every
//    slot, also those of buffers the method lacks); a shared buffer and
//    every member of its alias group keep their offset relative to the
//    buffer inside its slot;
//  - every other alias group (lifetimes.h) is one block: from its lowest
//    offset rounded down to the plan alignment to its highest end, live
//    over the union of its members' ranges. The block planner
//    (blockplan/planner.h) places the blocks at aligned offsets with a fixed
//    step budget and seed, so the same input always gives the same bytes;
//    members go to the block's offset plus their offset within it, which
//    keeps every in-group overlap and the alignment of aligned members;
//  - a zero-byte tensor follows the non-empty tensor whose bytes contained
//    its offset in the input, or goes to offset 0.
// Padding: the new arena size is the highest end rounded up to the plan
// alignment, like the exporter's aligned buckets. Bytes the input arena had
// past its last tensor are not kept: no tensor uses them.
// An arena is left alone (not replanned) when the method plans nothing in
// it and it has no front, or when an alias group mixes a shared buffer with
// tensors outside it (the group could not stay rigid): `why_not` says so.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rewriter/plan/lifetimes.h"
#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"
#include "rewriter/share/shared_buffers.h"

namespace pteshare {

struct ReplanOptions {
  uint64_t alignment = 16;
  /// Block planner effort per arena, in steps (deterministic, never time).
  uint64_t max_steps = kDefaultMaxSteps;
  /// Arenas with more blocks than this get at least `steps_per_block` steps
  /// per block: the block planner searches them in windows
  /// (blockplan/windows.h), whose work grows with the block count.
  size_t large_arena_blocks = kDefaultLargeArenaBlocks;
  uint64_t steps_per_block = kDefaultStepsPerBlock;
  uint64_t seed = 0;
  /// memory_id -> the most bytes the arena may take. A replan that cannot
  /// fit searches for a plan that does; if none is found, `limit_miss` says
  /// by how much the best one misses.
  std::map<uint32_t, uint64_t> arena_limits;

  /// The search stops earlier when it reaches the lower bound.
  static constexpr uint64_t kDefaultMaxSteps = kDefaultReplanMaxSteps;
  static constexpr size_t kDefaultLargeArenaBlocks = 2000;
  /// Residual chains need 2,700 to 14,700 steps a block in the windowed
  /// search (docs/design.md: 73 M at 5k blocks, 133 M at 50k); the search
  /// gives up (greedy stays) if the budget runs out, so leave room.
  static constexpr uint64_t kDefaultStepsPerBlock = 20000;
};

/// One arena of one method after replanning.
struct ArenaReplan {
  uint32_t memory_id = 0;
  /// False: the arena is left as it was (see why_not).
  bool replanned = false;
  std::string why_not;
  /// Not replanned for a reason the user should hear about (a group the
  /// front cannot hold), as opposed to there being nothing to plan.
  bool refused = false;
  /// The arena size the replan needs (the input size when not replanned).
  uint64_t size = 0;
  /// Largest total of blocks live at one instruction, front included (when
  /// not replanned: the groups' bound from lifetimes.h if the lifetimes
  /// have it, else 0; MakePlan's do not, it prints its own, LowerBounds).
  uint64_t lower_bound = 0;
  /// Set when arena_limits has this arena and no plan found fits it.
  std::optional<std::string> limit_miss;
};

struct MethodReplan {
  /// Indexed by memory_id - 1.
  std::vector<ArenaReplan> arenas;
  /// Moves as relocate lists them; `after` is the replanned placement in
  /// replanned arenas and the input placement elsewhere. arena_sizes_after
  /// holds each ArenaReplan::size.
  MethodPlan plan;
};

MethodReplan ReplanMethod(const MethodView& method, const MethodLifetimes& lifetimes,
                          const SharedBufferSet& shared, const std::vector<FrontRegion>& fronts,
                          const ReplanOptions& options);

}  // namespace pteshare
