// CompareLayouts (layout_costs.h): both layouts, front first, each with its
// memory when it gives a verified plan; the chosen plan taken as it is
// (neither planned nor verified again); and why a layout has no cost: an
// input error, a violation, a missed --arena-limit, each with its words.
#include "rewriter/verify/layout_costs.h"

#include <gtest/gtest.h>

#include "tests/plan_options.h"
#include "tests/program_fixture.h"

namespace pteshare {
namespace {

using test_support::Load;
using test_support::ShareNames;

PlanOptions Options(Layout layout) {
  PlanOptions options = WithStrategy(Strategy::kRelocate, 16);
  options.layout = layout;
  return options;
}

bool SameCost(const MemoryCost& a, const MemoryCost& b) {
  auto same = [](const ArenaCost& x, const ArenaCost& y) {
    return x.memory_id == y.memory_id && x.one_set_before == y.one_set_before &&
           x.one_set_after == y.one_set_after && x.separate_before == y.separate_before &&
           x.separate_after == y.separate_after;
  };
  if (a.arenas.size() != b.arenas.size() || !same(a.total, b.total)) return false;
  for (size_t i = 0; i < a.arenas.size(); ++i) {
    if (!same(a.arenas[i], b.arenas[i])) return false;
  }
  return true;
}

TEST(LayoutCosts, BothLayoutsAreCostedFrontFirstWhicheverWasChosen) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  const ShareRequest request = ShareNames({"k", "v"});
  for (Layout chosen_layout : {Layout::kFront, Layout::kArena}) {
    SCOPED_TRACE(LayoutName(chosen_layout));
    const PlanResult chosen = test_support::PlanVerified(p->view, request, Options(chosen_layout));
    const std::vector<LayoutCost> costs =
        CompareLayouts(p->view, request, Options(chosen_layout), chosen, {});
    ASSERT_EQ(costs.size(), 2u);
    EXPECT_EQ(costs[0].layout, Layout::kFront);
    EXPECT_EQ(costs[1].layout, Layout::kArena);
    for (const LayoutCost& c : costs) {
      ASSERT_TRUE(c.memory.has_value()) << LayoutName(c.layout) << ": " << c.refused;
      EXPECT_TRUE(c.refused.empty());
    }
    const size_t mine = chosen_layout == Layout::kFront ? 0 : 1;
    EXPECT_TRUE(SameCost(*costs[mine].memory, ComputeMemoryCost(chosen.plan)));
    // front: arena 1 only, no state arena; arena: k and v in arena 2 (128
    // bytes, in each method), arena 1 compacted.
    EXPECT_EQ(costs[0].memory->arenas.size(), 1u);
    EXPECT_TRUE(costs[0].state_arenas.empty());
    ASSERT_EQ(costs[1].state_arenas.size(), 1u);
    EXPECT_EQ(costs[1].state_arenas[0].memory_id, 2u);
    ASSERT_EQ(costs[1].memory->arenas.size(), 2u);
    EXPECT_EQ(costs[1].memory->arenas[1].one_set_after, 128u);
    EXPECT_EQ(costs[1].memory->arenas[1].separate_after, 256u);
  }
}

// The chosen plan's violations are taken as given: they refuse its layout
// naming the first invariant, and the other layout is still costed.
TEST(LayoutCosts, TheChosenPlansViolationsRefuseItsLayoutOnly) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  const ShareRequest request = ShareNames({"k", "v"});
  const PlanResult chosen = test_support::PlanVerified(p->view, request, Options(Layout::kFront));
  const std::vector<PlanViolation> said = {
      {Invariant::kOverlapsKept, "method prefill, value 3 and value 0 now overlap"},
      {Invariant::kNoGrowth, "a second one"}};
  const std::vector<LayoutCost> costs =
      CompareLayouts(p->view, request, Options(Layout::kFront), chosen, said);
  ASSERT_EQ(costs.size(), 2u);
  EXPECT_FALSE(costs[0].memory.has_value());
  EXPECT_EQ(costs[0].refused, "plan violates I3: method prefill, value 3 and value 0 now overlap");
  EXPECT_TRUE(costs[1].memory.has_value()) << costs[1].refused;
}

TEST(LayoutCosts, ALayoutThatCannotBePlannedSaysWhy) {
  // One method, nothing shared: front replans it; arena has nothing to put
  // in a state arena.
  auto p = Load(std::vector<synth::FixedMethod>{{"forward", {{64, 1, 0}, {64, 1, 192}}}});
  ASSERT_TRUE(p);
  ShareRequest request;
  request.share_auto = true;
  request.allow_none = true;
  const PlanOptions options = WithStrategy(Strategy::kReplan);  // alignment 64, detected
  const PlanResult chosen = test_support::PlanVerified(p->view, request, options);
  const std::vector<LayoutCost> costs = CompareLayouts(p->view, request, options, chosen, {});
  ASSERT_EQ(costs.size(), 2u);
  ASSERT_TRUE(costs[0].memory.has_value()) << costs[0].refused;
  EXPECT_EQ(costs[0].memory->total.one_set_after, 128u) << "the gap at [64, 192) is gone";
  EXPECT_FALSE(costs[1].memory.has_value());
  EXPECT_NE(costs[1].refused.find("--layout arena: nothing to share"), std::string::npos)
      << costs[1].refused;
}

TEST(LayoutCosts, AMissedArenaLimitRefusesEveryLayoutThatMissesIt) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  const ShareRequest request = ShareNames({"k", "v"});
  PlanOptions options = Options(Layout::kFront);
  options.arena_limits = {{1, 64}};  // prefill needs more than 64 bytes either way
  Result<PlanResult> chosen = MakePlan(p->view, request, options);
  ASSERT_TRUE(chosen.ok()) << chosen.error().message;
  ASSERT_FALSE(chosen->plan.limit_misses.empty());
  const std::vector<LayoutCost> costs = CompareLayouts(p->view, request, options, *chosen, {});
  ASSERT_EQ(costs.size(), 2u);
  for (const LayoutCost& c : costs) {
    SCOPED_TRACE(LayoutName(c.layout));
    EXPECT_FALSE(c.memory.has_value());
    EXPECT_EQ(c.refused.rfind("no plan fits --arena-limit: ", 0), 0u) << c.refused;
    EXPECT_NE(c.refused.find("arena 1"), std::string::npos) << c.refused;
  }
  EXPECT_EQ(costs[0].refused, "no plan fits --arena-limit: " + chosen->plan.limit_misses.front());
}

}  // namespace
}  // namespace pteshare
