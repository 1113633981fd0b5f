// The relocate strategy on hand-laid programs: every expected offset and
// arena size is written out, and every plan must pass the verifier.
#include "rewriter/plan/relocate.h"

#include <gtest/gtest.h>

#include "rewriter/plan/planner.h"
#include "rewriter/verify/plan_verifier.h"
#include "tests/plan_options.h"
#include "tests/program_fixture.h"

namespace pteshare {
namespace {

using synth::FixedMethod;
using synth::FixedTensor;
using test_support::Load;
using test_support::ShareNames;
using test_support::TwoMethodsSharingKV;

constexpr uint32_t kCuda = 2;  // memory_id of the device arena in these tests

PlanResult PlanOk(const ProgramView& view, ShareRequest request, uint64_t alignment = 16) {
  Result<PlanResult> input = MakePlan(view, request, WithStrategy(Strategy::kRelocate, alignment));
  EXPECT_TRUE(input.ok()) << input.error().message;
  if (!input.ok()) return {};
  for (const PlanViolation& v : VerifyPlan(view, input->shared, input->plan)) {
    ADD_FAILURE() << InvariantName(v.invariant) << ": " << v.message;
  }
  return std::move(input).value();
}

uint64_t After(const Plan& plan, size_t method, uint32_t value) {
  for (const TensorMove& m : plan.methods[method].moves) {
    if (m.value_index == value) return m.after.offset;
  }
  ADD_FAILURE() << "no value " << value;
  return ~uint64_t{0};
}

TEST(Relocate, TwoMethodsShareKvCachesInArenaOne) {
  auto p = Load(TwoMethodsSharingKV());
  PlanResult input = PlanOk(p->view, ShareNames({"k", "v"}));
  const Plan& plan = input.plan;
  ASSERT_EQ(plan.fronts.size(), 1u);
  EXPECT_EQ(plan.fronts[0].memory_id, 1u);
  EXPECT_EQ(plan.fronts[0].size, 128u);
  // prefill: the caches go to the front, the activation that was below them
  // moves up by F, the one above them stays (F minus the reclaimed slots).
  EXPECT_EQ(After(plan, 0, 1), 0u);
  EXPECT_EQ(After(plan, 0, 2), 64u);
  EXPECT_EQ(After(plan, 0, 0), 128u);
  EXPECT_EQ(After(plan, 0, 3), 256u);
  EXPECT_EQ(plan.methods[0].arena_sizes_after, (std::vector<uint64_t>{320}));
  // decode already had them at the front: nothing moves.
  EXPECT_EQ(After(plan, 1, 0), 0u);
  EXPECT_EQ(After(plan, 1, 1), 64u);
  EXPECT_EQ(After(plan, 1, 2), 128u);
  EXPECT_EQ(plan.methods[1].arena_sizes_after, (std::vector<uint64_t>{160}));
}

TEST(Relocate, SlotsFollowSortedNameOrderNotInputOrder) {
  // "a" lies above "b" in the input; the front puts "a" first.
  auto p = Load(std::vector<FixedMethod>{
      {"m1", {{32, 1, 0, "b", true}, {32, 1, 32, "a", true}}},
      {"m2", {{32, 1, 0, "a", true}, {32, 1, 32, "b", true}}},
  });
  PlanResult input = PlanOk(p->view, ShareNames({"b", "a"}));
  EXPECT_EQ(input.plan.fronts[0].slots[0].name, "a");
  EXPECT_EQ(After(input.plan, 0, 1), 0u);   // m1's "a"
  EXPECT_EQ(After(input.plan, 0, 0), 32u);  // m1's "b"
  EXPECT_EQ(After(input.plan, 1, 0), 0u);
}

TEST(Relocate, CachesInADeviceArenaWhileActivationsStayInArenaOne) {
  // The case the old exporter refused: a program that already uses two arenas.
  synth::ArenaDevice cuda{kCuda, fb::DeviceType::CUDA, 0};
  auto p = Load(std::vector<FixedMethod>{
      {"prefill",
       {{256, 1, 0}, {128, kCuda, 0}, {64, kCuda, 128, "k", true}, {64, kCuda, 192, "v", true}},
       {},
       {cuda}},
      {"decode",
       {{64, 1, 0}, {64, kCuda, 0, "k", true}, {64, kCuda, 64, "v", true}, {32, kCuda, 128}},
       {},
       {cuda}},
  });
  PlanResult input = PlanOk(p->view, ShareNames({"k", "v"}));
  const Plan& plan = input.plan;
  ASSERT_EQ(plan.fronts.size(), 1u);
  EXPECT_EQ(plan.fronts[0].memory_id, kCuda);
  EXPECT_EQ(After(plan, 0, 0), 0u);    // arena 1 untouched
  EXPECT_EQ(After(plan, 0, 1), 128u);  // scores move above the front
  EXPECT_EQ(After(plan, 0, 2), 0u);
  EXPECT_EQ(After(plan, 0, 3), 64u);
  EXPECT_EQ(plan.methods[0].arena_sizes_after, (std::vector<uint64_t>{256, 256}));
  EXPECT_EQ(plan.methods[1].arena_sizes_after, (std::vector<uint64_t>{64, 160}));
  EXPECT_EQ(p->view.methods[0].arena(kCuda)->device, DeviceType::kCuda);
}

TEST(Relocate, MethodWithoutBufferStillReservesItsSlot) {
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0, "k", true}, {64, 1, 64, "v", true}, {64, 1, 128}}},
      {"decode", {{64, 1, 0, "k", true}, {32, 1, 64}}},  // no "v"
  });
  PlanResult input = PlanOk(p->view, ShareNames({"k", "v"}));
  // decode's activation must stay off v's slot [64, 128): it moves up by
  // F - k's slot = 64, and the arena grows by v's slot only.
  EXPECT_EQ(After(input.plan, 1, 1), 128u);
  EXPECT_EQ(input.plan.methods[1].arena_sizes_before, (std::vector<uint64_t>{96}));
  EXPECT_EQ(input.plan.methods[1].arena_sizes_after, (std::vector<uint64_t>{160}));
}

TEST(Relocate, UnnamedBuffersNamedByPosition) {
  // Programs exported without buffer names (as in the corpus' training
  // programs): name them with --name, then share them.
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0}, {64, 1, 64, "", true}}},
      {"decode", {{64, 1, 0, "", true}, {16, 1, 64}}},
  });
  ShareRequest request = ShareNames({"state"});
  request.namings = {{"prefill", 1, "state"}, {"decode", 0, "state"}};
  PlanResult input = PlanOk(p->view, request);
  EXPECT_EQ(After(input.plan, 0, 1), 0u);
  EXPECT_EQ(After(input.plan, 0, 0), 64u);
  EXPECT_EQ(After(input.plan, 1, 0), 0u);
}

TEST(Relocate, AliasesOfACacheFollowItKeepingTheirRelativeOffset) {
  auto p = Load(std::vector<FixedMethod>{
      {"prefill",
       {{128, 1, 0},
        {64, 1, 128, "k", true},
        {64, 1, 128},    // the cache-update output: same placement
        {32, 1, 144}}},  // a view at +16
      {"decode", {{64, 1, 0, "k", true}, {16, 1, 64}}},
  });
  PlanResult input = PlanOk(p->view, ShareNames({"k"}));
  EXPECT_EQ(After(input.plan, 0, 1), 0u);
  EXPECT_EQ(After(input.plan, 0, 2), 0u);
  EXPECT_EQ(After(input.plan, 0, 3), 16u);
  EXPECT_EQ(After(input.plan, 0, 0), 64u);
}

TEST(Relocate, ExporterTailPaddingIsKept) {
  // decode's arena is 256 bytes though its tensors reach only 96.
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0}, {64, 1, 64, "k", true}}},
      {"decode", {{64, 1, 0, "k", true}, {32, 1, 64}}, {256}},
  });
  PlanResult input = PlanOk(p->view, ShareNames({"k"}));
  EXPECT_EQ(input.plan.methods[1].arena_sizes_after, (std::vector<uint64_t>{256}));
  EXPECT_EQ(input.plan.methods[0].arena_sizes_after, (std::vector<uint64_t>{128}));
}

TEST(Relocate, ZeroByteTensorsMoveOnlyWithWhatContainsThem) {
  auto p = Load(std::vector<FixedMethod>{
      {"prefill",
       {{128, 1, 0},
        {64, 1, 128, "k", true},
        {0, 1, 32},     // inside the activation: moves with it
        {0, 1, 136},    // inside the cache: follows it to the front
        {0, 1, 4096},   // inside nothing: stays
        {16, 2, 16}}},  // elsewhere: makes the input's alignment 16, as given
      {"decode", {{64, 1, 0, "k", true}}},
  });
  PlanResult input = PlanOk(p->view, ShareNames({"k"}));
  EXPECT_EQ(After(input.plan, 0, 2), 32u + 64u);
  EXPECT_EQ(After(input.plan, 0, 3), 8u);
  EXPECT_EQ(After(input.plan, 0, 4), 4096u);
}

TEST(Relocate, ArenasWithoutSharedBuffersAreUntouched) {
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0}, {64, 1, 64, "k", true}, {48, 2, 16}}},
      {"decode", {{64, 1, 0, "k", true}, {48, 2, 0}}},
  });
  PlanResult input = PlanOk(p->view, ShareNames({"k"}));
  EXPECT_EQ(After(input.plan, 0, 2), 16u);
  EXPECT_EQ(input.plan.methods[0].arena_sizes_after[1],
            input.plan.methods[0].arena_sizes_before[1]);
}

TEST(Relocate, ASecondRunOnItsOwnOutputIsTheIdentity) {
  // I7 at the plan level: lay the first plan's output out as a program and
  // plan it again; nothing may move, no arena may change. The method that
  // lacks "v" is the case a naive compacting relocation gets wrong.
  std::vector<FixedMethod> methods = {
      {"prefill", {{128, 1, 0}, {64, 1, 128, "k", true}, {64, 1, 192, "v", true}}},
      {"decode", {{64, 1, 0, "k", true}, {32, 1, 64}}},
  };
  auto first = Load(methods);
  PlanResult once = PlanOk(first->view, ShareNames({"k", "v"}));
  for (size_t m = 0; m < methods.size(); ++m) {
    for (size_t v = 0; v < methods[m].tensors.size(); ++v) {
      methods[m].tensors[v].offset = After(once.plan, m, static_cast<uint32_t>(v));
    }
    methods[m].arena_sizes = {static_cast<int64_t>(once.plan.methods[m].arena_sizes_after[0])};
  }
  auto second = Load(methods);
  PlanResult twice = PlanOk(second->view, ShareNames({"k", "v"}));
  for (const MethodPlan& m : twice.plan.methods) {
    for (const TensorMove& move : m.moves) EXPECT_FALSE(move.moved()) << m.name;
    EXPECT_EQ(m.arena_sizes_after, m.arena_sizes_before) << m.name;
  }
}

TEST(Relocate, DetectsTheAlignmentFromTheInput) {
  auto p = Load(TwoMethodsSharingKV());
  // Offsets 64, 128, 192, 256: the largest power of two dividing all is 64.
  Result<PlanResult> input = MakePlan(p->view, ShareNames({"k", "v"}), PlanOptions{});
  ASSERT_TRUE(input.ok()) << input.error().message;
  EXPECT_EQ(input->plan.alignment, 64u);
  EXPECT_TRUE(VerifyPlan(p->view, input->shared, input->plan).empty());
}

TEST(Relocate, SlotsAreRoundedToTheAlignment) {
  auto p = Load(std::vector<FixedMethod>{
      {"m1", {{20, 1, 0, "a", true}, {16, 1, 32, "b", true}, {16, 1, 64}}},
      {"m2", {{20, 1, 0, "a", true}, {16, 1, 32, "b", true}}},
  });
  PlanResult input = PlanOk(p->view, ShareNames({"a", "b"}), 32);
  EXPECT_EQ(input.plan.fronts[0].slots[0].slot_bytes, 32u);
  EXPECT_EQ(input.plan.fronts[0].slots[1].offset, 32u);
  EXPECT_EQ(input.plan.fronts[0].size, 64u);
  EXPECT_EQ(After(input.plan, 0, 2), 64u);
}

}  // namespace
}  // namespace pteshare
