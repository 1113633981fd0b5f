// SweepBlocks: the time sections are the maximal sets of blocks live at one
// instant, each free block is live in a contiguous, non-empty run of them,
// and the conflict and obstacle lists name exactly the blocks live alongside.
#include "rewriter/plan/blockplan/sections.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "tests/rewriter/plan/blockplan/small_problems.h"

namespace pteshare {
namespace {

TEST(SweepBlocks, BlocksEndToBeginAreInSeparateSections) {
  BlockProblem problem;
  problem.blocks = {Free("a", 0, 3, 4), Free("b", 3, 6, 4), Free("long", 0, 6, 2)};
  BlockSections sweep = SweepBlocks(problem);
  ASSERT_EQ(sweep.section_count(), 2u);
  EXPECT_EQ(sweep.members[0], (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(sweep.members[1], (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(sweep.section_begin, (std::vector<uint32_t>{0, 1, 0}));
  EXPECT_EQ(sweep.section_end, (std::vector<uint32_t>{1, 2, 2}));
  EXPECT_EQ(sweep.conflicts[0], (std::vector<uint32_t>{2}));
  EXPECT_EQ(sweep.conflicts[1], (std::vector<uint32_t>{2}));
}

TEST(SweepBlocks, FixedAndEmptyBlocksAreNotFreeButFixedOnesAreObstacles) {
  BlockProblem problem;
  problem.blocks = {Block{"front", {0, 10}, 16, 0}, Free("x", 2, 5, 8), Free("empty", 3, 3, 8),
                    Free("no bytes", 0, 10, 0)};
  BlockSections sweep = SweepBlocks(problem);
  EXPECT_EQ(sweep.free, (std::vector<uint32_t>{1}));
  ASSERT_EQ(sweep.obstacles.size(), 1u);
  ASSERT_EQ(sweep.obstacles[0].size(), 1u);
  EXPECT_EQ(sweep.obstacles[0][0].begin, 0u);
  EXPECT_EQ(sweep.obstacles[0][0].end, 16u);
  ASSERT_EQ(sweep.section_count(), 1u);
  ASSERT_EQ(sweep.fixed[0].size(), 1u);
}

TEST(SweepBlocks, SectionsAreTheMaximalLiveSetsOnRandomProblems) {
  std::mt19937 random(3);
  for (int instance = 0; instance < 300; ++instance) {
    BlockProblem problem = RandomSmallProblem(random, 1 + instance % 12);
    if (instance % 3 == 0) problem.blocks.push_back(Block{"fixed", {2, 6}, 5, 100});
    const std::vector<Block>& blocks = problem.blocks;
    BlockSections sweep = SweepBlocks(problem);
    const size_t n = sweep.free.size();
    ASSERT_EQ(sweep.section_begin.size(), n);
    // Each section is one instant's live set: its members share an instant.
    for (size_t s = 0; s < sweep.section_count(); ++s) {
      TimeValue latest_begin = 0, earliest_end = 1000;
      for (uint32_t b : sweep.members[s]) {
        latest_begin = std::max(latest_begin, blocks[sweep.free[b]].lifespan.begin);
        earliest_end = std::min(earliest_end, blocks[sweep.free[b]].lifespan.end);
      }
      EXPECT_LT(latest_begin, earliest_end) << "instance " << instance << ", section " << s;
    }
    for (uint32_t b = 0; b < n; ++b) {
      const Lifespan& span = blocks[sweep.free[b]].lifespan;
      ASSERT_LT(sweep.section_begin[b], sweep.section_end[b]) << "instance " << instance;
      // Membership is exactly the run [section_begin, section_end).
      for (uint32_t s = 0; s < sweep.section_count(); ++s) {
        const std::vector<uint32_t>& members = sweep.members[s];
        const bool member = std::find(members.begin(), members.end(), b) != members.end();
        EXPECT_EQ(member, sweep.section_begin[b] <= s && s < sweep.section_end[b])
            << "instance " << instance << ", block " << b << ", section " << s;
      }
      // Conflicts: every other free block live alongside, and only those;
      // and two blocks live together share a section (sections suffice).
      std::vector<uint32_t> expected;
      for (uint32_t c = 0; c < n; ++c) {
        if (c == b || !LifespansOverlap(span, blocks[sweep.free[c]].lifespan)) continue;
        expected.push_back(c);
        EXPECT_TRUE(sweep.section_begin[b] < sweep.section_end[c] &&
                    sweep.section_begin[c] < sweep.section_end[b])
            << "instance " << instance << ": blocks " << b << " and " << c;
      }
      std::vector<uint32_t> conflicts = sweep.conflicts[b];
      std::sort(conflicts.begin(), conflicts.end());
      EXPECT_EQ(conflicts, expected) << "instance " << instance << ", block " << b;
      const bool live_with_fixed = instance % 3 == 0 && LifespansOverlap(span, {2, 6});
      EXPECT_EQ(sweep.obstacles[b].size(), live_with_fixed ? 1u : 0u);
    }
  }
}

}  // namespace
}  // namespace pteshare
