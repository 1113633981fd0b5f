// CheckRewrittenFile (rewrite_check.h), the writer's last word: a correct
// rewrite passes, and each way the written bytes can disagree with the
// layout the PatchSet promised or with the plan is refused in one line
// that names the thing and both numbers. The disagreements are made by
// changing the expectation (the patch, the input's layout, the plan), so
// the bytes checked are always a real rewrite.
#include "rewriter/patch/rewrite_check.h"

#include <gtest/gtest.h>

#include "tests/rewrite_fixtures.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;

std::string N(uint64_t v) { return std::to_string(v); }

// SharedCacheSpec rewritten to share the cache: the input's layout, the
// patch, the plan and the written bytes.
struct Rewritten {
  std::vector<uint8_t> before, after;
  PteLayout layout;
  Plan plan;
  PatchSet patch;
};

Rewritten RewriteSharedCache(const PlanOptions& options = {}) {
  Rewritten r;
  r.before = Build(SharedCacheSpec());
  ReadProgram in = Read(r.before);
  r.layout = in.layout;
  ShareRequest request;
  request.names = {kCacheName};
  Result<PlanResult> planned = MakePlan(in.view, request, options);
  EXPECT_TRUE(planned.ok()) << planned.error().message;
  if (!planned.ok()) return r;
  r.plan = planned->plan;
  Result<PatchSet> patch = MakePatchSet(r.before, in.view, r.plan);
  EXPECT_TRUE(patch.ok()) << patch.error().message;
  if (!patch.ok()) return r;
  r.patch = std::move(patch).value();
  r.after = ApplyPatch(r.before, r.patch);
  return r;
}

std::string Refusal(const Rewritten& r, const PteLayout& before, const PatchSet& patch,
                    const Plan& plan) {
  Status checked = CheckRewrittenFile(r.after, before, patch, plan);
  return checked.ok() ? "(passed)" : checked.error().message;
}

TEST(RewriteCheck, ARealRewritePassesAndBytesThatDoNotReadBackAreRefused) {
  const Rewritten r = RewriteSharedCache();
  ASSERT_FALSE(r.patch.empty());
  EXPECT_EQ(Refusal(r, r.layout, r.patch, r.plan), "(passed)");
  // The input itself is not the rewrite: its tensors sit where they were.
  Status input = CheckRewrittenFile(r.before, r.layout, r.patch, r.plan);
  EXPECT_FALSE(input.ok());
  const std::vector<uint8_t> cut(r.after.begin(), r.after.begin() + r.after.size() / 4);
  Status truncated = CheckRewrittenFile(cut, r.layout, r.patch, r.plan);
  ASSERT_FALSE(truncated.ok());
  EXPECT_TRUE(Contains(truncated.error().message, "the rewritten file does not read back: "))
      << truncated.error().message;
}

// The sizes and the segments, each against what the patch promised.
TEST(RewriteCheck, ALayoutOtherThanThePatchPromisedIsRefusedWithBothNumbers) {
  const Rewritten r = RewriteSharedCache();
  PatchSet patch = r.patch;
  patch.new_file_size += 4096;
  EXPECT_EQ(Refusal(r, r.layout, patch, r.plan), "the rewritten file: the file is " +
                                                     N(r.after.size()) + " bytes, expected " +
                                                     N(patch.new_file_size));
  patch = r.patch;
  patch.new_program_size += 8;
  EXPECT_EQ(Refusal(r, r.layout, patch, r.plan), "the rewritten file: program_size is " +
                                                     N(r.patch.new_program_size) + ", expected " +
                                                     N(patch.new_program_size));
  patch = r.patch;
  patch.new_segment_base_offset += 4096;
  EXPECT_EQ(Refusal(r, r.layout, patch, r.plan),
            "the rewritten file: segment_base_offset is " + N(r.patch.new_segment_base_offset) +
                ", expected " + N(patch.new_segment_base_offset));

  ASSERT_EQ(r.layout.segments.size(), 2u) << "constants and initial state";
  PteLayout before = r.layout;
  before.segments[1].file_offset -= 128;  // as if segment 1 had moved up
  const SegmentExtent& s = r.layout.segments[1];
  EXPECT_EQ(Refusal(r, before, r.patch, r.plan),
            "the rewritten file: segment 1 is at file offset " +
                N(s.file_offset + r.patch.segment_shift()) + " (" + N(s.size) +
                " bytes), expected " + N(s.file_offset - 128 + r.patch.segment_shift()) + " (" +
                N(s.size) + " bytes)");
  before = r.layout;
  before.segments.pop_back();
  const std::string lost = Refusal(r, before, r.patch, r.plan);
  EXPECT_TRUE(Contains(lost, "the segments changed: 2 segments of")) << lost;
  EXPECT_TRUE(Contains(lost, ", expected 1 of " + N(before.segment_bytes()))) << lost;
}

// What the re-read program says against the plan: the methods, the arenas
// and every planned tensor's placement.
TEST(RewriteCheck, APlanTheBytesDoNotFollowIsRefusedNamingTheMethodAndValue) {
  const Rewritten r = RewriteSharedCache();
  Plan plan = r.plan;
  plan.methods.pop_back();
  EXPECT_EQ(Refusal(r, r.layout, r.patch, plan), "the rewritten file has 2 methods, the plan 1");

  plan = r.plan;
  const uint64_t decode_arena = plan.methods[1].arena_sizes_after[0];
  plan.methods[1].arena_sizes_after[0] += 16;
  EXPECT_EQ(Refusal(r, r.layout, r.patch, plan), "the rewritten file: method decode: arena 1 is " +
                                                     N(decode_arena) + " bytes, the plan says " +
                                                     N(decode_arena + 16));
  plan = r.plan;
  plan.methods[1].arena_sizes_after.push_back(64);
  EXPECT_EQ(Refusal(r, r.layout, r.patch, plan),
            "the rewritten file: method decode has 1 arenas, the plan 2");

  plan = r.plan;
  TensorMove& z = plan.methods[1].moves.at(1);  // z, value 1
  ASSERT_EQ(z.value_index, 1u);
  const Placement written = z.after;
  z.after.offset += 64;
  EXPECT_EQ(Refusal(r, r.layout, r.patch, plan),
            "the rewritten file: method decode, value 1: arena 1 offset " + N(written.offset) +
                " (64 bytes), the plan says arena 1 offset " + N(written.offset + 64) +
                " (64 bytes)");

  // Value 4 is the constant: a plan that moves it is for another program.
  plan = r.plan;
  plan.methods[0].moves.push_back({4, {1, 0, 64}, {1, 0, 64}});
  EXPECT_EQ(Refusal(r, r.layout, r.patch, plan),
            "the rewritten file: method prefill, value 4 is no longer a planned tensor");
}

// With --layout arena the state arena must be on the plan's device in every
// method (the re-read is the only check that the device vector was right).
TEST(RewriteCheck, AStateArenaOnAnotherDeviceThanThePlanSaysIsRefused) {
  PlanOptions options;
  options.layout = Layout::kArena;
  const Rewritten r = RewriteSharedCache(options);
  ASSERT_EQ(r.plan.fronts.size(), 1u);
  ASSERT_TRUE(r.plan.fronts[0].state_arena);
  EXPECT_EQ(Refusal(r, r.layout, r.patch, r.plan), "(passed)");
  Plan plan = r.plan;
  plan.fronts[0].device = DeviceType::kCuda;
  EXPECT_EQ(Refusal(r, r.layout, r.patch, plan),
            "the rewritten file: method prefill: state arena " + N(plan.fronts[0].memory_id) +
                " is on device type 0, the plan says 1");
}

}  // namespace
}  // namespace pteshare
