// The greedy passes: first fit takes the lowest gap, best fit the tightest,
// fixed blocks stay, every order lists each free block once (long-lived ones
// first), and every pass gives a valid placement.
#include "rewriter/plan/blockplan/greedy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "rewriter/plan/blockplan/lower_bound.h"
#include "rewriter/plan/blockplan/validator.h"
#include "tests/rewriter/plan/blockplan/small_problems.h"

namespace pteshare {
namespace {

/// Three fixed blocks live throughout leave a 6-byte gap at 4, a 2-byte gap
/// at 14, and room from 20 up; block 3 needs 2 bytes.
BlockProblem TwoGaps() {
  BlockProblem problem;
  problem.blocks = {Block{"f1", {0, 10}, 4, 0}, Block{"f2", {0, 10}, 4, 10},
                    Block{"f3", {0, 10}, 4, 16}, Free("x", 0, 10, 2)};
  return problem;
}

TEST(GreedyPlacer, FirstFitTakesTheLowestGapBestFitTheTightest) {
  BlockProblem problem = TwoGaps();
  GreedyPlacer greedy(problem);
  StepBudget budget(1000, std::nullopt);
  BlockSolution first = greedy.Place({3}, FitRule::kFirstFit, &budget);
  BlockSolution best = greedy.Place({3}, FitRule::kBestFit, &budget);
  EXPECT_EQ(first.offsets, (std::vector<Offset>{0, 10, 16, 4}));
  EXPECT_EQ(best.offsets, (std::vector<Offset>{0, 10, 16, 14}));
  EXPECT_EQ(first.height, 20u);
  EXPECT_EQ(best.height, 20u);
  EXPECT_GT(budget.used(), 0u);
}

TEST(GreedyPlacer, ABlockThatFitsNoGapGoesOnTopAligned) {
  BlockProblem problem = TwoGaps();
  problem.blocks[3].size = 7;
  problem.alignment = 8;
  GreedyPlacer greedy(problem);
  StepBudget budget(1000, std::nullopt);
  // The gap at 4 is 6 bytes, and aligned it starts at 8 (2 bytes): too small.
  BlockSolution solution = greedy.Place({3}, FitRule::kFirstFit, &budget);
  EXPECT_EQ(solution.offsets[3], 24u);
  EXPECT_EQ(solution.height, 31u);
}

// fuzz_plan's find: an empty block fixed high up (size 0 at 768) reaches
// nothing, so it must not raise the arena the validator judges.
TEST(GreedyPlacer, AnEmptyFixedBlockReachesNothing) {
  BlockProblem problem;
  problem.blocks = {Block{"empty", {0, 0}, 0, 768}, Block{"zero", {0, 5}, 0, 512},
                    Free("x", 0, 5, 16)};
  GreedyPlacer greedy(problem);
  StepBudget budget(1000, std::nullopt);
  BlockSolution solution = greedy.Place({2}, FitRule::kFirstFit, &budget);
  EXPECT_EQ(solution.height, 16u);
  EXPECT_TRUE(ValidateBlockSolution(problem, solution).ok());
  EXPECT_EQ(BlockLowerBound(problem.blocks), 16u);  // nor the bound below it
}

TEST(OrderFreeBlocks, ListsEveryFreeBlockOnceLongLivedFirst) {
  BlockProblem problem;
  problem.blocks = {Free("small", 0, 2, 1), Block{"fixed", {0, 10}, 4, 0}, Free("big", 3, 5, 9),
                    Free("cache", 0, 10, 2), Free("late", 8, 10, 5)};
  EXPECT_EQ(OrderFreeBlocks(problem, BlockOrder::kSizeDescending),
            (std::vector<uint32_t>{3, 2, 4, 0}));
  EXPECT_EQ(OrderFreeBlocks(problem, BlockOrder::kBeginAscending),
            (std::vector<uint32_t>{3, 0, 2, 4}));
  for (BlockOrder order : kAllBlockOrders) {
    std::vector<uint32_t> blocks = OrderFreeBlocks(problem, order);
    ASSERT_EQ(blocks.size(), 4u);
    EXPECT_EQ(blocks.front(), 3u);  // live over at least half of the time
    std::sort(blocks.begin(), blocks.end());
    EXPECT_EQ(blocks, (std::vector<uint32_t>{0, 2, 3, 4}));
  }
}

TEST(GreedyPlacer, EveryOrderAndRuleGivesAValidPlacement) {
  std::mt19937 random(9);
  for (int instance = 0; instance < 200; ++instance) {
    BlockProblem problem = RandomSmallProblem(random, 1 + instance % 40);
    problem.alignment = Bytes{1} << (instance % 4);
    if (instance % 2 == 0) problem.blocks.push_back(Block{"front", {0, 20}, 3, 0});
    GreedyPlacer greedy(problem);
    StepBudget budget(UINT64_MAX, std::nullopt);
    for (BlockOrder order : kAllBlockOrders) {
      for (FitRule rule : {FitRule::kFirstFit, FitRule::kBestFit}) {
        BlockSolution solution = greedy.Place(OrderFreeBlocks(problem, order), rule, &budget);
        Status valid = ValidateBlockSolution(problem, solution);
        ASSERT_TRUE(valid.ok()) << "instance " << instance << ": " << valid.error().message;
      }
    }
  }
}

}  // namespace
}  // namespace pteshare
