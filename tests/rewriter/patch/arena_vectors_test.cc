// Growing a method's arena vectors (arena_vectors.h), on its own: which
// methods grow, the appended non_const_buffer_sizes and
// non_const_buffer_device vectors read through the generated accessors
// once the ExecutionPlan fields are repointed, their alignment by file
// offset from an unaligned start, and the two refusals with the method and
// the arena named. The whole patch with new arenas, read back by the
// reader, is state_arena_test.cc's.
#include "rewriter/patch/arena_vectors.h"

#include <gtest/gtest.h>

#include <set>

#include "rewriter/program/program_tables.h"
#include "tests/plan_options.h"
#include "tests/program_fixture.h"
#include "wire.h"

namespace pteshare {
namespace {

using synth::FixedMethod;
using test_support::Load;

constexpr uint32_t kCuda = 2;  // memory_id of the device arena in these programs

Plan ArenaPlan(const ProgramView& view, std::vector<std::string> names) {
  PlanOptions options = WithStrategy(Strategy::kRelocate, 16);
  options.layout = Layout::kArena;
  options.own_loader = true;  // the layout's mechanics, not Module's limits
  ShareRequest request;
  request.names = std::move(names);
  return test_support::PlanVerified(view, request, options).plan;
}

// A method's plan that gives it `arena_sizes` and moves nothing.
MethodPlan ArenasOf(std::string name, uint32_t method_index, std::vector<uint64_t> arena_sizes) {
  MethodPlan m;
  m.name = std::move(name);
  m.method_index = method_index;
  m.arena_sizes_after = std::move(arena_sizes);
  return m;
}

// `file`, `filler` bytes that are no part of it, then the appended bytes
// (built for that start), with the overwrites applied: the ExecutionPlans
// now reach the new vectors through their own accessors.
struct Spliced {
  std::vector<uint8_t> bytes;
  uint64_t start = 0;
  GrownArenaVectors grown;
};

Spliced Splice(const std::vector<uint8_t>& file, const ProgramView& view, const Plan& plan,
               size_t filler) {
  Spliced s;
  s.bytes = file;
  s.bytes.resize(file.size() + filler, 0xEE);
  s.start = s.bytes.size();
  Result<GrownArenaVectors> grown = BuildGrownArenaVectors(file, view, plan, s.start);
  EXPECT_TRUE(grown.ok()) << grown.error().message;
  if (!grown.ok()) return s;
  s.grown = std::move(grown).value();
  s.bytes.insert(s.bytes.end(), s.grown.bytes.begin(), s.grown.bytes.end());
  for (const ByteOverwrite& w : s.grown.overwrites) {
    EXPECT_LT(w.end(), file.size()) << "only fields of the flatbuffer are overwritten";
    std::copy(w.bytes.begin(), w.bytes.end(), s.bytes.begin() + static_cast<ptrdiff_t>(w.offset));
  }
  return s;
}

uint64_t OffsetIn(const std::vector<uint8_t>& bytes, const void* p) {
  return static_cast<uint64_t>(static_cast<const uint8_t*>(p) - bytes.data());
}

// prefill: act, k, v, act; decode: k, v, act; all on the CPU in arena 1.
std::vector<FixedMethod> TwoMethodsSharingKV() {
  return {
      {"prefill", {{128, 1, 0}, {64, 1, 128, "k", true}, {64, 1, 192, "v", true}, {64, 1, 256}}},
      {"decode", {{64, 1, 0, "k", true}, {64, 1, 64, "v", true}, {32, 1, 128}}},
  };
}

TEST(ArenaVectors, OnlyAPlanWithMoreArenasThanTheMethodHasGrowsIt) {
  auto p = Load(TwoMethodsSharingKV());
  ASSERT_NE(p, nullptr);
  MethodPlan same = ArenasOf("decode", 1, {160});
  EXPECT_FALSE(GrowsArenas(p->view, same));
  MethodPlan fewer = same;
  fewer.arena_sizes_after.clear();
  EXPECT_FALSE(GrowsArenas(p->view, fewer));
  MethodPlan more = same;
  more.arena_sizes_after = {32, 128};
  EXPECT_TRUE(GrowsArenas(p->view, more));

  // A plan that adds nothing appends nothing.
  Plan plan;
  plan.methods = {same};
  Result<GrownArenaVectors> grown = BuildGrownArenaVectors(p->bytes, p->view, plan, 4096);
  ASSERT_TRUE(grown.ok()) << grown.error().message;
  EXPECT_TRUE(grown->bytes.empty());
  EXPECT_TRUE(grown->overwrites.empty());
  EXPECT_EQ(grown->vectors_appended, 0u);
}

// A CPU state arena: a longer non_const_buffer_sizes per method (entry 0
// kept, then every size of the plan), int64s on a multiple of 8 whatever
// the start, and no device vector (an arena without an entry is on the CPU).
TEST(ArenaVectors, NewSizesVectorsKeepEntryZeroAndAlignTheirElementsByFileOffset) {
  auto p = Load(TwoMethodsSharingKV());
  ASSERT_NE(p, nullptr);
  const Plan plan = ArenaPlan(p->view, {"k", "v"});
  for (size_t filler : {0, 1, 3, 5}) {
    SCOPED_TRACE("start " + std::to_string(p->bytes.size() + filler));
    const Spliced s = Splice(p->bytes, p->view, plan, filler);
    EXPECT_EQ(s.grown.vectors_appended, 2u);
    ASSERT_EQ(s.grown.overwrites.size(), 2u);
    for (const MethodView& m : p->view.methods) {
      const fb::ExecutionPlan& table = PlanTable(ProgramTable(s.bytes), m);
      const auto* sizes = table.non_const_buffer_sizes();
      ASSERT_NE(sizes, nullptr);
      EXPECT_GE(OffsetIn(s.bytes, sizes), s.start) << m.name << ": repointed to the new vector";
      EXPECT_EQ(OffsetIn(s.bytes, sizes->Data()) % 8, 0u) << m.name;
      const std::vector<uint64_t>& after = plan.methods[m.index].arena_sizes_after;
      ASSERT_EQ(sizes->size(), after.size() + 1) << m.name;
      EXPECT_EQ(sizes->Get(0),
                PlanTable(ProgramTable(p->bytes), m).non_const_buffer_sizes()->Get(0));
      for (size_t a = 0; a < after.size(); ++a) {
        EXPECT_EQ(static_cast<uint64_t>(sizes->Get(static_cast<flatbuffers::uoffset_t>(a + 1))),
                  after[a])
            << m.name << " arena " << a + 1;
      }
      EXPECT_EQ(table.non_const_buffer_device(), nullptr) << m.name;
    }
  }
}

// A state arena off the CPU: each method's device vector is its old entries
// then the new arena's, as tables that store every field and share one
// appended vtable.
TEST(ArenaVectors, ADeviceArenaExtendsEachDeviceVectorWithTablesSharingOneVtable) {
  const synth::ArenaDevice cuda{kCuda, fb::DeviceType::CUDA, 0};
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
  ASSERT_NE(p, nullptr);
  const Plan plan = ArenaPlan(p->view, {"k", "v"});
  ASSERT_EQ(plan.fronts.size(), 1u);
  const uint32_t state_arena = plan.fronts[0].memory_id;
  const Spliced s = Splice(p->bytes, p->view, plan, 2);
  EXPECT_EQ(s.grown.vectors_appended, 4u) << "sizes and devices of both methods";
  std::set<uint64_t> vtables;
  for (const MethodView& m : p->view.methods) {
    const auto* devices = PlanTable(ProgramTable(s.bytes), m).non_const_buffer_device();
    ASSERT_NE(devices, nullptr);
    EXPECT_GE(OffsetIn(s.bytes, devices), s.start) << m.name;
    ASSERT_EQ(devices->size(), 2u) << m.name;
    EXPECT_EQ(devices->Get(0)->buffer_idx(), static_cast<int32_t>(kCuda)) << "the old entry first";
    EXPECT_EQ(devices->Get(1)->buffer_idx(), static_cast<int32_t>(state_arena));
    for (const fb::NonConstBufferDevice* d : *devices) {
      EXPECT_EQ(d->device_type(), fb::DeviceType::CUDA) << m.name;
      EXPECT_EQ(d->device_index(), 0) << m.name;
      const auto& table = *reinterpret_cast<const flatbuffers::Table*>(d);
      EXPECT_NE(table.GetAddressOf(fb::NonConstBufferDevice::VT_DEVICE_TYPE), nullptr)
          << "every field stored, so a later rewrite can overwrite it in place";
      EXPECT_NE(table.GetAddressOf(fb::NonConstBufferDevice::VT_DEVICE_INDEX), nullptr);
      vtables.insert(OffsetIn(s.bytes, table.GetVTable()));
    }
  }
  ASSERT_EQ(vtables.size(), 1u);
  EXPECT_GE(*vtables.begin(), s.start) << "the one vtable is appended too";
}

// A vector cannot grow in place, and a field the ExecutionPlan does not
// store cannot be repointed: such a method is refused, named.
TEST(ArenaVectors, AMethodWithoutTheFieldToRepointIsRefusedNamingIt) {
  const synth::ArenaDevice cuda{kCuda, fb::DeviceType::CUDA, 0};
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0}, {64, kCuda, 0, "k", true}}, {}, {cuda}},
      {"decode", {{64, 1, 0}}},
  });
  ASSERT_NE(p, nullptr);
  const Plan plan = ArenaPlan(p->view, {"k"});
  ASSERT_EQ(plan.fronts.size(), 1u);
  Result<GrownArenaVectors> grown = BuildGrownArenaVectors(p->bytes, p->view, plan, 4096);
  ASSERT_FALSE(grown.ok());
  EXPECT_EQ(grown.error().message,
            "method decode stores no non_const_buffer_device, so its new "
            "arena " +
                std::to_string(plan.fronts[0].memory_id) +
                " cannot be marked as on a device; use --layout front");

  // A method whose non_const_buffer_sizes is empty has no entry 0 to keep.
  synth::ProgramSpec spec = synth::FixedLayoutSpec({{"forward", {{64, 1, 0}}}});
  synth::MethodSpec& empty = spec.methods.emplace_back();
  empty.name = "init";
  empty.non_const_buffer_sizes = std::vector<int64_t>{};
  auto q = Load(spec);
  ASSERT_NE(q, nullptr);
  Plan by_hand;
  by_hand.methods = {ArenasOf("init", 1, {0, 64})};
  grown = BuildGrownArenaVectors(q->bytes, q->view, by_hand, 4096);
  ASSERT_FALSE(grown.ok());
  EXPECT_EQ(grown.error().message,
            "method init stores no non_const_buffer_sizes, so the state arena cannot be added to "
            "it; use --layout front");
}

}  // namespace
}  // namespace pteshare
