// The exporter-like planner places tensors exactly where ExecuTorch's
// greedy memory planner would, on small hand-worked examples; and the
// method planner derives lifetimes the way the exporter does.
#include "tools/synth/exporter_greedy.h"

#include <gtest/gtest.h>

#include "tools/synth/method_planner.h"
#include "tools/synth/operators.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare::synth {
namespace {

constexpr uint64_t kAlignment = 16;

GreedyRequest Req(uint64_t nbytes, int32_t first, int32_t last) {
  return GreedyRequest{nbytes, Lifetime{first, last}};
}

TEST(ExporterGreedy, LifetimeDisjointTensorsShareOffsetZero) {
  GreedyPlan plan = PlanGreedy({Req(32, 0, 1), Req(32, 2, 3)}, kAlignment);
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 0}));
  EXPECT_EQ(plan.arena_size, 32u);
}

TEST(ExporterGreedy, LifetimesTouchingAtOneInstructionOverlap) {
  // [0,1] and [1,2] share instruction 1: closed intervals, as in ET.
  GreedyPlan plan = PlanGreedy({Req(32, 0, 1), Req(32, 1, 2)}, kAlignment);
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 32}));
  EXPECT_EQ(plan.arena_size, 64u);
}

TEST(ExporterGreedy, LargestTensorIsPlacedFirstWhateverTheRequestOrder) {
  GreedyPlan plan = PlanGreedy({Req(16, 0, 3), Req(64, 0, 3)}, kAlignment);
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{64, 0}));
  EXPECT_EQ(plan.arena_size, 80u);
}

TEST(ExporterGreedy, EqualSizesKeepRequestOrder) {
  GreedyPlan plan = PlanGreedy({Req(48, 0, 3), Req(48, 0, 3), Req(48, 0, 3)}, kAlignment);
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 48, 96}));
}

TEST(ExporterGreedy, SizesRoundUpToTheAlignment) {
  GreedyPlan plan = PlanGreedy({Req(10, 0, 1), Req(20, 0, 1)}, kAlignment);
  // 20 -> 32 first at 0; 10 -> 16 does not fit above it in a 32-byte
  // bucket, so it opens a second bucket at 32.
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{32, 0}));
  EXPECT_EQ(plan.arena_size, 48u);
}

TEST(ExporterGreedy, SmallTensorStacksAboveLiveTenantWhenBucketHasRoom) {
  // A (128, [0,0]) opens bucket 0. B (64, [1,2]) is disjoint from A: offset
  // 0. C (32, [2,3]) overlaps B, fits above it: 64 + 32 <= 128.
  GreedyPlan plan = PlanGreedy({Req(128, 0, 0), Req(64, 1, 2), Req(32, 2, 3)}, kAlignment);
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 0, 64}));
  EXPECT_EQ(plan.arena_size, 128u);
}

TEST(ExporterGreedy, TensorThatFitsNowhereOpensBucketAfterTheOthers) {
  // A (64, [0,3]) bucket 0; B (64, [0,3]) cannot stack (64 + 64 > 64):
  // bucket 1 at 64; C (16, [4,4]) is disjoint from A: bucket 0 offset 0.
  GreedyPlan plan = PlanGreedy({Req(64, 0, 3), Req(64, 0, 3), Req(16, 4, 4)}, kAlignment);
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 64, 0}));
  EXPECT_EQ(plan.arena_size, 128u);
}

TEST(ExporterGreedy, ZeroByteTensorLandsOnTopOfALiveTenant) {
  // Z (0 bytes) overlaps A in bucket 0 and B in bucket 1; ET stacks it at
  // the top of A (64 + 0 <= 64), i.e. inside the arena's used range.
  GreedyPlan plan = PlanGreedy({Req(64, 0, 3), Req(32, 0, 3), Req(0, 1, 1)}, kAlignment);
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 64, 64}));
  EXPECT_EQ(plan.arena_size, 96u);
}

TEST(ExporterGreedy, ZeroByteTensorTakesOffsetZeroOfAFreeBucket) {
  GreedyPlan plan = PlanGreedy({Req(64, 0, 0), Req(0, 2, 2)}, kAlignment);
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 0}));
  EXPECT_EQ(plan.arena_size, 64u);
}

// ---- Lifetimes and alias handling through PlanMethod ----------------------

/// x -> a = x + x -> b = a + a -> c = b + b (all 64 bytes).
struct Chain3 {
  MethodSpec method;
  ValueIndex x, a, b, c;
  Chain3() {
    method.name = "chain";
    x = AddActivation(method, {16});
    a = AddActivation(method, {16});
    b = AddActivation(method, {16});
    c = AddActivation(method, {16});
    CallOut(method, ops::kAdd, {x, x}, a);  // 0
    CallOut(method, ops::kAdd, {a, a}, b);  // 1
    CallOut(method, ops::kAdd, {b, b}, c);  // 2
    method.inputs = {x};
    method.outputs = {c};
  }
  uint64_t OffsetOf(const MethodPlacements& p, ValueIndex v) { return p.by_value[v]->offset; }
};

TEST(ExporterPlan, ChainReusesMemoryOfDeadActivations) {
  Chain3 chain;
  // Lifetimes x[0,0] a[0,1] b[1,2] c[2,2]: x and b share, a and c share.
  Result<MethodPlacements> plan = PlanMethod(chain.method, kAlignment);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(chain.OffsetOf(*plan, chain.x), 0u);
  EXPECT_EQ(chain.OffsetOf(*plan, chain.a), 64u);
  EXPECT_EQ(chain.OffsetOf(*plan, chain.b), 0u);
  EXPECT_EQ(chain.OffsetOf(*plan, chain.c), 64u);
  EXPECT_EQ(plan->non_const_buffer_sizes, (std::vector<int64_t>{0, 128}));
}

TEST(ExporterPlan, MutableBufferLivesForTheWholeMethod) {
  Chain3 chain;
  Tensor state;
  state.sizes = {32};  // 128 bytes: planned first
  state.fully_qualified_name = "state";
  ValueIndex s = chain.method.Add(state);
  Result<MethodPlacements> plan = PlanMethod(chain.method, kAlignment);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(chain.OffsetOf(*plan, s), 0u);
  EXPECT_EQ(chain.OffsetOf(*plan, chain.x), 128u);
  EXPECT_EQ(plan->non_const_buffer_sizes[1], 256);
}

TEST(ExporterPlan, AliasUseExtendsItsBaseLifetimeAndSharesItsPlacement) {
  Chain3 chain;
  // A view of x used by the last instruction keeps x alive to the end, so
  // x can no longer share b's slot.
  ValueIndex x_view = AddAlias(chain.method, chain.x, {4, 4});
  ValueIndex d = AddActivation(chain.method, {16});
  CallOut(chain.method, ops::kAdd, {x_view, chain.c}, d);  // 3
  Result<MethodPlacements> plan = PlanMethod(chain.method, kAlignment);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->by_value[x_view], plan->by_value[chain.x]);
  EXPECT_NE(chain.OffsetOf(*plan, chain.x), chain.OffsetOf(*plan, chain.b));
}

TEST(ExporterPlan, ValueUsedInsideBackwardLoopLivesAcrossTheWholeLoop) {
  Chain3 chain;
  // Jump from 3 back to 1: x (last used at 0) is outside the loop, but a
  // (used at 0..1) is inside, so it lives to 3 and overlaps c.
  ValueIndex again = AddBool(chain.method, false);
  chain.method.Emit(JumpFalseCall{again, 1});  // 3
  Result<MethodPlacements> plan = PlanMethod(chain.method, kAlignment);
  ASSERT_TRUE(plan.ok());
  EXPECT_NE(chain.OffsetOf(*plan, chain.a), chain.OffsetOf(*plan, chain.c));
  EXPECT_NE(chain.OffsetOf(*plan, chain.a), chain.OffsetOf(*plan, chain.b));
  std::vector<Lifetime> lifetimes = ComputeValueLifetimes(chain.method);
  EXPECT_EQ(lifetimes[chain.x].last, 0);
  EXPECT_EQ(lifetimes[chain.a].first, 0);
  EXPECT_EQ(lifetimes[chain.a].last, 3);
}

TEST(ExporterPlan, TensorListItemsLiveWhereTheListIsUsed) {
  Chain3 chain;
  ValueIndex list = chain.method.Add(TensorList{{chain.x}});
  ValueIndex out = AddActivation(chain.method, {16});
  CallOut(chain.method, ops::kCat, {list, AddInt(chain.method, 0)}, out);  // 3
  std::vector<Lifetime> lifetimes = ComputeValueLifetimes(chain.method);
  EXPECT_EQ(lifetimes[chain.x].first, 0);
  EXPECT_EQ(lifetimes[chain.x].last, 3);
}

TEST(ExporterPlan, FixedPlacementIsKeptAndWidensTheArena) {
  Chain3 chain;
  Tensor pinned;
  pinned.sizes = {4};
  pinned.memory = FixedPlacement{3, 1000};
  ValueIndex p = chain.method.Add(pinned);
  Result<MethodPlacements> plan = PlanMethod(chain.method, kAlignment);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(*plan->by_value[p], (ResolvedPlacement{3, 1000, 16}));
  EXPECT_EQ(plan->non_const_buffer_sizes, (std::vector<int64_t>{0, 128, 0, 1016}));
}

TEST(ExporterPlan, AliasCycleIsRefused) {
  MethodSpec method;
  method.name = "cycle";
  method.Add(Tensor{.sizes = {4}, .memory = AliasOf{1, 0}});
  method.Add(Tensor{.sizes = {4}, .memory = AliasOf{0, 0}});
  Result<MethodPlacements> plan = PlanMethod(method, kAlignment);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message, "method cycle, value 0: alias chain has a cycle");
}

}  // namespace
}  // namespace pteshare::synth
