// ValidateBlockSolution: each rule of problem.h is caught, with the blocks
// named, and on random placements its sweep agrees with a pair-by-pair check.
#include "rewriter/plan/blockplan/validator.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "tests/rewriter/plan/blockplan/small_problems.h"

namespace pteshare {
namespace {

BlockProblem ThreeBlocks() {
  BlockProblem problem;
  problem.blocks = {Free("a", 0, 4, 8), Free("b", 2, 6, 8), Free("c", 4, 9, 8)};
  return problem;
}

std::string Message(const Status& status) { return status.ok() ? "" : status.error().message; }

TEST(ValidateBlockSolution, AcceptsAValidPlacement) {
  // a and c are never live together (half-open), so they may share bytes.
  EXPECT_EQ(Message(ValidateBlockSolution(ThreeBlocks(), {{0, 8, 0}, 16})), "");
}

TEST(ValidateBlockSolution, EveryBlockNeedsAnOffset) {
  EXPECT_EQ(Message(ValidateBlockSolution(ThreeBlocks(), {{0, 8}, 16})),
            "the solution places 2 of 3 blocks");
}

TEST(ValidateBlockSolution, BlocksLiveTogetherMustNotShareBytes) {
  EXPECT_EQ(Message(ValidateBlockSolution(ThreeBlocks(), {{0, 4, 8}, 16})),
            "block 'a' at [0, 8) and block 'b' at [4, 12) overlap while both are live");
  // An unnamed block is named by its index.
  BlockProblem unnamed = ThreeBlocks();
  unnamed.blocks[1].id.clear();
  EXPECT_EQ(Message(ValidateBlockSolution(unnamed, {{0, 8, 4}, 16})),
            "block #1 at [8, 16) and block 'c' at [4, 12) overlap while both are live");
}

TEST(ValidateBlockSolution, TheHeightIsWhatTheBlocksReach) {
  EXPECT_EQ(Message(ValidateBlockSolution(ThreeBlocks(), {{0, 8, 0}, 24})),
            "the solution's height is 24 but its blocks reach 16");
}

TEST(ValidateBlockSolution, TheArenaFitsTheCapacity) {
  BlockProblem problem = ThreeBlocks();
  problem.capacity = 15;
  EXPECT_EQ(Message(ValidateBlockSolution(problem, {{0, 8, 0}, 16})),
            "the arena of 16 bytes is over the capacity 15");
}

TEST(ValidateBlockSolution, FreeBlocksAreAlignedAndFixedOnesStay) {
  BlockProblem problem = ThreeBlocks();
  problem.alignment = 16;
  EXPECT_EQ(Message(ValidateBlockSolution(problem, {{0, 8, 0}, 16})),
            "block 'b' at 8 is not a multiple of the alignment 16");
  // A fixed block need not be aligned, but must be where it was put.
  problem.blocks[1].fixed_offset = 8;
  EXPECT_EQ(Message(ValidateBlockSolution(problem, {{0, 8, 0}, 16})), "");
  EXPECT_EQ(Message(ValidateBlockSolution(problem, {{0, 9, 32}, 40})),
            "fixed block 'b' is at 9 instead of 8");
}

TEST(ValidateBlockSolution, EmptyBlocksConflictWithNothing) {
  BlockProblem problem = ThreeBlocks();
  problem.blocks.push_back(Free("never live", 5, 5, 100));
  problem.blocks.push_back(Free("no bytes", 0, 9, 0));
  EXPECT_EQ(Message(ValidateBlockSolution(problem, {{0, 8, 0, 0, 3}, 100})), "");
}

/// Do two blocks of `problem` at these offsets share a byte while live?
bool AnyPairOverlaps(const BlockProblem& problem, const std::vector<Offset>& offsets) {
  for (size_t i = 0; i < problem.blocks.size(); ++i) {
    for (size_t j = i + 1; j < problem.blocks.size(); ++j) {
      const Block& a = problem.blocks[i];
      const Block& b = problem.blocks[j];
      if (a.size > 0 && b.size > 0 && LifespansOverlap(a.lifespan, b.lifespan) &&
          offsets[i] < offsets[j] + b.size && offsets[j] < offsets[i] + a.size) {
        return true;
      }
    }
  }
  return false;
}

TEST(ValidateBlockSolution, TheSweepAgreesWithEveryPairOnRandomPlacements) {
  std::mt19937 random(11);
  int valid = 0;
  for (int instance = 0; instance < 2000; ++instance) {
    BlockProblem problem = RandomSmallProblem(random, 2 + instance % 9);
    BlockSolution solution;
    for (const Block& block : problem.blocks) {
      solution.offsets.push_back(random() % 24);
      solution.height = std::max(solution.height, solution.offsets.back() + block.size);
    }
    const bool overlaps = AnyPairOverlaps(problem, solution.offsets);
    valid += !overlaps;
    EXPECT_EQ(ValidateBlockSolution(problem, solution).ok(), !overlaps) << "instance " << instance;
  }
  // Both outcomes were exercised.
  EXPECT_GT(valid, 100);
  EXPECT_LT(valid, 1900);
}

}  // namespace
}  // namespace pteshare
