// Front regions at their boundary (front_region.h): the alignment detected
// from a program, which arenas a method uses, the slots laid out per arena
// in name order, and each buffer's slot found again by (arena, name). The
// strategies that call these are tested in relocate_test.cc and
// replan_test.cc; here every number is the function's own.
#include "rewriter/plan/front_region.h"

#include <gtest/gtest.h>

#include "tests/plan_options.h"
#include "tests/program_fixture.h"

namespace pteshare {
namespace {

using synth::FixedMethod;
using test_support::Load;
using test_support::ShareNames;

TEST(FrontRegion, OffsetAlignmentIsTheLowestSetBitUpTo4096) {
  EXPECT_EQ(OffsetAlignment(0), 4096u);  // offset 0 says nothing: the most
  EXPECT_EQ(OffsetAlignment(1), 1u);
  EXPECT_EQ(OffsetAlignment(48), 16u);
  EXPECT_EQ(OffsetAlignment(3 * 4096), 4096u);
  EXPECT_EQ(OffsetAlignment(uint64_t{1} << 40), 4096u);
  EXPECT_EQ(AlignUp(0, 16), 0u);
  EXPECT_EQ(AlignUp(20, 16), 32u);
  EXPECT_EQ(AlignUp(32, 16), 32u);
}

TEST(FrontRegion, DetectedAlignmentDividesEveryNonEmptyOffsetOfEveryMethod) {
  struct Case {
    const char* what;
    std::vector<FixedMethod> methods;
    uint64_t expected;
  };
  const std::vector<Case> cases = {
      {"offsets 0 only: the most", {{"m", {{16, 1, 0}}}}, 4096},
      {"4096 and 8192", {{"m", {{16, 1, 0}, {16, 1, 4096}, {16, 1, 8192}}}}, 4096},
      // 192 alone would give 64; the other method's 64 + 32 = 96 gives 32.
      {"the smallest over methods", {{"a", {{16, 1, 0}, {16, 1, 192}}}, {"b", {{16, 1, 96}}}}, 32},
      {"never below 16", {{"m", {{8, 1, 0}, {8, 1, 8}}}}, 16},
      // The exporter puts zero-byte tensors anywhere: offset 8 is left out.
      {"zero-byte tensors left out", {{"m", {{0, 1, 8}, {64, 1, 0}, {64, 1, 256}}}}, 256},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto p = Load(c.methods);
    ASSERT_TRUE(p);
    EXPECT_EQ(DetectAlignment(p->view), c.expected);
  }
}

TEST(FrontRegion, AMethodUsesAnArenaItGivesMemoryOrPlansANonEmptyTensorIn) {
  auto p = Load(std::vector<FixedMethod>{
      // Arena 2 is listed with 0 bytes and holds only a zero-byte tensor.
      {"empty_second", {{64, 1, 0}, {0, 2, 0}}, {64, 0}},
      // Arena 2 states 0 bytes but plans 16 bytes in it (recorded, not
      // refused, by the reader): the method uses it all the same.
      {"undersized", {{64, 1, 0}, {16, 2, 0}}, {64, 0}},
  });
  ASSERT_TRUE(p);
  const MethodView& empty_second = p->view.methods[0];
  const MethodView& undersized = p->view.methods[1];
  EXPECT_TRUE(UsesArena(empty_second, 1));
  EXPECT_FALSE(UsesArena(empty_second, 2));
  EXPECT_FALSE(UsesArena(empty_second, 3)) << "no such arena";
  EXPECT_TRUE(UsesArena(undersized, 2));
}

// Shared a (arena 2), b and c (arena 1), and state p that only m1 has,
// which sharing makes m1's private state (its slot after the shared ones).
std::vector<FixedMethod> ThreeBuffersInTwoArenas() {
  return {
      {"m1",
       {{20, 1, 0, "b", true},
        {16, 1, 32, "c", true},
        {16, 1, 64, "p", true},
        {64, 1, 128},
        {64, 2, 0, "a", true}}},
      {"m2", {{16, 1, 0, "c", true}, {20, 1, 32, "b", true}, {64, 2, 0}, {64, 2, 64, "a", true}}},
  };
}

TEST(FrontRegion, OneRegionPerArenaInIdOrderWithAlignedSlotsInNameOrder) {
  auto p = Load(ThreeBuffersInTwoArenas());
  ASSERT_TRUE(p);
  Result<SharedBufferSet> shared = ChooseSharedBuffers(p->view, ShareNames({"c", "a", "b"}));
  ASSERT_TRUE(shared.ok()) << shared.error().message;
  const std::vector<FrontRegion> fronts = LayOutFrontRegions(*shared, 32);
  ASSERT_EQ(fronts.size(), 2u);
  const FrontRegion& one = fronts[0];
  EXPECT_EQ(one.memory_id, 1u);
  ASSERT_EQ(one.slots.size(), 3u);
  // b: 20 bytes in a 32-byte slot; c after it; then m1's private p.
  EXPECT_EQ(one.slots[0].name, "b");
  EXPECT_EQ(one.slots[0].offset, 0u);
  EXPECT_EQ(one.slots[0].nbytes, 20u);
  EXPECT_EQ(one.slots[0].slot_bytes, 32u);
  EXPECT_EQ(one.slots[1].name, "c");
  EXPECT_EQ(one.slots[1].offset, 32u);
  EXPECT_EQ(one.slots[2].offset, 64u);
  EXPECT_TRUE(one.slots[2].private_state);
  EXPECT_FALSE(one.slots[0].private_state || one.slots[1].private_state);
  EXPECT_EQ(one.private_slots(), 1u);
  EXPECT_EQ(one.size, 96u);
  for (const FrontSlot& s : one.slots) EXPECT_EQ(s.source_memory_id, 1u) << s.name;
  const FrontRegion& two = fronts[1];
  EXPECT_EQ(two.memory_id, 2u);
  ASSERT_EQ(two.slots.size(), 1u);
  EXPECT_EQ(two.slots[0].name, "a");
  EXPECT_EQ(two.size, 64u);
  EXPECT_FALSE(two.state_arena);

  // AppendSlot goes on after the last slot, keeping the alignment.
  FrontRegion grown = two;
  AppendSlot(shared->buffers[1], 32, &grown);  // b, 20 bytes
  EXPECT_EQ(grown.slots.back().offset, 64u);
  EXPECT_EQ(grown.size, 96u);
}

TEST(FrontRegion, EachBufferFindsItsSlotByArenaAndNameOrNone) {
  auto p = Load(ThreeBuffersInTwoArenas());
  ASSERT_TRUE(p);
  Result<SharedBufferSet> shared = ChooseSharedBuffers(p->view, ShareNames({"a", "b", "c"}));
  ASSERT_TRUE(shared.ok()) << shared.error().message;
  const std::vector<FrontRegion> fronts = LayOutFrontRegions(*shared, 16);
  const std::vector<BufferSlot> slots = FindBufferSlots(*shared, fronts);
  ASSERT_EQ(slots.size(), shared->buffers.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    const SharedBuffer& b = shared->buffers[i];
    ASSERT_NE(slots[i].slot, nullptr) << b.name;
    EXPECT_EQ(slots[i].slot->name, b.name);
    EXPECT_EQ(slots[i].region->memory_id, b.memory_id) << b.name;
  }

  // A slot of the same name taking a buffer of another arena is not its
  // slot; without its region a buffer has none.
  std::vector<FrontRegion> other = {fronts[0]};
  other[0].slots[0].source_memory_id = 2;  // b's slot now claims a buffer of arena 2
  const std::vector<BufferSlot> found = FindBufferSlots(*shared, other);
  EXPECT_EQ(found[0].slot, nullptr) << "a: its arena's region is gone";
  EXPECT_EQ(found[1].slot, nullptr) << "b: the slot now takes a buffer of arena 2";
  EXPECT_EQ(found[2].slot, &other[0].slots[1]) << "c: unchanged";

  // Two regions with a slot for one buffer: the first in region order.
  std::vector<FrontRegion> twice = {fronts[1], fronts[1]};
  const std::vector<BufferSlot> first = FindBufferSlots(*shared, twice);
  EXPECT_EQ(first[0].region, &twice[0]);
}

TEST(FrontRegion, InAStateArenaTheSlotIsFoundByTheArenaTheBufferLeaves) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  PlanOptions options = WithStrategy(Strategy::kRelocate, 16);
  options.layout = Layout::kArena;
  Result<PlanResult> made = MakePlan(p->view, ShareNames({"k", "v"}), options);
  ASSERT_TRUE(made.ok()) << made.error().message;
  const std::vector<BufferSlot> slots = FindBufferSlots(made->shared, made->plan.fronts);
  ASSERT_EQ(slots.size(), 2u);
  for (const BufferSlot& s : slots) {
    ASSERT_NE(s.slot, nullptr);
    EXPECT_TRUE(s.region->state_arena);
    EXPECT_EQ(s.region->memory_id, 2u);  // the new arena
    EXPECT_EQ(s.slot->source_memory_id, 1u);
  }
  EXPECT_EQ(slots[1].slot->offset, 64u);  // v after k
}

}  // namespace
}  // namespace pteshare
