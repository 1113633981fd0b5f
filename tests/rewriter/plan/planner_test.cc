// MakePlan (planner.h) at its own boundary, on hand-laid programs: the
// checks it makes before planning (options, input placements, offsets off
// the alignment around a front), the per-arena choice between relocate and
// replan (best never larger than either; a limit picks what fits, or says
// by how much none does), and the refusal of an --alignment that would
// lower a moved tensor's. Relocate's and replan's own layouts are
// relocate_test.cc's and replan_test.cc's; the commands' wording of the
// same errors is plan_command_test.cc's.
#include "rewriter/plan/planner.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/plan_options.h"
#include "tests/program_fixture.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using synth::FixedMethod;
using synth::FixedTensor;
using test_support::Contains;
using test_support::Load;
using test_support::ShareNames;
using test_support::TwoMethodsSharingKV;

std::string PlanError(const ProgramView& view, const ShareRequest& request,
                      const PlanOptions& options) {
  Result<PlanResult> plan = MakePlan(view, request, options);
  EXPECT_FALSE(plan.ok()) << "planned what should be refused";
  return plan.ok() ? "" : plan.error().message;
}

TEST(Planner, OptionsAreCheckedBeforeAnythingIsPlanned) {
  auto p = Load(TwoMethodsSharingKV());
  ASSERT_NE(p, nullptr);
  const ShareRequest kv = ShareNames({"k", "v"});
  EXPECT_EQ(PlanError(p->view, kv, WithStrategy(Strategy::kRelocate, 48)),
            "--alignment 48 is not a power of two");
  EXPECT_TRUE(Contains(PlanError(p->view, kv, WithStrategy(Strategy::kRelocate, kMaxAlignment * 2)),
                       "--alignment 2147483648 is more than 1073741824 (1 GiB)"));
  PlanOptions limit = WithStrategy(Strategy::kBest);
  limit.arena_limits[3] = 1024;
  EXPECT_EQ(PlanError(p->view, kv, limit),
            "--arena-limit 3=1024: no method has arena 3 (the most any has is 1)");
}

TEST(Planner, InputPlacementsOutsideTheirArenaAreRefusedNamingTheValue) {
  // decode's arena 1 is declared 96 bytes, but v ends at 128.
  std::vector<FixedMethod> methods = TwoMethodsSharingKV();
  methods[1].arena_sizes = {96};
  auto p = Load(methods);
  ASSERT_NE(p, nullptr);
  const std::string error =
      PlanError(p->view, ShareNames({"k", "v"}), WithStrategy(Strategy::kBest));
  EXPECT_EQ(error, "method decode, value 1 (v): offset 64 + 64 bytes > arena 1 size 96");
  EXPECT_EQ(CheckInputPlacements(p->view).error().message, error);
}

TEST(Planner, AnOffsetOffTheAlignmentIsRefusedOnlyWhereAFrontMovesItsArena) {
  // An 8-byte tensor at offset 8 (below the 16-byte floor) in arena 2,
  // which holds no shared buffer, and in arena 1, which does.
  std::vector<FixedMethod> aside = TwoMethodsSharingKV();
  aside[1].tensors.push_back({16, 2, 0});
  aside[1].tensors.push_back({8, 2, 8});
  auto untouched = Load(aside);
  ASSERT_NE(untouched, nullptr);
  EXPECT_TRUE(
      MakePlan(untouched->view, ShareNames({"k", "v"}), WithStrategy(Strategy::kRelocate)).ok());

  std::vector<FixedMethod> beside = TwoMethodsSharingKV();
  beside[1].tensors.push_back({8, 1, 168});
  auto moved = Load(beside);
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(PlanError(moved->view, ShareNames({"k", "v"}), WithStrategy(Strategy::kRelocate)),
            "method decode, value 3: offset 168 in arena 1 is not a multiple of 16, so the "
            "arena's tensors cannot be moved around a front region safely");
}

TEST(Planner, BestTakesPerArenaTheSmallerOfRelocateAndReplan) {
  auto p = Load(TwoMethodsSharingKV());
  ASSERT_NE(p, nullptr);
  PlanOptions best = WithStrategy(Strategy::kBest, 16);
  Result<PlanResult> plan = MakePlan(p->view, ShareNames({"k", "v"}), best);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  for (const MethodPlan& m : plan->plan.methods) {
    SCOPED_TRACE(m.name);
    ASSERT_EQ(m.arena_sizes_after.size(), m.arena_sizes_relocate.size());
    ASSERT_EQ(m.arena_sizes_after.size(), m.arena_sizes_replan.size());
    ASSERT_EQ(m.arena_sizes_after.size(), m.arena_strategies.size());
    for (size_t i = 0; i < m.arena_sizes_after.size(); ++i) {
      ASSERT_TRUE(m.arena_sizes_replan[i].has_value());
      const uint64_t relocate = m.arena_sizes_relocate[i], replan = *m.arena_sizes_replan[i];
      EXPECT_EQ(m.arena_sizes_after[i], std::min(relocate, replan)) << "arena " << i + 1;
      // At equal size best keeps relocate's layout.
      EXPECT_EQ(m.arena_strategies[i], replan < relocate ? Strategy::kReplan : Strategy::kRelocate);
    }
  }
  EXPECT_TRUE(plan->plan.limit_misses.empty());
}

TEST(Planner, AnArenaLimitTakesTheStrategyThatFitsOrSaysByHowMuchNoneDoes) {
  auto p = Load(TwoMethodsSharingKV());
  ASSERT_NE(p, nullptr);
  const ShareRequest kv = ShareNames({"k", "v"});
  Result<PlanResult> free = MakePlan(p->view, kv, WithStrategy(Strategy::kBest, 16));
  ASSERT_TRUE(free.ok()) << free.error().message;
  uint64_t largest = 0;
  for (const MethodPlan& m : free->plan.methods)
    largest = std::max(largest, m.arena_sizes_after[0]);

  // A limit the unconstrained plan meets changes nothing.
  PlanOptions met = WithStrategy(Strategy::kBest, 16);
  met.arena_limits[1] = largest;
  Result<PlanResult> fits = MakePlan(p->view, kv, met);
  ASSERT_TRUE(fits.ok()) << fits.error().message;
  EXPECT_TRUE(fits->plan.limit_misses.empty());

  // Below the front region (k and v: 128 bytes) nothing can fit: each
  // method's miss names the sizes both strategies reach and the shortfall.
  PlanOptions missed = WithStrategy(Strategy::kBest, 16);
  missed.arena_limits[1] = 100;
  Result<PlanResult> misses = MakePlan(p->view, kv, missed);
  ASSERT_TRUE(misses.ok()) << "a miss is a result (exit 1), not an input error";
  ASSERT_EQ(misses->plan.limit_misses.size(), 2u);
  for (size_t m = 0; m < 2; ++m) {
    const MethodPlan& method = free->plan.methods[m];
    const uint64_t relocate = method.arena_sizes_relocate[0];
    const uint64_t replan = *method.arena_sizes_replan[0];
    const uint64_t best = std::min(relocate, replan);
    // Why in the arena's words: the front region alone is over.
    EXPECT_EQ(misses->plan.limit_misses[m],
              "method " + method.name + ": arena 1 needs " + std::to_string(best) +
                  " bytes (relocate " + std::to_string(relocate) + ", replan " +
                  std::to_string(replan) + "), " + std::to_string(best - 100) +
                  " over its limit of 100: its front region (the shared buffers' slots) alone "
                  "takes 128 bytes");
  }
}

TEST(Planner, AnAlignmentBelowTheInputsIsRefusedWhereItWouldLowerAMovedTensors) {
  // Every offset a multiple of 64 (the input's alignment); one 16-byte
  // shared buffer. With --alignment 16 its front is 16 bytes, and relocate
  // moves prefill's tensor at 0 to 16: from 64-byte alignment to 16.
  const std::vector<FixedMethod> methods = {
      {"prefill", {{64, 1, 0}, {16, 1, 64, "k", true}, {64, 1, 128}}},
      {"decode", {{16, 1, 0, "k", true}, {64, 1, 64}}},
  };
  auto p = Load(methods);
  ASSERT_NE(p, nullptr);
  const std::string error =
      PlanError(p->view, ShareNames({"k"}), WithStrategy(Strategy::kRelocate, 16));
  EXPECT_TRUE(Contains(error,
                       "--alignment 16 is below the input's alignment (64) and would move "
                       "method prefill, value 0 from offset 0 to 16"))
      << error;
  EXPECT_TRUE(Contains(error, "give 64 or more")) << error;
  // The input's own alignment plans.
  EXPECT_TRUE(MakePlan(p->view, ShareNames({"k"}), WithStrategy(Strategy::kRelocate)).ok());
}

TEST(Planner, AStateArenaWithNothingToShareIsRefusedRatherThanReportedDone) {
  // No state at all: --share-auto finds nothing, which replanning alone
  // allows, but a state arena would hold nothing.
  auto p = Load({{"prefill", {{64, 1, 0}, {64, 1, 64}}}, {"decode", {{32, 1, 0}}}});
  ASSERT_NE(p, nullptr);
  ShareRequest automatic;
  automatic.share_auto = true;
  EXPECT_TRUE(MakePlan(p->view, automatic, WithStrategy(Strategy::kBest)).ok());
  PlanOptions arena = WithStrategy(Strategy::kBest);
  arena.layout = Layout::kArena;
  const std::string error = PlanError(p->view, automatic, arena);
  EXPECT_TRUE(Contains(error, "--layout arena: nothing to share")) << error;
  EXPECT_TRUE(Contains(error, "--layout front replans the arenas without sharing")) << error;
}

// Shared state on the CPU is still not shared by Module where a method has
// an arena off the CPU (Module refuses such methods): one warning, in both
// layouts.
TEST(Planner, ADeviceArenaAnywhereWarnsThatModuleWillNotShare) {
  std::vector<synth::FixedMethod> methods = test_support::TwoMethodsSharingKV();
  methods[1].tensors.push_back({32, 2, 0});
  methods[1].devices = {synth::ArenaDevice{2, synth::DeviceType::CUDA, 0}};
  auto p = test_support::Load(methods);
  ASSERT_TRUE(p);
  for (Layout layout : {Layout::kFront, Layout::kArena}) {
    SCOPED_TRACE(LayoutName(layout));
    PlanOptions options = WithStrategy(Strategy::kReplan, 16);
    options.layout = layout;
    options.own_loader = true;  // the state arena is arena 3, which Module does not share
    Result<PlanResult> made = MakePlan(p->view, test_support::ShareNames({"k", "v"}), options);
    ASSERT_TRUE(made.ok()) << made.error().message;
    const std::vector<std::string>& warnings = made->plan.warnings;
    EXPECT_EQ(std::count_if(warnings.begin(), warnings.end(),
                            [](const std::string& w) {
                              return w.starts_with("method decode has arena 2 on CUDA:0: ") &&
                                     w.find("refuses methods with arenas off the CPU") !=
                                         std::string::npos;
                            }),
              1);
  }
}

}  // namespace
}  // namespace pteshare
