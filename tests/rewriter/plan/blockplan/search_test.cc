// CapacitySearch: with every preorder, shuffled or not, it finds a placement
// at the exact optimum and proves the capacity one byte below it infeasible;
// so does every other order (shuffled by any reach, one decision deviated);
// a search without steps says so; fixed blocks are searched around; a run cut
// short leaves nothing behind (the next run gives what a fresh search gives).
#include "rewriter/plan/blockplan/search.h"

#include <gtest/gtest.h>

#include <random>

#include "rewriter/plan/blockplan/validator.h"
#include "tests/rewriter/plan/blockplan/small_problems.h"

namespace pteshare {
namespace {

SearchOutcome RunWith(CapacitySearch& search, Bytes capacity, SearchPreorder preorder,
                      uint64_t shuffle, BlockSolution* solution) {
  StepBudget budget(UINT64_MAX, std::nullopt);
  return search.Run(capacity, preorder, shuffle, UINT64_MAX, &budget, solution);
}

TEST(CapacitySearch, MeetsTheOptimumAndProvesNothingSmallerFits) {
  std::mt19937 random(21);
  for (int instance = 0; instance < 60; ++instance) {
    BlockProblem problem = RandomSmallProblem(random, 3 + instance % 4);
    const Bytes optimum = ExhaustiveOptimum(problem);
    CapacitySearch search(problem);
    for (SearchPreorder preorder : kAllSearchPreorders) {
      for (uint64_t shuffle : {0u, 7u}) {
        BlockSolution solution;
        ASSERT_EQ(RunWith(search, optimum, preorder, shuffle, &solution), SearchOutcome::kFound)
            << "instance " << instance;
        EXPECT_LE(solution.height, optimum);
        Status valid = ValidateBlockSolution(problem, solution);
        EXPECT_TRUE(valid.ok()) << "instance " << instance << ": " << valid.error().message;
        EXPECT_EQ(RunWith(search, optimum - 1, preorder, shuffle, &solution),
                  SearchOutcome::kInfeasible)
            << "instance " << instance;
      }
    }
  }
}

TEST(CapacitySearch, EveryOrderIsCompleteAndReportsHowDeepItGot) {
  // Shuffles of any reach and a deviation at any depth change which
  // placements come first, never which exist: each still meets the optimum
  // and proves one byte less infeasible.
  std::mt19937 random(8);
  for (int instance = 0; instance < 40; ++instance) {
    BlockProblem problem = RandomSmallProblem(random, 4 + instance % 3);
    const Bytes optimum = ExhaustiveOptimum(problem);
    CapacitySearch search(problem);
    for (uint32_t variant = 0; variant < 6; ++variant) {
      SearchOrder order;
      order.preorder = kAllSearchPreorders[variant % 3];
      if (variant < 3) {
        order.shuffle_seed = 11 + variant;
        order.shuffle_permille = 10 + 300 * variant;
      } else {
        order.deviate_depth = variant - 3;
        order.deviate_pick = variant;
      }
      StepBudget budget(UINT64_MAX, std::nullopt);
      BlockSolution solution;
      ASSERT_EQ(search.Run(optimum, order, UINT64_MAX, &budget, &solution), SearchOutcome::kFound)
          << "instance " << instance << ", variant " << variant;
      EXPECT_LE(solution.height, optimum);
      // Independent parts are solved one after the other, so a run holds
      // at most all blocks at once.
      EXPECT_GT(search.deepest(), 0u);
      EXPECT_LE(search.deepest(), problem.blocks.size());
      EXPECT_EQ(search.Run(optimum - 1, order, UINT64_MAX, &budget, &solution),
                SearchOutcome::kInfeasible)
          << "instance " << instance << ", variant " << variant;
    }
  }
  // Blocks all live at instant 3 form one part: a run that fits them placed
  // them all at once; one that proves a capacity too small never did.
  BlockProblem together;
  together.blocks = {Free("a", 0, 4, 3), Free("b", 2, 6, 2), Free("c", 3, 5, 4), Free("d", 1, 4, 1),
                     Free("e", 0, 7, 2)};
  CapacitySearch search(together);
  StepBudget budget(UINT64_MAX, std::nullopt);
  BlockSolution solution;
  SearchOrder order;
  ASSERT_EQ(search.Run(12, order, UINT64_MAX, &budget, &solution), SearchOutcome::kFound);
  EXPECT_EQ(search.deepest(), 5u);
  ASSERT_EQ(search.Run(11, order, UINT64_MAX, &budget, &solution), SearchOutcome::kInfeasible);
  EXPECT_LT(search.deepest(), 5u);
}

TEST(CapacitySearch, AStepLimitEndsTheSearchAndIsCharged) {
  std::mt19937 random(2);
  BlockProblem problem = RandomSmallProblem(random, 30);
  CapacitySearch search(problem);
  StepBudget budget(UINT64_MAX, std::nullopt);
  BlockSolution solution;
  EXPECT_EQ(
      search.Run(UINT64_MAX / 4, SearchPreorder::kPeakTotalThenArea, 0, 1, &budget, &solution),
      SearchOutcome::kOutOfSteps);
  EXPECT_GT(budget.used(), 0u);
  // The budget ends it just the same.
  StepBudget empty(0, std::nullopt);
  EXPECT_EQ(search.Run(UINT64_MAX / 4, SearchPreorder::kPeakTotalThenArea, 0, UINT64_MAX, &empty,
                       &solution),
            SearchOutcome::kOutOfSteps);
}

TEST(CapacitySearch, FreeBlocksGoAroundAFixedBlockAligned) {
  BlockProblem problem;
  problem.alignment = 4;
  problem.blocks = {Block{"fixed", {0, 10}, 6, 5}, Free("a", 0, 10, 4), Free("b", 2, 8, 4)};
  CapacitySearch search(problem);
  BlockSolution solution;
  // Below the fixed block there are 5 bytes: room for one aligned block at 0;
  // the other goes at 12, the first multiple of 4 above it.
  ASSERT_EQ(RunWith(search, 16, SearchPreorder::kPeakTotalThenArea, 0, &solution),
            SearchOutcome::kFound);
  EXPECT_EQ(solution.offsets[0], 5u);
  EXPECT_EQ(solution.height, 16u);
  Status valid = ValidateBlockSolution(problem, solution);
  EXPECT_TRUE(valid.ok()) << valid.error().message;
  EXPECT_EQ(RunWith(search, 15, SearchPreorder::kPeakTotalThenArea, 0, &solution),
            SearchOutcome::kInfeasible);
}

TEST(CapacitySearch, ARunCutShortLeavesNothingBehind) {
  // Place and Unplace keep per-section lists of the unplaced blocks and
  // hints about their floors; a run that stops midway unwinds them. A
  // search used for a cut-short run first must give exactly what a fresh
  // one gives, with and without fixed blocks and alignment.
  std::mt19937 random(13);
  for (int instance = 0; instance < 100; ++instance) {
    BlockProblem problem = RandomSmallProblem(random, 16);
    if (instance % 2 == 1) {
      problem.alignment = 2;
      problem.blocks.push_back(Block{"fixed", {2, 6}, 3, 5});
    }
    BlockSolution probe;
    CapacitySearch fresh(problem);
    // A capacity the search needs some backtracking to settle.
    Bytes capacity = 0;
    for (const Block& block : problem.blocks) capacity += block.size;
    while (RunWith(fresh, capacity - 1, SearchPreorder::kPeakTotalThenArea, 0, &probe) ==
           SearchOutcome::kFound) {
      capacity = probe.height;
    }
    for (Bytes cap : {capacity, capacity - 1}) {
      BlockSolution expected;
      const SearchOutcome outcome =
          RunWith(fresh, cap, SearchPreorder::kLengthThenArea, 0, &expected);
      CapacitySearch reused(problem);
      for (uint64_t limit : {1, 50, 400}) {
        StepBudget budget(UINT64_MAX, std::nullopt);
        reused.Run(cap, SearchPreorder::kPeakTotalThenLength, 0, limit, &budget, &probe);
      }
      BlockSolution solution;
      ASSERT_EQ(RunWith(reused, cap, SearchPreorder::kLengthThenArea, 0, &solution), outcome)
          << "instance " << instance;
      if (outcome == SearchOutcome::kFound) {
        EXPECT_EQ(solution.offsets, expected.offsets) << "instance " << instance;
      }
    }
  }
}

}  // namespace
}  // namespace pteshare
