// The replan and best strategies on small programs whose every size is
// worked out by hand, plus the synthetic LLM and CNN: replan shrinks a
// wasteful input to its lower bound, keeps the front regions, never loses
// to relocate under best, and says by how much an --arena-limit is missed.
// Every plan must pass the verifier.
#include "rewriter/plan/replan.h"

#include <gtest/gtest.h>

#include "rewriter/patch/patcher.h"
#include "rewriter/plan/planner.h"
#include "rewriter/verify/plan_verifier.h"
#include "tests/program_fixture.h"
#include "tests/rewrite_fixtures.h"
#include "tools/synth/operators.h"
#include "tools/synth/spec_helpers.h"
#include "tools/synth/synth_cnn.h"
#include "tools/synth/synth_llm.h"

namespace pteshare {
namespace {

using synth::CallOut;
using synth::FixedPlacement;
using synth::MethodSpec;
using synth::ProgramSpec;
using synth::Tensor;
using synth::ValueIndex;
using test_support::MoveOf;
namespace ops = synth::ops;

constexpr int32_t kFloats = 16;  // 64-byte tensors

ValueIndex At(MethodSpec& m, uint64_t offset, int32_t floats = kFloats) {
  return m.Add(Tensor{.sizes = {floats}, .memory = FixedPlacement{1, offset}});
}

ValueIndex Cache(MethodSpec& m, const std::string& name, uint64_t offset) {
  return m.Add(Tensor{.sizes = {kFloats},
                      .fully_qualified_name = name,
                      .initial_state = std::vector<uint8_t>(4 * kFloats, 0),
                      .memory = FixedPlacement{1, offset}});
}

// prefill, laid out wastefully (nothing reuses bytes), 320 bytes:
//   x [0,64) in, a [64,128), b [128,192), k [256,320) (or v/k, see below),
//   c [192,256) out;  a = x + k, b = relu(a), c = relu(b)
// Live: x [0,0], a [0,1], b [1,2], c [2,2]: two 64-byte tensors at a time.
// decode, 192 bytes: k [0,64), x [64,128) in, y [128,192) out; y = x + k.
// With `with_v`, prefill also has a cache v at [320,384) read by c's call
// and decode lacks it.
ProgramSpec KvProgram(bool with_v) {
  ProgramSpec spec;
  MethodSpec& prefill = spec.methods.emplace_back();
  prefill.name = "prefill";
  ValueIndex x = At(prefill, 0), a = At(prefill, 64), b = At(prefill, 128), c = At(prefill, 192);
  ValueIndex k = Cache(prefill, "k", 256);
  CallOut(prefill, ops::kAdd, {x, k}, a);
  CallOut(prefill, ops::kRelu, {a}, b);
  if (with_v) {
    ValueIndex v = Cache(prefill, "v", 320);
    CallOut(prefill, ops::kAdd, {b, v}, c);
  } else {
    CallOut(prefill, ops::kRelu, {b}, c);
  }
  prefill.inputs = {x};
  prefill.outputs = {c};

  MethodSpec& decode = spec.methods.emplace_back();
  decode.name = "decode";
  ValueIndex dk = Cache(decode, "k", 0);
  ValueIndex dx = At(decode, 64), dy = At(decode, 128);
  CallOut(decode, ops::kAdd, {dx, dk}, dy);
  decode.inputs = {dx};
  decode.outputs = {dy};
  return spec;
}

ShareRequest Share(std::vector<std::string> names) {
  ShareRequest r;
  r.names = std::move(names);
  r.allow_none = true;
  return r;
}

// Alignment 16 by default (the fixtures' own); 0 detects it, which the
// pte-synth programs need: they align to 256, and a smaller --alignment
// that would lower a tensor's is refused.
PlanResult PlanOk(const ProgramView& view, const ShareRequest& request, Strategy strategy,
                  std::map<uint32_t, uint64_t> limits = {}, uint64_t alignment = 16) {
  PlanOptions options{strategy, alignment};
  options.arena_limits = std::move(limits);
  options.compare_strategies = true;
  return test_support::PlanVerified(view, request, options);
}

TEST(Replan, ShrinksAWastefulInputToItsLowerBound) {
  auto p = test_support::Load(KvProgram(false));
  ASSERT_TRUE(p);
  PlanResult input = PlanOk(p->view, Share({"k"}), Strategy::kReplan);
  const MethodPlan& prefill = input.plan.methods[0];
  // Front 64 + two live 64-byte tensors.
  EXPECT_EQ(prefill.arena_sizes_before, (std::vector<uint64_t>{320}));
  EXPECT_EQ(prefill.arena_sizes_relocate, (std::vector<uint64_t>{320}));
  EXPECT_EQ(prefill.arena_sizes_replan, (std::vector<std::optional<uint64_t>>{192}));
  EXPECT_EQ(prefill.arena_lower_bounds, (std::vector<uint64_t>{192}));
  EXPECT_EQ(prefill.arena_sizes_after, (std::vector<uint64_t>{192}));
  EXPECT_EQ(prefill.arena_strategies, (std::vector<Strategy>{Strategy::kReplan}));
  // x and b never live together: one of them reuses the other's bytes... and
  // so do a and c.
  EXPECT_EQ(MoveOf(input.plan, 0, 0).after.offset, MoveOf(input.plan, 0, 2).after.offset);
  EXPECT_EQ(MoveOf(input.plan, 0, 1).after.offset, MoveOf(input.plan, 0, 3).after.offset);
}

TEST(Replan, SharedBufferGoesToItsSlotAndNothingElseEntersTheFront) {
  auto p = test_support::Load(KvProgram(false));
  ASSERT_TRUE(p);
  PlanResult input = PlanOk(p->view, Share({"k"}), Strategy::kReplan);
  ASSERT_EQ(input.plan.fronts.size(), 1u);
  EXPECT_EQ(input.plan.fronts[0].size, 64u);
  EXPECT_EQ(MoveOf(input.plan, 0, 4).after.offset, 0u);  // prefill's k: 256 -> 0
  EXPECT_EQ(MoveOf(input.plan, 1, 0).after.offset, 0u);  // decode's k stays
  for (const MethodPlan& m : input.plan.methods) {
    for (const TensorMove& move : m.moves) {
      if (move.after.offset == 0) continue;  // the caches
      EXPECT_GE(move.after.offset, 64u) << m.name << " value " << move.value_index;
    }
  }
  EXPECT_EQ(input.plan.methods[1].arena_sizes_after, (std::vector<uint64_t>{192}));
}

TEST(Replan, MethodWithoutABufferStillReservesItsSlot) {
  auto p = test_support::Load(KvProgram(true));
  ASSERT_TRUE(p);
  PlanResult input = PlanOk(p->view, Share({"k", "v"}), Strategy::kReplan);
  ASSERT_EQ(input.plan.fronts.size(), 1u);
  EXPECT_EQ(input.plan.fronts[0].size, 128u);  // k [0,64), v [64,128)
  const MethodPlan& decode = input.plan.methods[1];
  EXPECT_EQ(MoveOf(input.plan, 1, 0).after.offset, 0u);
  EXPECT_GE(MoveOf(input.plan, 1, 1).after.offset, 128u);  // v's slot stays empty
  EXPECT_GE(MoveOf(input.plan, 1, 2).after.offset, 128u);
  // Front 128 + x and y, live together at the one instruction.
  EXPECT_EQ(decode.arena_sizes_after, (std::vector<uint64_t>{256}));
  EXPECT_EQ(decode.arena_lower_bounds, (std::vector<uint64_t>{256}));
  // prefill: front 128 + two live tensors.
  EXPECT_EQ(input.plan.methods[0].arena_sizes_after, (std::vector<uint64_t>{256}));
}

TEST(Replan, AliasGroupMovesRigidlyAndZeroByteTensorsFollowTheirContainer) {
  ProgramSpec spec;
  MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  ValueIndex x = At(m, 0), a = At(m, 128), y = At(m, 256);
  ValueIndex in_place = m.Add(Tensor{.sizes = {kFloats}, .memory = synth::AliasOf{a, 0}});
  ValueIndex half = At(m, 160, 8);  // a view into the second half of a
  ValueIndex empty = m.Add(Tensor{.sizes = {0}, .memory = FixedPlacement{1, 144}});
  CallOut(m, ops::kRelu, {x}, a);              // 0
  CallOut(m, ops::kAdd, {a, x}, in_place);     // 1: in place
  CallOut(m, ops::kAdd, {in_place, half}, y);  // 2
  m.inputs = {x};
  m.outputs = {y};
  auto p = test_support::Load(spec);
  ASSERT_TRUE(p);
  PlanResult input = PlanOk(p->view, Share({}), Strategy::kReplan);
  const uint64_t a_at = MoveOf(input.plan, 0, a).after.offset;
  EXPECT_EQ(MoveOf(input.plan, 0, in_place).after.offset, a_at);
  EXPECT_EQ(MoveOf(input.plan, 0, half).after.offset, a_at + 32);
  EXPECT_EQ(MoveOf(input.plan, 0, empty).after.offset, a_at + 16);
  // x [0,1] lives beside a's group [0,2]; y [2,2] takes x's bytes: 2 x 64.
  EXPECT_EQ(input.plan.methods[0].arena_sizes_after, (std::vector<uint64_t>{128}));
}

TEST(Replan, CnnWithoutStateIsReplannedWithNothingShared) {
  Result<ProgramSpec> spec = synth::SynthesizeCnn(synth::CnnConfig{});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto p = test_support::Load(*spec);
  ASSERT_TRUE(p);
  ShareRequest none;
  none.allow_none = true;
  PlanResult input = PlanOk(p->view, none, Strategy::kReplan);
  EXPECT_TRUE(input.plan.fronts.empty());
  const MethodPlan& m = input.plan.methods[0];
  EXPECT_LE(m.arena_sizes_after[0], m.arena_sizes_before[0]);
  EXPECT_GE(m.arena_sizes_after[0], m.arena_lower_bounds[0]);
  // Relocate has nothing to do without a front.
  EXPECT_EQ(m.arena_sizes_relocate, m.arena_sizes_before);
}

TEST(Replan, BestIsNeverWorseThanRelocate) {
  for (synth::LlmConfig config :
       {synth::LlmConfig{}, synth::LlmConfig{.layers = 4, .prefill_len = 100},
        synth::LlmConfig{.layers = 3, .device_arena = true},
        synth::LlmConfig{.layers = 2, .max_seq = 64, .seed = 7}}) {
    Result<ProgramSpec> spec = synth::SynthesizeLlm(config);
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    auto p = test_support::Load(*spec);
    ASSERT_TRUE(p);
    ShareRequest request;
    request.share_auto = true;
    PlanResult best = PlanOk(p->view, request, Strategy::kBest, {}, 0);
    for (const MethodPlan& m : best.plan.methods) {
      for (size_t i = 0; i < m.arena_sizes_after.size(); ++i) {
        EXPECT_LE(m.arena_sizes_after[i], m.arena_sizes_relocate[i]) << m.name << " arena " << i;
        if (m.arena_sizes_replan[i]) {
          EXPECT_EQ(m.arena_sizes_after[i],
                    std::min(m.arena_sizes_relocate[i], *m.arena_sizes_replan[i]));
        }
      }
    }
  }
}

TEST(Replan, SamePlanEveryRun) {
  Result<ProgramSpec> spec = synth::SynthesizeLlm(synth::LlmConfig{.layers = 3});
  ASSERT_TRUE(spec.ok());
  auto p = test_support::Load(*spec);
  ASSERT_TRUE(p);
  ShareRequest request;
  request.share_auto = true;
  PlanResult a = PlanOk(p->view, request, Strategy::kReplan, {}, 0);
  PlanResult b = PlanOk(p->view, request, Strategy::kReplan, {}, 0);
  for (size_t m = 0; m < a.plan.methods.size(); ++m) {
    ASSERT_EQ(a.plan.methods[m].moves.size(), b.plan.methods[m].moves.size());
    for (size_t i = 0; i < a.plan.methods[m].moves.size(); ++i) {
      EXPECT_EQ(a.plan.methods[m].moves[i].after, b.plan.methods[m].moves[i].after);
    }
  }
}

TEST(Replan, SecondRunOnItsOwnOutputChangesNothing) {
  for (Strategy strategy : {Strategy::kReplan, Strategy::kBest}) {
    Result<ProgramSpec> spec = synth::SynthesizeLlm(synth::LlmConfig{.layers = 3});
    ASSERT_TRUE(spec.ok());
    auto first = test_support::Load(*spec);
    ASSERT_TRUE(first);
    ShareRequest request;
    request.share_auto = true;
    PlanResult once = PlanOk(first->view, request, strategy, {}, 0);
    Result<PatchSet> patch = MakePatchSet(first->bytes, first->view, once.plan);
    ASSERT_TRUE(patch.ok()) << patch.error().message;
    auto second = test_support::Load(test_support::ApplyPatch(first->bytes, *patch));
    ASSERT_TRUE(second);
    PlanResult twice = PlanOk(second->view, request, strategy, {}, 0);
    for (const MethodPlan& m : twice.plan.methods) {
      EXPECT_EQ(m.arena_sizes_after, m.arena_sizes_before) << m.name;
      for (const TensorMove& move : m.moves) {
        EXPECT_FALSE(move.moved()) << m.name << " value " << move.value_index;
      }
    }
  }
}

TEST(Replan, ArenaLimitThatFitsIsMet) {
  auto p = test_support::Load(KvProgram(false));
  ASSERT_TRUE(p);
  PlanResult input = PlanOk(p->view, Share({"k"}), Strategy::kBest, {{1, 200}});
  EXPECT_TRUE(input.plan.limit_misses.empty());
  EXPECT_LE(input.plan.methods[0].arena_sizes_after[0], 200u);
}

TEST(Replan, ArenaLimitMissSaysByHowMuch) {
  auto p = test_support::Load(KvProgram(false));
  ASSERT_TRUE(p);
  PlanResult input = PlanOk(p->view, Share({"k"}), Strategy::kBest, {{1, 160}});
  ASSERT_EQ(input.plan.limit_misses.size(), 2u);  // decode needs 192 too
  EXPECT_EQ(input.plan.limit_misses[1].rfind("method decode: arena 1 needs 192 bytes", 0), 0u);
  const std::string& miss = input.plan.limit_misses[0];
  EXPECT_EQ(miss,
            "method prefill: arena 1 needs 192 bytes (relocate 320, replan 192), 32 over its "
            "limit of 160: 192 bytes of its tensors are live at once (its front region "
            "included)");
}

TEST(Replan, RelocateMissesALimitReplanWouldMeet) {
  auto p = test_support::Load(KvProgram(false));
  ASSERT_TRUE(p);
  PlanResult input = PlanOk(p->view, Share({"k"}), Strategy::kRelocate, {{1, 300}});
  ASSERT_EQ(input.plan.limit_misses.size(), 1u);
  EXPECT_EQ(input.plan.limit_misses[0],
            "method prefill: arena 1 needs 320 bytes (relocate 320), 20 over its limit of 300");
}

TEST(Replan, SharedBufferMovedToATensorOutsideItKeepsRelocate) {
  // A MoveCall from the cache to a tensor with its own bytes puts both in one
  // group, which cannot stay rigid around the cache's slot.
  ProgramSpec spec = KvProgram(false);
  MethodSpec& decode = spec.methods[1];
  ValueIndex elsewhere = At(decode, 192);
  ValueIndex out = At(decode, 256);
  decode.Emit(synth::MoveCall{0, elsewhere});
  CallOut(decode, ops::kRelu, {elsewhere}, out);
  decode.outputs = {2, out};
  auto p = test_support::Load(spec);
  ASSERT_TRUE(p);
  PlanResult input = PlanOk(p->view, Share({"k"}), Strategy::kReplan);
  EXPECT_EQ(input.plan.methods[1].arena_strategies, (std::vector<Strategy>{Strategy::kRelocate}));
  EXPECT_EQ(input.plan.methods[0].arena_strategies, (std::vector<Strategy>{Strategy::kReplan}));
  ASSERT_FALSE(input.plan.warnings.empty());
  EXPECT_EQ(input.plan.warnings.back(),
            "method decode: arena 1 keeps relocate's layout: method decode, value 3 aliases "
            "shared buffer 'k' but lies outside it");
}

}  // namespace
}  // namespace pteshare
