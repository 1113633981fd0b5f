// The block planner: the smallest arena it can find for a BlockProblem.
//
// 1. Greedy passes: several block orders (size, area, lifespan length,
//    conflicts, begin time, busiest instant, plus a few seeded random ones),
//    each placing blocks first-fit and best-fit among the live placed blocks.
//    O(n log n + overlaps among short blocks) per pass (greedy.h).
// 2. Up to 2,000 blocks: a descent (descent.h) with a MiniMalloc-style
//    capacity search (search.h) asking "does it fit under C?": each target
//    a little below the best height found, tried by batches of short runs
//    of many search orders, the deepest ones run longer; a probe at the
//    lower bound gets a quarter of the steps. No decision reads the budget's
//    size, so more steps never give a larger arena.
//    From 500 blocks the windowed search (windows.h) runs first; past 2,000
//    it is the only search.
// The best placement found is returned; it never exceeds the greedy result.
//
// Determinism: effort is counted in steps (StepBudget), so a problem, options
// and seed always give the same plan. `time_limit_seconds`, when set, can only
// stop the search earlier, and is the one source of nondeterminism: callers
// that need byte-identical output (I8) leave it unset.
#pragma once

#include <cstdint>
#include <optional>

#include "rewriter/base/result.h"
#include "rewriter/plan/blockplan/problem.h"

namespace pteshare {

struct BlockPlannerOptions {
  /// Picks the random orders tried after the fixed ones.
  uint64_t seed = 0;
  /// Work allowed, in steps (~ one block looked at). The default finishes
  /// a few-hundred-block instance in at most ~4 s on one core (about 0.6 G
  /// steps a second); 0 keeps only the greedy passes (which always run).
  uint64_t max_steps = kDefaultMaxSteps;
  /// Optional wall-clock cap on the search (see "Determinism" above).
  std::optional<double> time_limit_seconds;

  static constexpr uint64_t kDefaultMaxSteps = 2'500'000'000;
};

/// A placement and how it was reached.
struct BlockPlan {
  BlockSolution solution;
  /// BlockLowerBound of the problem.
  Bytes lower_bound = 0;
  /// True when no smaller arena exists: the height reached the lower bound,
  /// or the search proved every smaller capacity infeasible.
  bool optimal = false;
  /// Steps spent (greedy passes included).
  uint64_t steps = 0;
  /// True when the time limit, not the step budget, ended the search.
  bool timed_out = false;
};

/// Checks the problem's own rules: alignment is a power of two, lifespans do
/// not end before they begin, sizes and offsets do not overflow, fixed blocks
/// do not overlap while live and fit the capacity. Messages name the blocks.
Status ValidateBlockProblem(const BlockProblem& problem);

/// Plans `problem`. Errors: an invalid problem (ValidateBlockProblem), or a
/// capacity no plan found fits, saying how many bytes the best plan misses by.
Result<BlockPlan> PlanBlocks(const BlockProblem& problem, const BlockPlannerOptions& options = {});

}  // namespace pteshare
