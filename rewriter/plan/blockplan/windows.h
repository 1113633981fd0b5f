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
// lower bound and rises only when a window cannot meet it. A window that
// misses it is searched again with the window before it freed too (the
// earlier placements are often what is in the way), then with two and
// three windows before freed; then under the capacity raised by a 512th of
// the lower bound, doubling, each alone and with the three windows before,
// while below the height a greedy placement of the window reaches; only
// when all of those miss does that greedy placement set the capacity. So
// the arena ends at what the hardest window needed, and windows after it
// keep to that.
//
// Work: every probe is one run of each plain preorder with a number of
// steps fixed by how many blocks it searches, and nothing reads the
// budget's size. The search either finishes within the budget or gives up
// (the planner keeps the greedy placement): a larger budget runs the same
// probes and finishes at least as often, so it never gives a larger arena.
// Everything is counted in steps, never time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "rewriter/plan/blockplan/problem.h"
#include "rewriter/plan/blockplan/step_budget.h"

namespace pteshare {

struct WindowedSearchOptions {
  /// Blocks a window places for good.
  size_t window_blocks = 64;
  /// Blocks after the window searched with it (placed again by the next).
  size_t lookahead_blocks = 32;
  /// Windows before a missed one that are freed and searched again with it.
  /// On residual chains one left 5k-50k blocks at +2.5% to +3.9% (a window
  /// met nothing but its greedy placement); three reach +0.4% to the lower
  /// bound; four met greedy at 20k (+7.3%).
  size_t backtrack_windows = 3;
  /// Steps of one probe of a window and its look-ahead (a third for each
  /// plain preorder); a probe of more or fewer blocks gets steps in
  /// proportion. Half a million leaves most windows unsolved.
  uint64_t probe_steps = 1'000'000;
};

/// Places every block of `problem` (valid, see ValidateBlockProblem; its
/// capacity is ignored), aiming at `lower_bound` (BlockLowerBound of the
/// problem). Spends from `budget`; nullopt when the budget ran out first.
std::optional<BlockSolution> SearchInWindows(const BlockProblem& problem, Bytes lower_bound,
                                             const WindowedSearchOptions& options,
                                             StepBudget* budget);

}  // namespace pteshare
