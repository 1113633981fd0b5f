// The plan's own types (plan.h): the names of layouts and strategies that
// the CLI and the Python module read and print, a method's moves found by
// value index, what counts as moved, a region's private slots and a plan's
// region by arena.
#include "rewriter/plan/plan.h"

#include <gtest/gtest.h>

#include "tests/plan_options.h"
#include "tests/program_fixture.h"

namespace pteshare {
namespace {

TEST(Plan, EveryLayoutAndStrategyNameReadsBackAndNothingElseDoes) {
  for (Layout layout : {Layout::kFront, Layout::kArena}) {
    EXPECT_EQ(ParseLayout(LayoutName(layout)), layout) << LayoutName(layout);
  }
  for (Strategy strategy : {Strategy::kRelocate, Strategy::kReplan, Strategy::kBest}) {
    EXPECT_EQ(ParseStrategy(StrategyName(strategy)), strategy) << StrategyName(strategy);
  }
  EXPECT_STREQ(LayoutName(Layout::kArena), "arena");
  EXPECT_STREQ(StrategyName(Strategy::kBest), "best");
  // Exact words only: no case folding, no prefixes, no spaces.
  for (const char* word : {"", "Front", "fron", "arena ", "?"}) {
    EXPECT_FALSE(ParseLayout(word).has_value()) << "'" << word << "'";
  }
  for (const char* word : {"", "Relocate", "re", "best\n", "front"}) {
    EXPECT_FALSE(ParseStrategy(word).has_value()) << "'" << word << "'";
  }
}

TEST(Plan, FindGivesTheMoveOfAValueIndexOrNothing) {
  MethodPlan m;
  for (uint32_t value : {1u, 4u, 9u}) m.moves.push_back({value, {1, value * 16, 16}, {}});
  ASSERT_NE(m.Find(4), nullptr);
  EXPECT_EQ(m.Find(4)->before.offset, 64u);
  EXPECT_EQ(m.Find(9)->value_index, 9u);
  for (uint32_t absent : {0u, 2u, 5u, 10u}) EXPECT_EQ(m.Find(absent), nullptr) << absent;
  EXPECT_EQ(MethodPlan{}.Find(0), nullptr);
}

TEST(Plan, AMoveIsANewOffsetAndMovedCountCountsThem) {
  // Sharing k and v by relocate: prefill's act [0,128) moves up over the
  // front, k and v move to it; everything of decode is in place already.
  auto p = test_support::Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  const PlanResult made = test_support::PlanVerified(p->view, test_support::ShareNames({"k", "v"}),
                                                     WithStrategy(Strategy::kRelocate, 16));
  const MethodPlan& prefill = made.plan.methods[0];
  const MethodPlan& decode = made.plan.methods[1];
  EXPECT_EQ(prefill.moved_count(), 3u);
  EXPECT_FALSE(prefill.Find(3)->moved()) << "act [256,320) stays";
  EXPECT_EQ(decode.moved_count(), 0u);
  for (const MethodPlan* m : {&prefill, &decode}) {
    ASSERT_EQ(m->moves.size(), p->view.methods[m->method_index].planned_count());
    for (const TensorMove& move : m->moves) EXPECT_EQ(m->Find(move.value_index), &move);
  }
  // Only the offset counts: a tensor that changes arena at the same offset
  // (decode's k going to a state arena at 0) is not counted as moved.
  const TensorMove arena_only{0, {1, 0, 64}, {2, 0, 64}};
  EXPECT_FALSE(arena_only.moved());
}

TEST(Plan, RegionsAreFoundByArenaAndCountTheirPrivateSlots) {
  Plan plan;
  plan.fronts.resize(2);
  plan.fronts[0].memory_id = 1;
  for (const char* name : {"k", "prefill:3", "v"}) {
    FrontSlot& slot = plan.fronts[0].slots.emplace_back();
    slot.name = name;
    slot.private_state = slot.name == "prefill:3";
  }
  plan.fronts[1].memory_id = 3;
  ASSERT_NE(plan.front(1), nullptr);
  EXPECT_EQ(plan.front(1)->private_slots(), 1u);
  EXPECT_EQ(plan.front(3), &plan.fronts[1]);
  EXPECT_EQ(plan.front(3)->private_slots(), 0u);
  EXPECT_EQ(plan.front(2), nullptr);
  EXPECT_EQ(plan.front(0), nullptr);
}

}  // namespace
}  // namespace pteshare
