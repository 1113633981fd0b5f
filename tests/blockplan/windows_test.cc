// SearchInWindows: on a chain of a few thousand short-lived blocks around a
// fixed front it gives a valid placement (ValidateBlockSolution) well below
// the greedy one, keeps the front, and gives up (nullopt) rather than
// return a half-searched placement when the budget runs out; through
// PlanBlocks, more steps never give a larger arena.
#include "rewriter/blockplan/windows.h"

#include <gtest/gtest.h>

#include "rewriter/blockplan/lower_bound.h"
#include "rewriter/blockplan/planner.h"
#include "rewriter/blockplan/validator.h"
#include "tests/blockplan/small_problems.h"

namespace pteshare {
namespace {

TEST(SearchInWindows, PlacesEveryBlockValidlyBelowTheGreedyArena) {
  BlockProblem problem = ChainOverAFront();
  const Bytes bound = BlockLowerBound(problem.blocks);
  StepBudget budget(UINT64_MAX, std::nullopt);
  std::optional<BlockSolution> placed =
      SearchInWindows(problem, bound, WindowedSearchOptions{}, &budget);
  ASSERT_TRUE(placed.has_value());
  Status valid = ValidateBlockSolution(problem, *placed);
  ASSERT_TRUE(valid.ok()) << valid.error().message;
  EXPECT_EQ(placed->offsets[0], 0u);
  BlockPlannerOptions greedy_only;
  greedy_only.max_steps = 0;
  Result<BlockPlan> greedy = PlanBlocks(problem, greedy_only);
  ASSERT_TRUE(greedy.ok());
  EXPECT_LT(placed->height, greedy->solution.height);
  EXPECT_GE(placed->height, bound);
  // Deterministic: the same problem, the same placement.
  StepBudget again_budget(UINT64_MAX, std::nullopt);
  std::optional<BlockSolution> again =
      SearchInWindows(problem, bound, WindowedSearchOptions{}, &again_budget);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(placed->offsets, again->offsets);
  EXPECT_EQ(budget.used(), again_budget.used());
}

TEST(SearchInWindows, GivesUpWhenTheBudgetRunsOut) {
  BlockProblem problem = ChainOverAFront();
  StepBudget budget(100'000, std::nullopt);
  EXPECT_FALSE(
      SearchInWindows(problem, BlockLowerBound(problem.blocks), WindowedSearchOptions{}, &budget)
          .has_value());
  EXPECT_TRUE(budget.exhausted());
}

TEST(SearchInWindows, MoreStepsNeverGiveALargerArena) {
  BlockProblem problem = ChainOverAFront();
  Bytes previous = UINT64_MAX;
  for (uint64_t steps : {0ull, 1'000'000ull, 10'000'000ull, 40'000'000ull, 200'000'000ull}) {
    BlockPlannerOptions options;
    options.max_steps = steps;
    Result<BlockPlan> plan = PlanBlocks(problem, options);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    Status valid = ValidateBlockSolution(problem, plan->solution);
    EXPECT_TRUE(valid.ok()) << valid.error().message;
    EXPECT_LE(plan->solution.height, previous) << steps << " steps";
    previous = plan->solution.height;
  }
}

}  // namespace
}  // namespace pteshare
