// Greedy block placement: take the blocks in some order and put each one into
// a gap among the already-placed blocks that are live at the same time. One
// pass is O((n + overlaps) log n); the planner runs several orderings and
// keeps the best, then hands the result to the capacity search as its start.
#pragma once

#include <cstdint>
#include <vector>

#include "rewriter/block_interval_index.h"
#include "rewriter/block_step_budget.h"
#include "rewriter/blocks.h"

namespace pteshare {

/// The orders a greedy pass can take blocks in. Ties fall back to larger
/// size, then to the lower block index, so every order is deterministic.
enum class BlockOrder {
  kSizeDescending,       // biggest first (what ExecuTorch's greedy does)
  kAreaDescending,       // size x lifespan length
  kLengthDescending,     // longest-lived first
  kConflictsDescending,  // most other blocks live alongside first
  kBeginAscending,       // earliest first
  kPeakTotalDescending,  // blocks live at the busiest instants first
};
inline constexpr BlockOrder kAllBlockOrders[] = {
    BlockOrder::kSizeDescending,      BlockOrder::kAreaDescending, BlockOrder::kLengthDescending,
    BlockOrder::kConflictsDescending, BlockOrder::kBeginAscending, BlockOrder::kPeakTotalDescending,
};

/// Where in the gaps beside the live placed blocks a block goes.
enum class FitRule {
  kFirstFit,  // the lowest aligned gap that is large enough
  kBestFit,   // the tightest gap that is large enough (lowest on ties)
};

/// Indices of the free (not fixed) blocks of `problem` in `order`.
std::vector<uint32_t> OrderFreeBlocks(const BlockProblem& problem, BlockOrder order);

/// Reusable scratch for PlaceGreedily (the interval index over all blocks).
class GreedyPlacer {
 public:
  explicit GreedyPlacer(const BlockProblem& problem);

  /// Places the fixed blocks where they are, then `order`'s blocks one by one
  /// by `rule`. Never fails: a block that fits no gap goes on top. Spends one
  /// step per block plus one per live placed block it is compared with.
  BlockSolution Place(const std::vector<uint32_t>& order, FitRule rule, StepBudget* budget);

 private:
  const BlockProblem& problem_;
  PlacedBlockIndex index_;
  std::vector<uint32_t> hits_;
  struct Interval {
    Offset begin;
    Offset end;
  };
  std::vector<Interval> occupied_;
};

}  // namespace pteshare
