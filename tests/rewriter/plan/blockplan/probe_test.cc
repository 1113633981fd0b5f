// ProbeCapacity and ResumableProbe: with or without the shuffled runs, and
// with rounds growing two- or four-fold, they meet the exact optimum and
// prove one byte less infeasible; a probe of the plain preorders only does
// not depend on the shuffle seed; a resumable probe settles the same way
// however its steps are sliced.
#include "rewriter/plan/blockplan/probe.h"

#include <gtest/gtest.h>

#include <random>
#include <utility>

#include "rewriter/plan/blockplan/lower_bound.h"
#include "rewriter/plan/blockplan/validator.h"
#include "tests/rewriter/plan/blockplan/small_problems.h"

namespace pteshare {
namespace {

ProbeSchedule Schedule(bool shuffled_runs, uint64_t seed = 3, uint64_t growth = 2) {
  ProbeSchedule schedule;
  schedule.first_run_steps = 64;
  schedule.shuffled_runs = shuffled_runs;
  schedule.growth = growth;
  schedule.shuffle_seed = seed;
  return schedule;
}

TEST(ProbeCapacity, MeetsTheOptimumAndProvesNothingSmallerFits) {
  std::mt19937 random(5);
  for (int instance = 0; instance < 40; ++instance) {
    BlockProblem problem = RandomSmallProblem(random, 3 + instance % 4);
    const Bytes optimum = ExhaustiveOptimum(problem);
    CapacitySearch search(problem);
    for (bool shuffled_runs : {false, true}) {
      StepBudget budget(UINT64_MAX, std::nullopt);
      BlockSolution found;
      ASSERT_EQ(
          ProbeCapacity(search, optimum, Schedule(shuffled_runs), UINT64_MAX, &budget, &found),
          SearchOutcome::kFound)
          << "instance " << instance;
      EXPECT_LE(found.height, optimum);
      Status valid = ValidateBlockSolution(problem, found);
      EXPECT_TRUE(valid.ok()) << "instance " << instance << ": " << valid.error().message;
      EXPECT_EQ(
          ProbeCapacity(search, optimum - 1, Schedule(shuffled_runs), UINT64_MAX, &budget, &found),
          SearchOutcome::kInfeasible)
          << "instance " << instance;
    }
  }
}

/// 60 blocks: large enough that a probe with a few thousand steps often
/// ends out of steps, so the rounds (and which runs they hold) matter.
BlockProblem MediumProblem() {
  std::mt19937 random(11);
  BlockProblem problem;
  for (int i = 0; i < 60; ++i) {
    TimeValue begin = random() % 40;
    problem.blocks.push_back(Free(Name(i), begin, begin + 1 + random() % 12, 1 + random() % 50));
  }
  return problem;
}

TEST(ProbeCapacity, PlainPreordersOnlyDoNotDependOnTheShuffleSeed) {
  BlockProblem problem = MediumProblem();
  CapacitySearch search(problem);
  // At the lower bound (proven infeasible at once) and above it, with too
  // few steps and with enough: every outcome shows up.
  const Bytes bound = BlockLowerBound(problem.blocks);
  for (uint64_t steps : {20'000ull, 60'000ull}) {
    for (Bytes capacity = bound - 2; capacity <= bound + bound / 2; capacity += bound / 20) {
      StepBudget first_budget(UINT64_MAX, std::nullopt);
      StepBudget second_budget(UINT64_MAX, std::nullopt);
      BlockSolution first, second;
      SearchOutcome a =
          ProbeCapacity(search, capacity, Schedule(false, 1), steps, &first_budget, &first);
      SearchOutcome b =
          ProbeCapacity(search, capacity, Schedule(false, 99), steps, &second_budget, &second);
      EXPECT_EQ(a, b) << "capacity " << capacity;
      EXPECT_EQ(first_budget.used(), second_budget.used()) << "capacity " << capacity;
      if (a == SearchOutcome::kFound && b == SearchOutcome::kFound) {
        EXPECT_EQ(first.offsets, second.offsets) << "capacity " << capacity;
      }
    }
  }
}

TEST(ResumableProbe, SlicingTheStepsDoesNotChangeHowItSettles) {
  BlockProblem problem = MediumProblem();
  CapacitySearch search(problem);
  for (auto [shuffled_runs, growth] : {std::pair{false, 2u}, {true, 2u}, {false, 4u}}) {
    const Bytes bound = BlockLowerBound(problem.blocks);
    for (Bytes capacity = bound - 2; capacity <= bound + bound / 2; capacity += bound / 10) {
      // One call with every step, against calls of 100 steps each.
      ResumableProbe whole(capacity, Schedule(shuffled_runs, 3, growth));
      StepBudget whole_budget(200'000, std::nullopt);
      BlockSolution whole_found;
      const SearchOutcome once = whole.Continue(search, 200'000, &whole_budget, &whole_found);

      ResumableProbe sliced(capacity, Schedule(shuffled_runs, 3, growth));
      StepBudget sliced_budget(200'000, std::nullopt);
      BlockSolution sliced_found;
      SearchOutcome step_by_step = SearchOutcome::kOutOfSteps;
      while (step_by_step == SearchOutcome::kOutOfSteps && !sliced_budget.exhausted() &&
             !sliced.stalled()) {
        step_by_step = sliced.Continue(search, 100, &sliced_budget, &sliced_found);
      }
      EXPECT_EQ(once, step_by_step) << "capacity " << capacity;
      if (once == SearchOutcome::kFound && step_by_step == SearchOutcome::kFound) {
        EXPECT_EQ(whole_found.offsets, sliced_found.offsets) << "capacity " << capacity;
        EXPECT_EQ(whole.spent(), sliced.spent()) << "capacity " << capacity;
      }
    }
  }
}

}  // namespace
}  // namespace pteshare
