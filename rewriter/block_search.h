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
//  - section inference: in every time section, the floor (highest placed top,
//    at least the current offset, and at least the lowest offset any unplaced
//    block there can take) plus the unplaced sizes live there must fit under
//    the capacity;
//  - decomposition: once no unplaced block spans the boundary between two
//    sections, the two sides are independent and are solved one after the
//    other, so a failure on one side never re-searches the other.
// The search is bounded by a step budget, so it answers kFound, kInfeasible
// (the whole tree was searched) or kOutOfSteps.
#pragma once

#include <cstdint>
#include <vector>

#include "rewriter/block_step_budget.h"
#include "rewriter/blocks.h"

namespace pteshare {

/// The static orders that break ties between blocks at the same offset
/// (MiniMalloc's "preordering"); different ones suit different instances.
enum class SearchPreorder {
  kPeakTotalThenArea,  // busiest section first, then area, then length
  kAreaThenPeakTotal,  // area, then busiest section, then length
  kLengthThenArea,     // longest-lived first, then area, then busiest section
};
inline constexpr SearchPreorder kAllSearchPreorders[] = {
    SearchPreorder::kPeakTotalThenArea,
    SearchPreorder::kAreaThenPeakTotal,
    SearchPreorder::kLengthThenArea,
};

enum class SearchOutcome { kFound, kInfeasible, kOutOfSteps };

class CapacitySearch {
 public:
  /// Precomputes sections and conflicts of `problem`, which must outlive this
  /// object and be valid (see ValidateBlockProblem).
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

 private:
  struct Candidate {
    Offset offset;
    uint32_t rank;  // position in the preorder
  };
  struct FixedSpan {
    Offset begin;
    Offset end;
  };

  /// Blocks (in preorder) and the time sections [section_begin, section_end)
  /// of an independent part of the problem.
  struct Partition {
    uint32_t section_begin;
    uint32_t section_end;
    std::vector<uint32_t> blocks;
  };

  SearchOutcome Search(const Partition& part, Offset last_offset, uint32_t last_rank);
  /// Solves the sub-partitions of `part` split at `cuts` one by one.
  SearchOutcome SearchSplit(const Partition& part, const std::vector<uint32_t>& cuts);
  /// The lowest aligned offset >= `from` where free block `b` avoids every
  /// fixed block it is live with.
  Offset LowestFreeOffset(uint32_t b, Offset from) const;
  bool SectionsFit(const Partition& part, Offset offset);
  /// Places b; appends to `cuts` each section boundary inside `part` that no
  /// unplaced block spans any more.
  void Place(uint32_t b, Offset offset, const Partition& part, std::vector<uint32_t>* cuts);
  void Unplace(uint32_t b, size_t undo_mark);

  const BlockProblem& problem_;
  Bytes alignment_;
  // Free blocks that occupy memory (local index b -> problem index).
  std::vector<uint32_t> free_;
  std::vector<Bytes> size_;
  std::vector<uint32_t> section_begin_, section_end_;  // [begin, end) per block
  std::vector<std::vector<uint32_t>> conflicts_;       // free blocks live alongside
  std::vector<std::vector<FixedSpan>> obstacles_;      // fixed blocks live alongside
  std::vector<std::vector<FixedSpan>> section_fixed_;  // fixed blocks per section
  std::vector<Bytes> initial_total_;                   // free bytes live per section
  std::vector<Bytes> peak_total_;                      // busiest section per block
  std::vector<std::vector<uint32_t>> section_blocks_;  // free blocks per section
  std::vector<uint32_t> initial_spans_;                // per boundary s|s+1: blocks spanning it

  // Search state.
  Bytes capacity_ = 0;
  uint64_t step_limit_ = 0;
  uint64_t work_ = 0;     // steps of work done in this Run
  uint64_t charged_ = 0;  // of which already taken from budget_
  StepBudget* budget_ = nullptr;
  std::vector<uint32_t> preorder_;  // rank -> block
  std::vector<uint32_t> rank_;      // block -> rank
  static constexpr Offset kUnplaced = ~Offset{0};
  std::vector<Offset> offset_;
  std::vector<Offset> found_;  // offset_ at the last leaf reached
  std::vector<Offset> min_offset_;
  std::vector<Offset> floor_;  // per section: highest top of a placed block
  std::vector<Bytes> total_;   // per section: unplaced bytes live there
  /// |spans_[s]| counts the unplaced blocks live in both section s and s + 1.
  std::vector<uint32_t> spans_;
  std::vector<uint32_t> stamp_;  // per section: last Place that visited it
  uint32_t stamp_now_ = 0;
  size_t placed_ = 0;
  /// Undo log: (index, old value); section floors are tagged with the high
  /// bit, min offsets are not.
  std::vector<std::pair<uint32_t, Offset>> undo_;
};

}  // namespace pteshare
