// SearchDescending: the whole-problem search as an anytime descent from the
// best placement found.
//
// On MiniMalloc's hard instances (D, J) the steps a run of the capacity
// search needs to place everything under a tight capacity vary by orders of
// magnitude between runs that differ only slightly: another preorder, the
// preorder shuffled by 1% of the block count, one early decision taken
// differently, or the capacity one KiB lower (D at 1010 KiB: a fifth of such
// runs succeed within 4 M steps; at 1009 or 1017 KiB almost none do). One
// long run per capacity (the bisection this replaces) waits on whichever
// order it was given. Here every probe is a batch of short runs of many
// orders ("variants"), and the budget goes to the ones that look closest:
//
// - Target: the best height found minus a step that follows the ruler
//   sequence 1, 2, 1, 4, 1, 2, 1, 8... granules (a 1024th of the lower
//   bound), the first an eighth of the gap to the bound: mostly the easiest
//   improvement, now and then a jump (a run that cannot reach one height may
//   reach a lower one).
// - Batch: 32 variants, each run for 500 k steps; the quarter that placed
//   the most blocks before giving up run again four times as long, and so on
//   (successive halving: how deep a run got predicts whether a longer one
//   succeeds; on D at 1007 KiB the 10 deepest of 200 short runs went on to
//   succeed 7 times in 10, 10 others twice). The first success ends the
//   batch: the next aims below it.
// - Variants: the three plain preorders first, then each a preorder with
//   either a shuffle of 1% of the block count or one deviation in the first
//   60 decisions. The last eight variants that succeeded start every batch
//   (a variant that placed everything under one target often does under
//   the next: over seeds 0-5 with 2.5 G steps, keeping eight against four
//   gave D +3.69% against +3.90% on average, J +3.42% against +3.47%).
// - A resumable probe at the lower bound (or at the problem's capacity while
//   no plan meets it) gets a quarter of the descent's steps: instances whose
//   bound is reachable (E) reach it there.
//
// Every run searches the whole tree given its steps, so a run that ends
// kInfeasible proves its target unreachable and raises `proven_low`.
// Nothing reads the budget's size: more steps run the same runs first, so
// they never give a larger arena. Everything is counted in steps.
#pragma once

#include <cstdint>

#include "rewriter/plan/blockplan/problem.h"
#include "rewriter/plan/blockplan/search.h"
#include "rewriter/plan/blockplan/step_budget.h"

namespace pteshare {

struct DescentOptions {
  /// Picks the variants after the plain preorders.
  uint64_t seed = 0;
  /// Variants per batch, and the steps of each one's first run.
  uint32_t batch_variants = 32;
  uint64_t first_run_steps = 1'000'000;
  /// After each round the deepest 1/keep_divisor go on, runs growing by
  /// run_growth.
  uint32_t keep_divisor = 4;
  uint64_t run_growth = 4;
  /// Successful variants that start every batch.
  uint32_t elite_variants = 8;
  /// Deviations are drawn among the first this many decisions.
  uint32_t deviation_depths = 60;
  /// Shuffled variants move each block by up to this many thousandths of
  /// the block count.
  uint32_t shuffle_permille = 10;
  /// The probe at the lower bound gets this share (percent) of the steps
  /// the descent has had.
  uint32_t bound_probe_percent = 25;
};

/// Lowers `best` (a valid placement of `problem`, the one `search` was made
/// for) while the budget lasts; never raises its height. `lower_bound` is
/// BlockLowerBound of the problem. Heights below `*proven_low` are known not
/// to fit; a run that proves a target infeasible raises it.
void SearchDescending(CapacitySearch& search, const BlockProblem& problem, Bytes lower_bound,
                      const DescentOptions& options, StepBudget* budget, BlockSolution* best,
                      Bytes* proven_low);

}  // namespace pteshare
