// --layout arena (state_arena.h) on hand-laid programs: the state arena's
// number, device and slots, the arenas the buffers leave, the verifier's
// checks of the layout, and the patch that grows the arena vectors (read
// back through the real reader).
#include "rewriter/plan/state_arena.h"
#include "rewriter/program/program_tables.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "rewriter/patch/arena_vectors.h"
#include "rewriter/patch/byte_ownership.h"
#include "rewriter/patch/patched_bytes.h"
#include "rewriter/patch/patcher.h"
#include "rewriter/plan/memory_cost.h"
#include "rewriter/plan/planner.h"
#include "rewriter/verify/plan_verifier.h"
#include "tests/plan_options.h"
#include "tests/program_fixture.h"

namespace pteshare {
namespace {

using synth::FixedMethod;
using test_support::Load;
using test_support::MoveOf;
using test_support::ShareNames;
using test_support::TwoMethodsSharingKV;

constexpr uint32_t kCuda = 2;  // memory_id of the device arena in these tests

PlanOptions ArenaOptions(Strategy strategy = Strategy::kRelocate) {
  PlanOptions options = WithStrategy(strategy, 16);
  options.layout = Layout::kArena;
  options.own_loader = true;  // the layout's mechanics, not Module's limits
  return options;
}

PlanResult PlanOk(const ProgramView& view, const ShareRequest& request,
                  const PlanOptions& options = ArenaOptions()) {
  return test_support::PlanVerified(view, request, options);
}

TEST(StateArena, CpuCachesGoToArenaTwoAndArenaOneIsCompacted) {
  auto p = Load(TwoMethodsSharingKV());
  PlanResult input = PlanOk(p->view, ShareNames({"k", "v"}));
  const Plan& plan = input.plan;
  ASSERT_EQ(plan.fronts.size(), 1u);
  const FrontRegion& state = plan.fronts[0];
  EXPECT_TRUE(state.state_arena);
  EXPECT_EQ(state.memory_id, 2u);
  EXPECT_EQ(state.size, 128u);
  EXPECT_EQ(state.device, DeviceType::kCpu);
  ASSERT_EQ(state.slots.size(), 2u);
  EXPECT_EQ(state.slots[0].source_memory_id, 1u);
  // k is value 1 in prefill, 0 in decode; v the next one.
  for (size_t m = 0; m < 2; ++m) {
    const uint32_t k = m == 0 ? 1 : 0;
    EXPECT_EQ(MoveOf(plan, m, k).after, (Placement{2, 0, 64})) << m;
    EXPECT_EQ(MoveOf(plan, m, k + 1).after, (Placement{2, 64, 64})) << m;
  }
  // prefill: the activation above the caches moves down over their bytes.
  EXPECT_EQ(MoveOf(plan, 0, 0).after, (Placement{1, 0, 128}));
  EXPECT_EQ(MoveOf(plan, 0, 3).after, (Placement{1, 128, 64}));
  EXPECT_EQ(plan.methods[0].arena_sizes_after, (std::vector<uint64_t>{192, 128}));
  // decode: only the activation is left, at 0.
  EXPECT_EQ(MoveOf(plan, 1, 2).after, (Placement{1, 0, 32}));
  EXPECT_EQ(plan.methods[1].arena_sizes_after, (std::vector<uint64_t>{32, 128}));
}

TEST(StateArena, ArenasTheBuffersLeaveNeverGrow) {
  auto p = Load(TwoMethodsSharingKV());
  for (Strategy strategy : {Strategy::kRelocate, Strategy::kReplan, Strategy::kBest}) {
    PlanResult input = PlanOk(p->view, ShareNames({"k", "v"}), ArenaOptions(strategy));
    for (const MethodPlan& m : input.plan.methods) {
      EXPECT_LE(m.arena_sizes_after[0], m.arena_sizes_before[0]) << m.name;
      EXPECT_EQ(m.arena_sizes_after[1], 128u) << m.name;
    }
  }
}

TEST(StateArena, MethodWithoutABufferStillGetsTheWholeArena) {
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0, "k", true}, {64, 1, 64, "v", true}, {64, 1, 128}}},
      {"decode", {{64, 1, 0, "v", true}, {32, 1, 64}}},
  });
  PlanResult input = PlanOk(p->view, ShareNames({"k", "v"}));
  const Plan& plan = input.plan;
  EXPECT_EQ(plan.methods[1].arena_sizes_after, (std::vector<uint64_t>{32, 128}));
  EXPECT_EQ(MoveOf(plan, 1, 0).after, (Placement{2, 64, 64}));  // v keeps its slot
}

TEST(StateArena, DeviceCachesGetANewArenaOnTheirDevice) {
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
  EXPECT_EQ(plan.fronts[0].memory_id, 3u);
  EXPECT_EQ(plan.fronts[0].device, DeviceType::kCuda);
  EXPECT_EQ(plan.methods[0].arena_sizes_after, (std::vector<uint64_t>{256, 128, 128}));
  EXPECT_EQ(plan.methods[1].arena_sizes_after, (std::vector<uint64_t>{64, 32, 128}));
  EXPECT_EQ(MoveOf(plan, 1, 3).after, (Placement{kCuda, 0, 32}));  // scores move down
  bool warned = false;
  for (const std::string& w : plan.warnings) {
    warned |= w.find("refuses methods with arenas off the CPU") != std::string::npos &&
              w.find("memory_id 3 of the HierarchicalAllocator") != std::string::npos;
  }
  EXPECT_TRUE(warned);

  // The patch appends longer arena vectors; the result reads back with a
  // third arena on CUDA, and rewriting it again changes nothing (I7).
  Result<PatchSet> patch = MakePatchSet(p->bytes, p->view, plan);
  ASSERT_TRUE(patch.ok()) << patch.error().message;
  EXPECT_EQ(patch->arena_vectors_appended, 4u);  // sizes and devices of both methods
  Result<std::vector<uint8_t>> out = ApplyPatchInMemory(p->bytes, *patch);
  ASSERT_TRUE(out.ok()) << out.error().message;
  auto again = Load(std::move(out).value());
  ASSERT_NE(again, nullptr);
  for (const MethodView& m : again->view.methods) {
    ASSERT_EQ(m.arenas.size(), 3u) << m.name;
    EXPECT_EQ(m.arenas[2].device, DeviceType::kCuda);
    EXPECT_EQ(m.arenas[1].device, DeviceType::kCuda);
    EXPECT_EQ(m.arenas[2].size, 128u);
  }
  PlanResult second = PlanOk(again->view, ShareNames({"k", "v"}));
  EXPECT_EQ(second.plan.fronts[0].memory_id, 3u);  // kept, not a fourth
  Result<PatchSet> none = MakePatchSet(again->bytes, again->view, second.plan);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(none->empty());
}

TEST(StateArena, MethodsWithFewerArenasGetEmptyOnesBeforeTheStateArena) {
  // decode has one arena, prefill two: the state arena is 3 in both.
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0, "k", true}, {64, 2, 0}}},
      {"decode", {{64, 1, 0, "k", true}, {16, 1, 64}}},
  });
  PlanResult input = PlanOk(p->view, ShareNames({"k"}));
  EXPECT_EQ(input.plan.fronts[0].memory_id, 3u);
  EXPECT_EQ(input.plan.methods[1].arena_sizes_after, (std::vector<uint64_t>{16, 0, 64}));
  Result<PatchSet> patch = MakePatchSet(p->bytes, p->view, input.plan);
  ASSERT_TRUE(patch.ok()) << patch.error().message;
  auto out = Load(ApplyPatchInMemory(p->bytes, *patch).value());
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->view.methods[1].arenas.size(), 3u);
  EXPECT_EQ(out->view.methods[1].tensor(0)->placement, (Placement{3, 0, 64}));
}

TEST(StateArena, AMethodThatPlansNothingGetsNoArena) {
  // The exporter's constant methods (get_max_seq_len, ...) plan nothing and
  // store no device table: a device state arena must not be forced on them.
  synth::ArenaDevice cuda{kCuda, fb::DeviceType::CUDA, 0};
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0}, {64, kCuda, 0}, {64, kCuda, 64, "k", true}}, {}, {cuda}},
      {"decode", {{32, 1, 0}, {64, kCuda, 0, "k", true}, {32, kCuda, 64}}, {}, {cuda}},
      {"get_max_seq_len", {}},
  });
  ASSERT_NE(p, nullptr);
  const size_t arenas = p->view.methods[2].arenas.size();
  PlanResult input = PlanOk(p->view, ShareNames({"k"}));
  EXPECT_EQ(input.plan.fronts[0].memory_id, 3u);
  EXPECT_EQ(input.plan.methods[2].arena_sizes_after, std::vector<uint64_t>(arenas, 0));
  Result<PatchSet> patch = MakePatchSet(p->bytes, p->view, input.plan);
  ASSERT_TRUE(patch.ok()) << patch.error().message;
  auto out = Load(ApplyPatchInMemory(p->bytes, *patch).value());
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->view.methods[0].arenas.size(), 3u);
  EXPECT_EQ(out->view.methods[1].arenas.size(), 3u);
  EXPECT_EQ(out->view.methods[2].arenas.size(), arenas);
}

// ExecuTorch's Module(share_memory_arenas=true) shares memory ids 1 and 2
// and only on the CPU: a state arena outside that would be a copy per
// method under Module, so --layout arena refuses it unless the loader is
// the application's own (PlanOptions::own_loader).
TEST(StateArena, AStateArenaModuleCannotShareIsRefusedWithoutOwnLoader) {
  synth::ArenaDevice cuda{kCuda, fb::DeviceType::CUDA, 0};
  struct Case {
    const char* label;
    std::vector<FixedMethod> methods;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {"cpu, two arenas: the state arena is 3",
       {{"prefill", {{64, 1, 0, "k", true}, {64, 1, 64}, {64, 2, 0}}},
        {"decode", {{64, 1, 0, "k", true}, {32, 1, 64}, {32, 2, 0}}}},
       "shares only arenas 1 and 2 and gives arena 3 a buffer per method"},
      {"cuda",
       {{"prefill", {{64, 1, 0}, {64, kCuda, 0, "k", true}}, {}, {cuda}},
        {"decode", {{32, 1, 0}, {64, kCuda, 0, "k", true}}, {}, {cuda}}},
       "is on CUDA:0: ExecuTorch's Module(share_memory_arenas=true) refuses methods with arenas "
       "off the CPU"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    auto p = Load(c.methods);
    ASSERT_NE(p, nullptr);
    PlanOptions options = ArenaOptions();
    options.own_loader = false;
    Result<PlanResult> refused = MakePlan(p->view, ShareNames({"k"}), options);
    ASSERT_FALSE(refused.ok());
    const std::string& message = refused.error().message;
    EXPECT_EQ(message.rfind("--layout arena: the state arena ", 0), 0u) << message;
    EXPECT_NE(message.find(c.reason), std::string::npos) << message;
    EXPECT_NE(message.find("give --own-loader if your loader does that"), std::string::npos)
        << message;
    EXPECT_EQ(refused.error().kind, ErrorKind::kBadInput);
    // Accepted, it is planned and says the same as a warning.
    options.own_loader = true;
    PlanResult accepted = PlanOk(p->view, ShareNames({"k"}), options);
    EXPECT_EQ(std::count_if(accepted.plan.warnings.begin(), accepted.plan.warnings.end(),
                            [&](const std::string& w) { return w.find(c.reason) != w.npos; }),
              1);
  }
}

TEST(StateArena, AFrontOnADeviceArenaWarnsThatModuleCannotShareIt) {
  synth::ArenaDevice cuda{kCuda, fb::DeviceType::CUDA, 0};
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0}, {64, kCuda, 0, "k", true}}, {}, {cuda}},
      {"decode", {{32, 1, 0}, {16, kCuda, 0}, {64, kCuda, 16, "k", true}}, {}, {cuda}},
  });
  ASSERT_NE(p, nullptr);
  PlanOptions options = WithStrategy(Strategy::kRelocate, 16);
  PlanResult front = PlanOk(p->view, ShareNames({"k"}), options);
  const std::vector<std::string>& warnings = front.plan.warnings;
  EXPECT_NE(std::find(warnings.begin(), warnings.end(),
                      "1 shared buffer(s) (k) are in arena 2 on CUDA:0: ExecuTorch's "
                      "Module(share_memory_arenas=true) refuses methods with arenas off the CPU; "
                      "bind this arena to the same memory in every method yourself"),
            warnings.end());
}

TEST(StateArena, AMethodWithoutDeviceTableCannotGetADeviceArena) {
  // prefill has the cache on CUDA; decode has no state and no device table.
  synth::ArenaDevice cuda{kCuda, fb::DeviceType::CUDA, 0};
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0}, {64, kCuda, 0, "k", true}}, {}, {cuda}},
      {"decode", {{64, 1, 0}}},
  });
  PlanResult input = PlanOk(p->view, ShareNames({"k"}));
  Result<PatchSet> patch = MakePatchSet(p->bytes, p->view, input.plan);
  ASSERT_FALSE(patch.ok());
  EXPECT_NE(patch.error().message.find("method decode stores no non_const_buffer_device"),
            std::string::npos)
      << patch.error().message;
}

TEST(StateArena, ABufferOnTwoDevicesIsRefused) {
  synth::ArenaDevice cuda{kCuda, fb::DeviceType::CUDA, 0};
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0}, {64, kCuda, 0, "k", true}}, {}, {cuda}},
      {"decode", {{64, 1, 0}, {64, kCuda, 0, "k", true}}},
  });
  Result<PlanResult> input = MakePlan(p->view, ShareNames({"k"}), ArenaOptions());
  ASSERT_FALSE(input.ok());
  EXPECT_NE(input.error().message.find("on CUDA:0 in method prefill but on CPU:0 in method decode"),
            std::string::npos)
      << input.error().message;
}

TEST(StateArena, NothingToShareIsRefusedNotReportedAsDone) {
  auto p = Load(std::vector<FixedMethod>{{"forward", {{64, 1, 0}}}});
  ShareRequest request;
  request.share_auto = true;
  request.allow_none = true;
  Result<PlanResult> input = MakePlan(p->view, request, ArenaOptions(Strategy::kBest));
  ASSERT_FALSE(input.ok());
  EXPECT_NE(input.error().message.find("--layout arena: nothing to share"), std::string::npos);
}

TEST(StateArena, VerifierCatchesAnAliasLeftBehindAndAStrangerInTheStateArena) {
  auto p = Load(TwoMethodsSharingKV());
  PlanResult input = PlanOk(p->view, ShareNames({"k", "v"}));
  auto has = [](const std::vector<PlanViolation>& found, const std::string& invariant) {
    for (const PlanViolation& v : found) {
      if (InvariantName(v.invariant) == invariant) return true;
    }
    return false;
  };
  {
    Plan plan = input.plan;  // k stays in arena 1 in prefill
    for (TensorMove& m : plan.methods[0].moves) {
      if (m.value_index == 1) m.after = m.before;
    }
    EXPECT_TRUE(has(VerifyPlan(p->view, input.shared, plan), "I1"));
  }
  {
    Plan plan = input.plan;  // an activation moved into the state arena
    for (TensorMove& m : plan.methods[1].moves) {
      if (m.value_index == 2) m.after = {2, 0, 32};
    }
    const std::vector<PlanViolation> found = VerifyPlan(p->view, input.shared, plan);
    EXPECT_TRUE(has(found, "I5") || has(found, "I2"));
  }
  {
    Plan plan = input.plan;  // the state arena larger than its slots
    plan.methods[1].arena_sizes_after[1] = 256;
    EXPECT_TRUE(has(VerifyPlan(p->view, input.shared, plan), "I6"));
  }
  {
    Plan plan = input.plan;  // a state arena numbered as if another existed
    plan.fronts[0].memory_id = 3;
    EXPECT_FALSE(VerifyPlan(p->view, input.shared, plan).empty());
  }
}

TEST(StateArena, ArenaVectorReferencesAreAllocationInfo) {
  auto p = Load(TwoMethodsSharingKV());
  const ByteOwnership map = ByteOwnership::Map(
      std::span<const uint8_t>(p->bytes).first(p->view.layout.program_size), p->view.layout);
  for (const MethodView& m : p->view.methods) {
    const auto* table =
        reinterpret_cast<const flatbuffers::Table*>(&PlanTable(ProgramTable(p->bytes), m));
    const uint8_t* field = table->GetAddressOf(fb::ExecutionPlan::VT_NON_CONST_BUFFER_SIZES);
    ASSERT_NE(field, nullptr);
    EXPECT_TRUE(map.AllocationOnly(static_cast<uint64_t>(field - p->bytes.data()), 4)) << m.name;
  }
}

TEST(StateArena, MemoryCostCountsTheNewArena) {
  auto p = Load(TwoMethodsSharingKV());
  PlanResult input = PlanOk(p->view, ShareNames({"k", "v"}));
  const MemoryCost cost = ComputeMemoryCost(input.plan);
  ASSERT_EQ(cost.arenas.size(), 2u);
  EXPECT_EQ(cost.arenas[1].one_set_before, 0u);
  EXPECT_EQ(cost.arenas[1].one_set_after, 128u);   // the largest method
  EXPECT_EQ(cost.arenas[1].separate_after, 256u);  // one per method
  EXPECT_EQ(cost.arenas[0].one_set_after, 192u);
}

}  // namespace
}  // namespace pteshare
