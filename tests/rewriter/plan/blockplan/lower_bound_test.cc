// The lower bound: the most bytes live at one instant (and no fixed block can
// sink below its offset). Every planner result is measured against it.
#include "rewriter/plan/blockplan/lower_bound.h"

#include <gtest/gtest.h>

namespace pteshare {
namespace {

Block MakeBlock(TimeValue begin, TimeValue end, Bytes size) {
  return Block{"", {begin, end}, size, std::nullopt};
}

TEST(BlockLowerBound, EmptyProblemNeedsNothing) { EXPECT_EQ(BlockLowerBound({}), 0u); }

TEST(BlockLowerBound, BlocksLiveTogetherAddUp) {
  EXPECT_EQ(BlockLowerBound({MakeBlock(0, 10, 4), MakeBlock(5, 15, 6), MakeBlock(9, 12, 1)}), 11u);
}

TEST(BlockLowerBound, HalfOpenLifespansThatTouchDoNotAddUp) {
  // [0,3) ends exactly when [3,9) begins: never live together.
  EXPECT_EQ(BlockLowerBound({MakeBlock(0, 3, 4), MakeBlock(3, 9, 4)}), 4u);
}

TEST(BlockLowerBound, PaperToyIsTwelve) {
  // MiniMalloc's input.12.csv: b1..b5; at time 0..3, b1 + b3 + b5 = 12.
  EXPECT_EQ(BlockLowerBound({MakeBlock(0, 3, 4), MakeBlock(3, 9, 4), MakeBlock(0, 9, 4),
                             MakeBlock(9, 21, 4), MakeBlock(0, 21, 4)}),
            12u);
}

TEST(BlockLowerBound, EmptyLifespansAndZeroSizesAddNothingToTheSweep) {
  EXPECT_EQ(BlockLowerBound(
                {MakeBlock(5, 5, 3), MakeBlock(0, 10, 0), MakeBlock(0, 10, 7), MakeBlock(2, 4, 2)}),
            9u);
}

TEST(BlockLowerBound, ANeverLiveBlockStillNeedsRoomInTheArena) {
  EXPECT_EQ(BlockLowerBound({MakeBlock(5, 5, 100), MakeBlock(0, 10, 7)}), 100u);
}

TEST(BlockLowerBound, FixedBlocksCountLikeOthers) {
  Block front = MakeBlock(0, 100, 64);
  front.fixed_offset = 0;
  EXPECT_EQ(BlockLowerBound({front, MakeBlock(10, 20, 32)}), 96u);
}

TEST(BlockLowerBound, AFixedBlockHighUpRaisesTheBound) {
  // Alone it needs only 8 bytes live, but it sits at 1000.
  Block high = MakeBlock(0, 1, 8);
  high.fixed_offset = 1000;
  EXPECT_EQ(BlockLowerBound({high}), 1008u);
}

}  // namespace
}  // namespace pteshare
