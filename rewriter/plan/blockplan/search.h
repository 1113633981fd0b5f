// CapacitySearch: does every free block fit under a given capacity?
//
// A depth-first search over canonical placements, after MiniMalloc (Moffitt,
// "MiniMalloc: A Lightweight Memory Allocator for Hardware-Accelerated
// Machine Learning", ASPLOS 2024). Blocks are placed in non-decreasing offset
// order, each at the lowest offset above the placed blocks it is live with
// (bumped past fixed blocks), so a solution is a sequence of choices "which
// block goes next". Pruning:
//  - canonical order: along a path offsets never decrease, and blocks at the
//    same offset go in preorder rank;
//  - dominance: no block goes at or above the top another unplaced block
//    would reach at its own lowest offset (that block could go first);
//  - section inference: in every time section (sections.h), the floor
//    (highest placed top, at least the current offset, and at least the
//    lowest offset any unplaced block there can take) plus the unplaced sizes
//    live there (with their alignment padding) must fit under the capacity;
//  - decomposition: once no unplaced block spans the boundary between two
//    sections, the two sides are independent and are solved one after the
//    other, each with its own preorder computed from what is left in it, so
//    a failure on one side never re-searches the other.
// The search is bounded by a step budget, so it answers kFound, kInfeasible
// (the whole tree was searched) or kOutOfSteps.
#pragma once

#include <cstdint>
#include <vector>

#include "rewriter/plan/blockplan/problem.h"
#include "rewriter/plan/blockplan/sections.h"
#include "rewriter/plan/blockplan/step_budget.h"

namespace pteshare {

/// The static orders that break ties between blocks at the same offset
/// (MiniMalloc's "preordering"); different ones suit different instances.
/// "Peak total" is the largest sum of unplaced sizes in a block's sections.
enum class SearchPreorder {
  kPeakTotalThenArea,    // MiniMalloc's "TAW"
  kLengthThenArea,       // "WAT": longest-lived first, then area, then peak
  kPeakTotalThenLength,  // "TWA"
};
inline constexpr SearchPreorder kAllSearchPreorders[] = {
    SearchPreorder::kPeakTotalThenArea,
    SearchPreorder::kLengthThenArea,
    SearchPreorder::kPeakTotalThenLength,
};

enum class SearchOutcome { kFound, kInfeasible, kOutOfSteps };

/// How one run orders its choices. Every order searches the whole tree
/// given the steps (kInfeasible is a proof whatever the order); orders
/// differ in which placements they reach first, and on hard instances the
/// steps to a placement under a tight capacity vary by orders of magnitude
/// between orders that differ only slightly.
struct SearchOrder {
  SearchPreorder preorder = SearchPreorder::kPeakTotalThenArea;
  /// Nonzero: the preorder is perturbed, each block moving by up to
  /// `shuffle_permille` thousandths of the block count, chosen by this seed.
  uint64_t shuffle_seed = 0;
  uint32_t shuffle_permille = 200;
  /// At the first node of this depth (blocks placed) that has more than one
  /// candidate, candidate 1 + deviate_pick % (count - 1) is tried first
  /// instead of the first: one early decision differs, the rest follow the
  /// preorder.
  static constexpr uint32_t kNoDeviation = ~0u;
  uint32_t deviate_depth = kNoDeviation;
  uint32_t deviate_pick = 0;
};

class CapacitySearch {
 public:
  /// Sweeps `problem`, which must outlive this object and be valid (see
  /// ValidateBlockProblem).
  explicit CapacitySearch(const BlockProblem& problem);

  /// Searches for a placement whose height is at most `capacity`, spending
  /// at most `step_limit` steps of `budget`. On kFound, `solution` holds the
  /// placement of every block (fixed ones at their offsets).
  ///
  /// A nonzero `shuffle` perturbs the preorder (each block moves by up to a
  /// fifth of the block count, chosen by that seed): restarts with shuffled
  /// preorders escape the long fruitless subtrees one fixed order gets stuck in.
  SearchOutcome Run(Bytes capacity, SearchPreorder preorder, uint64_t shuffle, uint64_t step_limit,
                    StepBudget* budget, BlockSolution* solution);
  /// The same with any order.
  SearchOutcome Run(Bytes capacity, const SearchOrder& order, uint64_t step_limit,
                    StepBudget* budget, BlockSolution* solution);

  /// The most blocks the last run had placed at once: how far it got, a
  /// hint of how close a run that ran out of steps came.
  size_t deepest() const { return deepest_; }

 private:
  struct Candidate {
    Offset offset;
    uint32_t rank;   // position in the partition's preorder
    uint32_t block;  // local free index
  };

  /// Blocks and the time sections [section_begin, section_end) of an
  /// independent part of the problem.
  struct Partition {
    uint32_t section_begin;
    uint32_t section_end;
    std::vector<uint32_t> blocks;
  };

  /// Ranks the unplaced blocks of `part` by the preorder, then searches it.
  SearchOutcome SolvePartition(Partition* part);
  SearchOutcome Search(const Partition& part, Offset last_offset, uint32_t last_rank);
  /// Solves the sub-partitions of `part` split at `cuts` one by one.
  SearchOutcome SearchSplit(const Partition& part, std::vector<uint32_t>* cuts);
  /// The lowest aligned offset >= `from` where free block `b` avoids every
  /// fixed block it is live with.
  Offset LowestFreeOffset(uint32_t b, Offset from) const;
  bool SectionsFit(const Partition& part, Offset offset) const;
  /// The lowest room above the unplaced bytes of any section of `part`
  /// (capacity - unplaced bytes), and that section.
  struct MonotoneBound {
    Offset offset;
    uint32_t section;
  };
  MonotoneBound MonotoneFloorBound(const Partition& part);
  /// True when placing b at `offset` (above bound.offset) leaves some
  /// section unable to fit its unplaced bytes above `offset`: the section
  /// check would fail after Place.
  bool FailsMonotoneFloor(const Partition& part, const MonotoneBound& bound, uint32_t b,
                          Offset offset);
  /// Places b; appends to `cuts` each section boundary inside `part` that no
  /// unplaced block spans any more.
  void Place(uint32_t b, Offset offset, const Partition& part, std::vector<uint32_t>* cuts);
  void Unplace(uint32_t b, size_t undo_mark);
  /// Takes the work done since the last charge from the budget; false when
  /// the step limit or the budget is exhausted.
  bool Charge();

  const BlockProblem& problem_;
  const Bytes alignment_;
  const BlockSections sweep_;
  std::vector<Bytes> size_;
  std::vector<Bytes> padded_size_;       // size rounded up to the alignment
  std::vector<Bytes> initial_total_;     // free bytes live per section
  std::vector<Bytes> initial_padded_;    // the same, each block padded
  std::vector<uint32_t> initial_spans_;  // per boundary s|s+1: blocks spanning it

  // Search state.
  Bytes capacity_ = 0;
  SearchOrder order_;
  bool deviation_pending_ = false;
  size_t deepest_ = 0;
  uint64_t step_limit_ = 0;
  uint64_t work_ = 0;     // steps of work done in this Run
  uint64_t charged_ = 0;  // of which already taken from budget_
  StepBudget* budget_ = nullptr;
  std::vector<uint32_t> rank_;  // block -> rank in its partition's preorder
  static constexpr Offset kUnplaced = ~Offset{0};
  std::vector<Offset> offset_;
  std::vector<Offset> found_;  // offset_ at the last leaf reached
  std::vector<Offset> min_offset_;
  std::vector<Offset> floor_;  // per section: highest top of a placed block
  std::vector<Bytes> total_;   // per section: unplaced bytes live there
  std::vector<Bytes> padded_;  // per section: the same, padded
  /// |spans_[s]| counts the unplaced blocks live in both section s and s + 1.
  std::vector<uint32_t> spans_;
  /// Per section, its unplaced blocks in no particular order; Slot(b, s)
  /// is b's position in unplaced_[s] (kept while b is placed, so Unplace
  /// puts it back there).
  std::vector<std::vector<uint32_t>> unplaced_;
  uint32_t* Slot(uint32_t b, uint32_t s) {
    return &slot_[slot_base_[b] + (s - sweep_.section_begin[b])];
  }
  std::vector<uint32_t> slot_base_;  // per block: its first entry in slot_
  std::vector<uint32_t> slot_;
  /// Per section, an unplaced block last seen at or below its floor (a
  /// hint, checked before use).
  static constexpr uint32_t kNoWitness = ~0u;
  std::vector<uint32_t> witness_;
  bool any_obstacles_ = false;                         // some free block is live with a fixed one
  std::vector<uint32_t> affected_;                     // sections whose floor may rise
  std::vector<std::pair<uint32_t, uint32_t>> raised_;  // their blocks' section ranges
  size_t depth_ = 0;                                   // blocks placed
  /// Candidate lists per depth, reused so a node allocates nothing.
  std::vector<std::vector<Candidate>> candidates_;
  /// Undo log: (index, old value); section floors are tagged with the high
  /// bit, min offsets are not.
  std::vector<std::pair<uint32_t, Offset>> undo_;
};

}  // namespace pteshare
