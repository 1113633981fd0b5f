// SearchInWindows: the capacity search for problems too large to search
// whole (thousands to tens of thousands of blocks).
//
// The whole-problem search (search.h) costs O(blocks) per node and
// recurses once per block, so past a few thousand blocks a single dive eats
// the budget. Here the free blocks are taken in the order they begin and cut
// into windows of a few hundred. Window by window, left to right, the
// window's blocks plus a look-ahead of the next ones are searched
// (probe.h) around what is already placed (the earlier windows' blocks
// still live, and the problem's fixed blocks, as fixed blocks of a small
// problem); the window's own blocks are kept, the look-ahead is searched
// again with the next window, which sees the same time sections.
//
// Every window is asked to fit under one running capacity. It starts at the
// lower bound and rises only when a window cannot meet it: then a greedy
// placement of the window gives an upper end, and a few bisection probes
// between the two find what the window needs. So the arena ends at what the
// hardest window needed, and windows after it keep to that.
//
// Work: each window gets an equal share of the steps left, so a window that
// is settled early leaves its steps to later ones. Once the budget is spent
// the remaining windows are placed greedily: a pass always ends with a full,
// valid placement. Everything is counted in steps, never time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rewriter/blockplan/problem.h"
#include "rewriter/blockplan/step_budget.h"

namespace pteshare {

struct WindowedSearchOptions {
  /// Blocks a window places for good.
  size_t window_blocks = 64;
  /// Blocks after the window searched with it (placed again by the next).
  size_t lookahead_blocks = 32;
  /// Seeds the shuffled runs of every probe.
  uint64_t seed = 0;
};

/// Places every block of `problem` (valid, see ValidateBlockProblem; its
/// capacity is ignored), aiming at `lower_bound` (BlockLowerBound of the
/// problem). Spends from `budget`; never fails.
BlockSolution SearchInWindows(const BlockProblem& problem, Bytes lower_bound,
                              const WindowedSearchOptions& options, StepBudget* budget);

}  // namespace pteshare
