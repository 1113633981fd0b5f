// The block planner, in the paper's terms: every plan it returns is a valid
// placement (checked by ValidateBlockSolution, validator.h, which shares no
// code with the planner), it reaches the optimum where the optimum is known, keeps fixed
// blocks where they are, honours alignment and capacity, and gives the same
// plan for the same seed.
#include "rewriter/plan/blockplan/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

#include "rewriter/plan/blockplan/csv.h"
#include "rewriter/plan/blockplan/validator.h"
#include "tests/fuzz/block_plan_properties.h"
#include "tests/rewriter/plan/blockplan/small_problems.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

BlockPlan PlanOrDie(const BlockProblem& problem, BlockPlannerOptions options = {}) {
  Result<BlockPlan> plan = PlanBlocks(problem, options);
  EXPECT_TRUE(plan.ok()) << plan.error().message;
  if (!plan.ok()) return {};
  Status valid = ValidateBlockSolution(problem, plan->solution);
  EXPECT_TRUE(valid.ok()) << valid.error().message;
  return std::move(plan).value();
}

TEST(BlockPlanner, PaperToyFitsInTwelveBytes) {
  std::filesystem::path shared = test_support::SharedDir();
  if (shared.empty()) GTEST_SKIP() << "../shared is absent: input.12.csv not checked";
  Result<BlockProblem> problem = ReadBlockCsvFile(shared / "planner-suite" / "input.12.csv");
  ASSERT_TRUE(problem.ok()) << problem.error().message;
  BlockPlan plan = PlanOrDie(*problem);
  EXPECT_EQ(plan.lower_bound, 12u);
  EXPECT_EQ(plan.solution.height, 12u);
  EXPECT_TRUE(plan.optimal);
}

TEST(BlockPlanner, BlocksNeverLiveTogetherShareOffsetZero) {
  BlockProblem problem;
  problem.blocks = {Free("a", 0, 3, 10), Free("b", 3, 6, 20), Free("c", 6, 9, 5)};
  BlockPlan plan = PlanOrDie(problem);
  EXPECT_EQ(plan.solution.offsets, (std::vector<Offset>{0, 0, 0}));
  EXPECT_EQ(plan.solution.height, 20u);
}

TEST(BlockPlanner, EmptyBlocksNeedNoArenaButNeverLiveOnesDo) {
  BlockPlan none = PlanOrDie(BlockProblem{});
  EXPECT_EQ(none.solution.height, 0u);
  BlockProblem problem;
  problem.blocks = {Free("zero", 0, 9, 0)};
  EXPECT_EQ(PlanOrDie(problem).solution.height, 0u);
  // A block never live conflicts with nothing but must still lie in the arena.
  problem.blocks = {Free("never-live", 4, 4, 100), Free("live", 0, 9, 30)};
  EXPECT_EQ(PlanOrDie(problem).solution.height, 100u);
}

TEST(BlockPlanner, BeatsSizeOrderWhereTheOptimumIsKnown) {
  // Size-descending first-fit puts `big` at 0 and then needs 3 + 4 on top
  // of it somewhere; the optimum stacks the short blocks beside each other.
  BlockProblem problem;
  problem.blocks = {Free("big", 0, 10, 5), Free("left", 0, 4, 4), Free("right", 6, 10, 4),
                    Free("middle", 3, 7, 3)};
  BlockPlan plan = PlanOrDie(problem);
  EXPECT_EQ(plan.solution.height, ExhaustiveOptimum(problem));
}

TEST(BlockPlanner, MatchesExhaustiveSearchOnSmallRandomInstances) {
  std::mt19937 random(7);
  for (int instance = 0; instance < 60; ++instance) {
    BlockProblem problem = RandomSmallProblem(random, 3 + instance % 4);  // 3..6 blocks
    BlockPlan plan = PlanOrDie(problem);
    EXPECT_EQ(plan.solution.height, ExhaustiveOptimum(problem)) << "instance " << instance;
  }
}

TEST(BlockPlanner, FixedFrontRegionStaysAndOthersStayOffIt) {
  // A 64-byte front region every method reserves, live for the whole method.
  BlockProblem problem;
  problem.alignment = 16;
  Block front = Free("front", 0, 100, 64);
  front.fixed_offset = 0;
  problem.blocks = {front, Free("a", 0, 50, 32), Free("b", 40, 100, 32), Free("c", 60, 80, 16)};
  BlockPlan plan = PlanOrDie(problem);
  EXPECT_EQ(plan.solution.offsets[0], 0u);
  for (size_t i = 1; i < problem.blocks.size(); ++i) EXPECT_GE(plan.solution.offsets[i], 64u);
  EXPECT_EQ(plan.solution.height, 128u);
}

TEST(BlockPlanner, BlocksGoBelowAndAroundAFixedBlockInTheMiddle) {
  BlockProblem problem;
  Block middle = Free("middle", 0, 10, 10);
  middle.fixed_offset = 20;
  problem.blocks = {middle, Free("below", 0, 10, 20), Free("above", 0, 10, 5),
                    Free("later", 10, 20, 40)};
  BlockPlan plan = PlanOrDie(problem);
  EXPECT_EQ(plan.solution.height, 40u);  // 20 below, 10 fixed, 5 above; `later` fills 0..40
  EXPECT_EQ(plan.solution.offsets[0], 20u);
}

TEST(BlockPlanner, OffsetsKeepTheAlignment) {
  BlockProblem problem;
  problem.alignment = 16;
  for (int i = 0; i < 20; ++i) problem.blocks.push_back(Free(Name(i), i, i + 5, 7 + i));
  BlockPlannerOptions options;
  options.max_steps = 10'000'000;  // padding is not in the bound: optimality is not provable
  PlanOrDie(problem, options);     // the checker rejects unaligned offsets
}

TEST(BlockPlanner, ACapacityThatFitsIsMet) {
  BlockProblem problem;
  problem.blocks = {Free("a", 0, 4, 8), Free("b", 2, 6, 8), Free("c", 5, 9, 8)};
  problem.capacity = 16;
  EXPECT_LE(PlanOrDie(problem).solution.height, 16u);
}

TEST(BlockPlanner, ACapacityNoPlanMeetsSaysByHowMuch) {
  BlockProblem problem;
  problem.blocks = {Free("a", 0, 4, 8), Free("b", 2, 6, 8)};
  problem.capacity = 12;
  Result<BlockPlan> plan = PlanBlocks(problem);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message,
            "no plan fits the capacity of 12 bytes: 16 bytes are live at once, 4 bytes (33.3%) "
            "over; the best plan found needs 16 bytes");
}

// A share of the capacity says something only below 100%: a miss of
// 40,500% is said in bytes alone, and a fixed block past the capacity in
// grouped bytes.
TEST(BlockPlanner, AMissMoreThanTheCapacityIsSaidInBytesAlone) {
  BlockProblem problem;
  problem.blocks = {Free("a", 0, 4, 160'000), Free("b", 2, 6, 160'000)};
  problem.capacity = 768;
  Result<BlockPlan> plan = PlanBlocks(problem);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message,
            "no plan fits the capacity of 768 bytes: 320,000 bytes are live at once, 319,232 "
            "bytes over; the best plan found needs 320,000 bytes");
  problem.blocks = {Block{"front", Lifespan{0, 580}, 2'097'152, 0}};
  problem.capacity = 1'999'872;
  EXPECT_EQ(PlanBlocks(problem).error().message,
            "block 'front' [0, 580) is fixed at offset 0 with 2,097,152 bytes, so it ends at "
            "2,097,152, past the capacity of 1,999,872 bytes");
}

TEST(BlockPlanner, ACapacityAboveTheBoundButBelowAnyPlanIsProvenMissed) {
  // Three blocks pairwise live together, sizes 2, 2, 3: the clique bound is
  // 7 but only at no instant are more than two live... here all three are.
  // Make the bound loose instead: a [0,2) and c [1,3) never meet b [2,4)?
  BlockProblem problem;
  problem.blocks = {Free("x", 0, 2, 2), Free("y", 1, 3, 3), Free("z", 2, 4, 2), Free("w", 0, 4, 1)};
  const uint64_t optimum = ExhaustiveOptimum(problem);
  problem.capacity = optimum - 1;
  Result<BlockPlan> plan = PlanBlocks(problem);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("over"), std::string::npos) << plan.error().message;
}

TEST(BlockPlanner, InvalidProblemsAreErrorsNotCrashes) {
  BlockProblem problem;
  problem.alignment = 24;
  EXPECT_EQ(PlanBlocks(problem).error().message, "alignment 24 is not a power of two");
  problem.alignment = 1;
  Block f = Free("f", 0, 10, 8);
  f.fixed_offset = 0;
  Block g = Free("g", 5, 15, 8);
  g.fixed_offset = 4;
  problem.blocks = {f, g};
  EXPECT_EQ(PlanBlocks(problem).error().message,
            "fixed block 'f' [0, 10) at offset 0 and fixed block 'g' [5, 15) at offset 4 overlap "
            "while both are live");
  problem.blocks = {Free("backwards", 9, 3, 1)};
  EXPECT_EQ(PlanBlocks(problem).error().message, "block 'backwards' [9, 3) ends before it begins");
}

TEST(BlockPlanner, SameSeedSameStepsSamePlan) {
  std::mt19937 random(11);
  BlockProblem problem;
  for (int i = 0; i < 300; ++i) {
    TimeValue begin = random() % 500;
    problem.blocks.push_back(
        Free(std::to_string(i), begin, begin + 1 + random() % 60, 16 + random() % 5000));
  }
  BlockPlannerOptions options;
  options.seed = 3;
  options.max_steps = 5'000'000;
  BlockPlan first = PlanOrDie(problem, options);
  BlockPlan second = PlanOrDie(problem, options);
  EXPECT_EQ(first.solution.offsets, second.solution.offsets);
  EXPECT_EQ(first.steps, second.steps);
}

TEST(BlockPlanner, ManyBlocksGetAValidGreedyPlan) {
  std::mt19937 random(5);
  BlockProblem problem;
  problem.alignment = 16;
  for (int i = 0; i < 2000; ++i) {
    TimeValue begin = random() % 4000;
    problem.blocks.push_back(
        Free(std::to_string(i), begin, begin + 1 + random() % 40, 1 + random() % 100000));
  }
  BlockPlannerOptions options;
  options.max_steps = 0;
  BlockPlan plan = PlanOrDie(problem, options);
  EXPECT_GE(plan.solution.height, plan.lower_bound);
}

TEST(BlockPlanner, AlignedBlocksAroundAFixedOneGetValidSearchedPlans) {
  // The section check counts alignment padding; a wrong count would reject
  // plans that fit (worse heights) or accept ones that don't (checker fails).
  std::mt19937 random(13);
  for (int instance = 0; instance < 20; ++instance) {
    BlockProblem problem;
    problem.alignment = 16;
    Block front = Free("front", 0, 30, 40);
    front.fixed_offset = 8 * (instance % 3);
    problem.blocks.push_back(front);
    for (int i = 0; i < 12; ++i) {
      TimeValue begin = random() % 30;
      problem.blocks.push_back(Free(Name(i), begin, begin + 1 + random() % 10, 1 + random() % 40));
    }
    BlockPlannerOptions options;
    options.max_steps = 2'000'000;
    BlockPlan plan = PlanOrDie(problem, options);
    EXPECT_GE(plan.solution.height, plan.lower_bound) << "instance " << instance;
  }
}

TEST(BlockPlanner, SuiteInstanceCIsSolvedAtItsLowerBound) {
  // The probe at the lower bound (tight capacities prune hardest) settles C
  // in well under a million steps; MiniMalloc asked for 1048576 gets +0.8%.
  std::filesystem::path shared = test_support::SharedDir();
  if (shared.empty()) GTEST_SKIP() << "../shared is absent: planner suite not checked";
  Result<BlockProblem> problem = ReadBlockCsvFile(shared / "planner-suite" / "C.1048576.csv");
  ASSERT_TRUE(problem.ok()) << problem.error().message;
  BlockPlannerOptions options;
  options.max_steps = 50'000'000;
  BlockPlan plan = PlanOrDie(*problem, options);
  EXPECT_EQ(plan.solution.height, plan.lower_bound);
  EXPECT_TRUE(plan.optimal);
}

TEST(BlockPlanner, EverySuiteInstanceGetsAValidPlanNoWorseThanGreedy) {
  std::filesystem::path shared = test_support::SharedDir();
  if (shared.empty()) GTEST_SKIP() << "../shared is absent: planner suite not checked";
  for (char name = 'A'; name <= 'K'; ++name) {
    auto path = shared / "planner-suite" / (std::string(1, name) + ".1048576.csv");
    Result<BlockProblem> problem = ReadBlockCsvFile(path);
    ASSERT_TRUE(problem.ok()) << problem.error().message;
    BlockPlannerOptions greedy_only;
    greedy_only.max_steps = 0;
    BlockPlan greedy = PlanOrDie(*problem, greedy_only);
    BlockPlannerOptions searched;
    searched.max_steps = 20'000'000;  // enough to improve; the bench measures quality
    BlockPlan plan = PlanOrDie(*problem, searched);
    EXPECT_GE(plan.solution.height, plan.lower_bound) << path;
    EXPECT_LE(plan.solution.height, greedy.solution.height) << path;
  }
}

TEST(BlockPlanner, MoreStepsNeverGiveALargerArena) {
  // The search is an anytime schedule: a larger budget runs the same probes
  // first, so the best height can only fall as steps grow.
  std::mt19937 random(17);
  BlockProblem problem;
  for (int i = 0; i < 200; ++i) {
    TimeValue begin = random() % 300;
    problem.blocks.push_back(
        Free(std::to_string(i), begin, begin + 1 + random() % 40, 1 + random() % 1000));
  }
  Bytes previous = UINT64_MAX;
  for (uint64_t steps : {0ull, 1'000'000ull, 4'000'000ull, 16'000'000ull, 48'000'000ull}) {
    BlockPlannerOptions options;
    options.max_steps = steps;
    BlockPlan plan = PlanOrDie(problem, options);
    EXPECT_LE(plan.solution.height, previous) << steps << " steps";
    previous = plan.solution.height;
  }
}

TEST(BlockPlanner, LargeProblemsAreSearchedInWindowsAndStayValid) {
  // Past a few thousand blocks the planner searches windows of blocks in
  // begin order around what is already placed: the plan must stay valid
  // (checked pair by pair), keep the fixed front, and never lose to greedy.
  BlockProblem problem = ChainOverAFront();
  BlockPlannerOptions greedy_only;
  greedy_only.max_steps = 0;
  BlockPlan greedy = PlanOrDie(problem, greedy_only);
  BlockPlannerOptions searched;
  searched.max_steps = 20'000'000;
  BlockPlan plan = PlanOrDie(problem, searched);
  EXPECT_EQ(plan.solution.offsets[0], 0u);
  EXPECT_LE(plan.solution.height, greedy.solution.height);
  EXPECT_GE(plan.solution.height, plan.lower_bound);
  BlockPlan again = PlanOrDie(problem, searched);
  EXPECT_EQ(plan.solution.offsets, again.solution.offsets);
}

TEST(BlockPlanner, ManyCachesLiveThroughoutAreStackedOnce) {
  // Blocks live throughout (KV caches with nothing shared) overlap every
  // other block; the greedy placer sees them as merged ranges. The plan is
  // still exact where the answer is plain: caches stacked, activations above.
  BlockProblem problem;
  problem.alignment = 16;
  for (int i = 0; i < 64; ++i) problem.blocks.push_back(Free(Name(i), 0, 1000, 256));
  std::mt19937 random(29);
  for (int i = 0; i < 900; ++i) {
    TimeValue begin = i + 1;
    problem.blocks.push_back(
        Free("a" + std::to_string(i), begin, begin + 2, 16 * (1 + random() % 8)));
  }
  BlockPlannerOptions options;
  options.max_steps = 0;
  BlockPlan plan = PlanOrDie(problem, options);
  EXPECT_GE(plan.solution.height, 64u * 256u);
  EXPECT_LE(plan.solution.height, plan.lower_bound + 128u);
}

TEST(BlockPlanner, ACapacityTheSearchCannotSettleEndsWhenTheStepsDo) {
  // D's lower bound is not met by any plan found, nor proven impossible in
  // a few million steps: the probe at the capacity must stop with the
  // budget and report the miss (it once looped forever once it had spent
  // its first share).
  std::filesystem::path shared = test_support::SharedDir();
  if (shared.empty()) GTEST_SKIP() << "../shared is absent: planner suite not checked";
  Result<BlockProblem> problem = ReadBlockCsvFile(shared / "planner-suite" / "D.1048576.csv");
  ASSERT_TRUE(problem.ok()) << problem.error().message;
  problem->capacity = 986112;  // its lower bound
  BlockPlannerOptions options;
  options.max_steps = 150'000'000;
  Result<BlockPlan> plan = PlanBlocks(*problem, options);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("no plan fits the capacity of 986,112 bytes"),
            std::string::npos)
      << plan.error().message;
}

// fuzz_plan's block properties (tests/fuzz/block_plan_properties.h) hold on
// random bytes: valid placements at or above the lower bound, or an error.
TEST(BlockPlanner, TheFuzzPropertiesHoldOnRandomBytes) {
  std::mt19937 random(17);
  for (int input = 0; input < 500; ++input) {
    std::vector<uint8_t> bytes(1 + random() % 200);
    for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(random());
    try {
      fuzz::CheckBlockPlan(bytes);
    } catch (const fuzz::PropertyViolation& violation) {
      ADD_FAILURE() << "input " << input << ": " << violation.what;
    }
  }
}

}  // namespace
}  // namespace pteshare
