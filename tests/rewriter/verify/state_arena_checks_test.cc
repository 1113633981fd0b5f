// The verifier's checks of the layout (state_arena_checks.h), called
// directly on good plans and on plans broken by hand: the kind, number and
// device of every region (CheckStateArenaLayout), and every tensor inside a
// shared buffer going with it to its state arena (CheckAliasesFollow).
// Messages name the arena, the buffer and the numbers.
#include "rewriter/verify/state_arena_checks.h"

#include <gtest/gtest.h>

#include "rewriter/plan/front_region.h"
#include "tests/plan_options.h"
#include "tests/program_fixture.h"

namespace pteshare {
namespace {

using synth::FixedMethod;
using test_support::Load;
using test_support::ShareNames;

PlanResult PlanKV(const ProgramView& view, Layout layout) {
  PlanOptions options = WithStrategy(Strategy::kRelocate, 16);
  options.layout = layout;
  options.own_loader = true;  // the layout's mechanics, not Module's limits
  return test_support::PlanVerified(view, ShareNames({"k", "v"}), options);
}

// "I5: arena 3: ..." per violation, to compare whole lists.
std::vector<std::string> Said(const std::vector<PlanViolation>& violations) {
  std::vector<std::string> said;
  for (const PlanViolation& v : violations) {
    said.push_back(InvariantName(v.invariant) + ": " + v.message);
  }
  return said;
}

using Lines = std::vector<std::string>;

TEST(StateArenaChecks, GoodPlansOfEitherLayoutPass) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  for (Layout layout : {Layout::kFront, Layout::kArena}) {
    SCOPED_TRACE(LayoutName(layout));
    const PlanResult made = PlanKV(p->view, layout);
    EXPECT_EQ(Said(CheckStateArenaLayout(p->view, made.plan, 1)), Lines{});
  }
}

TEST(StateArenaChecks, ARegionOfTheOtherLayoutsKindIsRefused) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  Plan front = PlanKV(p->view, Layout::kFront).plan;
  front.layout = Layout::kArena;
  EXPECT_EQ(Said(CheckStateArenaLayout(p->view, front, 1)),
            Lines{"I5: arena 1: a front region in a plan of layout arena"});
  Plan arena = PlanKV(p->view, Layout::kArena).plan;
  arena.layout = Layout::kFront;
  EXPECT_EQ(Said(CheckStateArenaLayout(p->view, arena, 1)),
            Lines{"I5: arena 2: a state arena in a plan of layout front"});
}

TEST(StateArenaChecks, AFrontSlotTakesOnlyABufferOfItsOwnArena) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  Plan plan = PlanKV(p->view, Layout::kFront).plan;
  plan.fronts[0].slots[1].source_memory_id = 2;
  EXPECT_EQ(Said(CheckStateArenaLayout(p->view, plan, 1)),
            Lines{"I1: arena 1: slot of 'v' takes a buffer of arena 2"});
}

TEST(StateArenaChecks, NewStateArenasAreNumberedFromOnePastTheMostArenasOnePerDevice) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  const Plan good = PlanKV(p->view, Layout::kArena).plan;
  Plan skipped = good;
  skipped.fronts[0].memory_id = 3;  // the methods had one arena: 2 is next
  EXPECT_EQ(Said(CheckStateArenaLayout(p->view, skipped, 1)),
            Lines{"I5: arena 3: a new state arena must be arena 2"});
  Plan two = good;
  two.fronts.push_back(good.fronts[0]);
  two.fronts[1].memory_id = 3;  // numbered right, but the same device again
  EXPECT_EQ(Said(CheckStateArenaLayout(p->view, two, 1)),
            Lines{"I5: arena 3: a second state arena on the same device"});
  // Had the methods two arenas, arena 2 would be an input arena, which may
  // be a state arena only for buffers it holds already.
  EXPECT_EQ(Said(CheckStateArenaLayout(p->view, good, 2)),
            (Lines{"I5: arena 2: an arena of the input taken as state arena for 'k' of arena 1",
                   "I5: arena 2: an arena of the input taken as state arena for 'v' of arena 1"}));
}

TEST(StateArenaChecks, AStateArenaIsOnTheDeviceOfEveryArenaItsBuffersLeave) {
  synth::ArenaDevice cuda{2, fb::DeviceType::CUDA, 0};
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{256, 1, 0}, {64, 2, 0, "k", true}, {64, 2, 64}}, {}, {cuda}},
      {"decode", {{64, 1, 0}, {64, 2, 0, "k", true}}, {}, {cuda}},
  });
  ASSERT_TRUE(p);
  PlanOptions options = WithStrategy(Strategy::kRelocate, 16);
  options.layout = Layout::kArena;
  options.own_loader = true;  // the layout's mechanics, not Module's limits
  Plan plan = test_support::PlanVerified(p->view, ShareNames({"k"}), options).plan;
  ASSERT_EQ(plan.fronts.size(), 1u);
  EXPECT_EQ(plan.fronts[0].memory_id, 3u);
  EXPECT_EQ(Said(CheckStateArenaLayout(p->view, plan, 2)), Lines{});
  plan.fronts[0].device = DeviceType::kCpu;
  EXPECT_EQ(Said(CheckStateArenaLayout(p->view, plan, 2)),
            (Lines{"I5: method prefill: 'k' leaves arena 2 for arena 3 on another device",
                   "I5: method decode: 'k' leaves arena 2 for arena 3 on another device"}));
}

// prefill: act [0,128), k [128,192) with a view [160,192) and a zero-byte
// tensor at 144 inside it, v [192,256) right after k, act [256,320).
std::vector<FixedMethod> ViewInsideK() {
  return {
      {"prefill",
       {{128, 1, 0},
        {64, 1, 128, "k", true},
        {32, 1, 160},
        {0, 1, 144},
        {64, 1, 192, "v", true},
        {64, 1, 256}}},
      {"decode", {{64, 1, 0, "k", true}, {64, 1, 64, "v", true}}},
  };
}

struct Slots {
  std::vector<const FrontSlot*> slot;
  std::vector<const FrontRegion*> region;
};

Slots SlotsOf(const PlanResult& made) {
  Slots s;
  for (const BufferSlot& b : FindBufferSlots(made.shared, made.plan.fronts)) {
    s.slot.push_back(b.slot);
    s.region.push_back(b.region);
  }
  return s;
}

TEST(StateArenaChecks, WhatLayInsideABufferGoesWithItAndNothingElseIsAsked) {
  auto p = Load(ViewInsideK());
  ASSERT_TRUE(p);
  const PlanResult made = PlanKV(p->view, Layout::kArena);
  const Slots s = SlotsOf(made);
  const MethodView& in = p->view.methods[0];
  auto check = [&](const Plan& plan, const std::vector<const FrontRegion*>& regions) {
    return Said(CheckAliasesFollow(in, plan.methods[0], made.shared, s.slot, regions));
  };
  EXPECT_EQ(check(made.plan, s.region), Lines{});

  // v starts where k ends: it is judged against its own slot only.
  Plan v_off = made.plan;
  test_support::MoveOf(v_off, 0, 4).after.offset += 16;
  const Lines said = check(v_off, s.region);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("I1: method prefill, value 4 lies inside 'v'"), std::string::npos)
      << said[0];
  EXPECT_NE(said[0].find("not with it to arena 2 [64, 128)"), std::string::npos) << said[0];

  // A zero-byte tensor is in no buffer: left behind, nothing is said.
  Plan empty_left = made.plan;
  TensorMove& empty = test_support::MoveOf(empty_left, 0, 3);
  empty.after = empty.before;
  EXPECT_EQ(check(empty_left, s.region), Lines{});

  // A buffer with no region, or one in a front region, is not this check's.
  Plan view_off = made.plan;
  TensorMove& view = test_support::MoveOf(view_off, 0, 2);
  view.after = view.before;
  EXPECT_EQ(check(view_off, s.region).size(), 1u);
  EXPECT_EQ(check(view_off, std::vector<const FrontRegion*>(s.region.size(), nullptr)), Lines{});
  FrontRegion front = *s.region[0];
  front.state_arena = false;
  EXPECT_EQ(check(view_off, std::vector<const FrontRegion*>(s.region.size(), &front)), Lines{});
}

}  // namespace
}  // namespace pteshare
