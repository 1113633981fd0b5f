// Greedy block placement: take the blocks in some order and put each one into
// a gap among the already-placed blocks that are live at the same time. The
// planner runs several orderings and keeps the best, then hands the result to
// the capacity search as its start.
//
// Cost: a short block looks at the short placed blocks live with it one by
// one (short_lived.h) and at the long-lived ones as merged ranges
// (long_lived.h), so a pass is O(n log n + short overlaps + ranges) rather
// than O(all overlaps):
// a thousand caches live throughout no longer cost a thousand per block.
#pragma once

#include <cstdint>
#include <vector>

#include "rewriter/plan/blockplan/interval_index.h"
#include "rewriter/plan/blockplan/long_lived.h"
#include "rewriter/plan/blockplan/problem.h"
#include "rewriter/plan/blockplan/short_lived.h"
#include "rewriter/plan/blockplan/step_budget.h"

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
  /// step per block plus one per placed block or merged range it looks at.
  BlockSolution Place(const std::vector<uint32_t>& order, FitRule rule, StepBudget* budget);

 private:
  bool IsLong(const Block& block) const;

  const BlockProblem& problem_;
  /// Lifespans at least this long are "long" (a 32nd of the time the
  /// problem spans); when none is, `long_index_` and `long_` stay empty.
  TimeValue long_length_ = 0;
  bool any_long_ = false;
  /// Placed short blocks, listed one by one for every query.
  ShortLivedOccupancy short_;
  /// Placed long blocks, listed only when strictly inside a (long) query:
  /// the others live with a query cover its first or last instant.
  PlacedBlockIndex long_index_;
  /// Placed long blocks as merged ranges, by the instants they cover.
  LongLivedOccupancy long_;
  std::vector<uint32_t> hits_;
  struct Interval {
    Offset begin;
    Offset end;
  };
  std::vector<Interval> occupied_;
};

}  // namespace pteshare
