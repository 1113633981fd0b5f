// Patcher: each way a placement gets onto the wire (in place, appended
// tables within the slack, a segment move, a file without extended header,
// 64-bit offsets), checked by re-reading the patched bytes, diffing them
// against the expected ranges and hashing the segments.
#include "rewriter/patch/patcher.h"
#include "rewriter/program/program_tables.h"

#include <gtest/gtest.h>

#include "rewriter/patch/rewrite_check.h"
#include "tests/rewrite_fixtures.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;

struct Patched {
  std::vector<uint8_t> before, after;
  Plan plan;
  PatchSet patch;
};

Patched PatchAndCheck(const std::vector<uint8_t>& before) {
  Patched p;
  p.before = before;
  ReadProgram in = Read(before);
  p.plan = PlanSharing(in.view);
  Result<PatchSet> patch = MakePatchSet(before, in.view, p.plan);
  EXPECT_TRUE(patch.ok()) << patch.error().message;
  if (!patch.ok()) return p;
  p.patch = std::move(patch).value();
  p.after = ApplyPatch(before, p.patch);
  Status checked = CheckRewrittenFile(p.after, in.layout, p.patch, p.plan);
  EXPECT_TRUE(checked.ok()) << checked.error().message;
  return p;
}

// The bytes of each field of the tables of `tensors` (by file offset): the
// only places a patch without appended tables may change, with the arena
// size entries.
std::vector<std::pair<uint64_t, uint64_t>> FieldRanges(const std::vector<uint8_t>& bytes) {
  ReadProgram in = Read(bytes);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const MethodView& m : in.view.methods) {
    for (const TensorValue& t : m.tensors) {
      const auto* table = reinterpret_cast<const flatbuffers::Table*>(
          TensorTable(ProgramTable(bytes), m, t).allocation_info());
      if (table == nullptr) continue;
      for (auto field :
           {fb::AllocationDetails::VT_MEMORY_ID, fb::AllocationDetails::VT_MEMORY_OFFSET_LOW,
            fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH}) {
        if (const uint8_t* at = table->GetAddressOf(field)) {
          ranges.push_back({static_cast<uint64_t>(at - bytes.data()), 4});
        }
      }
    }
    const auto* sizes = PlanTable(ProgramTable(bytes), m).non_const_buffer_sizes();
    ranges.push_back(
        {static_cast<uint64_t>(reinterpret_cast<const uint8_t*>(sizes->Data()) - bytes.data()),
         8 * sizes->size()});
  }
  return ranges;
}

TEST(Patcher, CompleteTablesArePatchedInPlaceAndNothingElseChanges) {
  b::BuildOptions options;
  options.force_defaults = true;
  Patched p = PatchAndCheck(Build(SharedCacheSpec(), options));
  EXPECT_TRUE(p.patch.appended.empty());
  EXPECT_EQ(p.patch.tables_appended, 0u);
  EXPECT_FALSE(p.patch.segments_move());
  EXPECT_EQ(p.patch.new_file_size, p.patch.old_file_size);
  EXPECT_GT(p.patch.fields_overwritten, 0u);
  const auto ranges = FieldRanges(p.before);
  for (uint64_t offset : DifferingOffsets(p.before, p.after)) {
    bool expected = std::any_of(ranges.begin(), ranges.end(), [&](const auto& r) {
      return offset >= r.first && offset < r.first + r.second;
    });
    EXPECT_TRUE(expected) << "byte " << offset << " changed outside every allocation field";
  }
  ExpectSegmentsKept(p.before, p.after);
}

// Issue 23: fields unknown to the schema (a newer exporter's) on a table
// the rewrite repointed a tensor away from, or copied for --write-names,
// were silently dropped. Now a table that only changes in place keeps them;
// the rest is refused as bad input, naming the table and the field.
TEST(Patcher, TablesWithFieldsTheSchemaDoesNotKnowAreKeptInPlaceOrRefused) {
  b::BuildOptions complete;
  complete.force_defaults = true;
  complete.newer_exporter_fields = true;
  Patched p = PatchAndCheck(Build(SharedCacheSpec(), complete));
  EXPECT_EQ(p.patch.tensors_repointed, 0u) << "complete tables are overwritten in place";
  EXPECT_GT(p.patch.fields_overwritten, 0u);

  b::BuildOptions exporter;
  exporter.segment_alignment = 4096;
  exporter.newer_exporter_fields = true;
  const std::vector<uint8_t> bytes = Build(SharedCacheSpec(), exporter);
  ReadProgram in = Read(bytes);
  const Plan plan = PlanSharing(in.view);
  Result<PatchSet> repointing = MakePatchSet(bytes, in.view, plan);
  ASSERT_FALSE(repointing.ok()) << "the plan points z at another table";
  EXPECT_EQ(repointing.error().kind, ErrorKind::kBadInput);
  EXPECT_TRUE(
      Contains(repointing.error().message, "stores field 3, which pteshare's schema does not know"))
      << repointing.error().message;

  ReadProgram complete_in = Read(p.before);
  uint32_t cache = 0;
  for (const TensorValue& t : complete_in.view.methods[0].tensors) {
    if (t.name == kCacheName) cache = t.value_index;
  }
  Result<PatchSet> naming =
      MakePatchSet(p.before, complete_in.view, p.plan, {TensorName{0, cache, "kv"}});
  ASSERT_FALSE(naming.ok()) << "--write-names would copy the Tensor table without its field";
  EXPECT_EQ(naming.error().kind, ErrorKind::kBadInput);
  EXPECT_TRUE(Contains(naming.error().message, "Tensor table at offset")) << naming.error().message;
  EXPECT_TRUE(Contains(naming.error().message, "stores field 10")) << naming.error().message;
}

TEST(Patcher, MissingFieldsGetOneAppendedTableSharedAcrossMethodsWithinTheSlack) {
  b::BuildOptions options;
  options.segment_alignment = 4096;  // slack of several hundred bytes
  Patched p = PatchAndCheck(Build(SharedCacheSpec(), options));
  // z moves 0 -> 1024 in both methods; its low word is absent on the wire.
  EXPECT_EQ(p.patch.tables_appended, 1u);
  EXPECT_EQ(p.patch.tensors_repointed, 2u);
  const uint64_t padding = (4 - p.patch.old_program_size % 4) % 4;
  // One {memory_id, low} table of 12 bytes, sharing the vtable x's table has.
  EXPECT_EQ(p.patch.appended.size(), padding + 12);
  ASSERT_GE(p.patch.old_segment_base_offset, p.patch.new_program_size) << "fixture needs slack";
  EXPECT_FALSE(p.patch.segments_move());
  EXPECT_EQ(p.patch.new_file_size, p.patch.old_file_size);
  ExpectSegmentsKept(p.before, p.after);
  // Every byte that changed lies in the flatbuffer or the appended bytes.
  for (uint64_t offset : DifferingOffsets(p.before, p.after)) {
    EXPECT_LT(offset, p.patch.new_program_size);
  }
}

// The shift is the smallest whole multiple of 4096 that makes room: every
// segment keeps its alignment, and -o and --in-place (by inserting a range
// or by copying) agree whatever the filesystem.
TEST(Patcher, AppendedBytesBeyondTheSlackMoveTheSegmentsByWholePages) {
  b::BuildOptions options;
  options.segment_alignment = 4;  // at most 3 bytes of slack
  Patched p = PatchAndCheck(Build(SharedCacheSpec(), options));
  ASSERT_TRUE(p.patch.segments_move());
  uint64_t alignment = SegmentAlignment(p.patch.old_segment_base_offset);
  for (const SegmentExtent& s : Read(p.before).layout.segments) {
    alignment = std::max(alignment, SegmentAlignment(s.file_offset));
  }
  const uint64_t need = p.patch.new_program_size - p.patch.old_segment_base_offset;
  EXPECT_EQ(p.patch.segment_shift() % alignment, 0u);
  EXPECT_EQ(p.patch.segment_shift() % kSegmentShiftUnit, 0u);
  EXPECT_LT(p.patch.segment_shift() - need, kSegmentShiftUnit) << "not the smallest shift";
  EXPECT_EQ(p.patch.new_file_size, p.patch.old_file_size + p.patch.segment_shift());
  ExpectSegmentsKept(p.before, p.after);
}

TEST(Patcher, FileWithoutExtendedHeaderSimplyGrows) {
  b::BuildOptions options;
  options.extended_header = false;
  Patched p = PatchAndCheck(Build(SharedCacheSpec(0, /*with_segments=*/false), options));
  EXPECT_EQ(p.patch.tables_appended, 1u);
  EXPECT_EQ(p.patch.new_program_size, p.patch.old_program_size + p.patch.appended.size());
  EXPECT_EQ(p.patch.new_file_size, p.patch.new_program_size);
  EXPECT_EQ(p.after.size(), p.patch.new_file_size);
}

TEST(Patcher, OffsetsBeyondFourGiBPatchTheHighWord) {
  Patched p = PatchAndCheck(Build(SharedCacheSpec(kFiveGiB)));
  ReadProgram out = Read(p.after);
  const TensorValue* cache = out.view.methods[0].tensor(0);
  const TensorValue* x = out.view.methods[0].tensor(2);
  ASSERT_TRUE(cache && x);
  EXPECT_EQ(cache->placement.offset, 0u);  // high word overwritten with 0
  EXPECT_EQ(x->placement.offset, kFiveGiB + 2048);
  EXPECT_EQ(out.view.methods[1].tensor(0)->placement.offset, 0u);
  ExpectSegmentsKept(p.before, p.after);
}

TEST(Patcher, RewritingTheResultWithTheSameOptionsIsEmpty) {
  for (bool force_defaults : {false, true}) {
    b::BuildOptions options;
    options.force_defaults = force_defaults;
    Patched first = PatchAndCheck(Build(SharedCacheSpec(), options));
    Patched second = PatchAndCheck(first.after);
    EXPECT_TRUE(second.patch.empty()) << second.patch.overwrites.size() << " overwrites";
    EXPECT_EQ(second.after, first.after);
  }
}

TEST(Patcher, SamePlanGivesTheSamePatch) {
  std::vector<uint8_t> bytes = Build(SharedCacheSpec());
  Patched a = PatchAndCheck(bytes), b = PatchAndCheck(bytes);
  EXPECT_EQ(a.patch.overwrites, b.patch.overwrites);
  EXPECT_EQ(a.patch.appended, b.patch.appended);
}

// After one rewrite, prefill's and decode's z share one appended table. A
// plan that sends only prefill's z elsewhere must not change decode's z: it
// gets a new table (sharing an existing vtable), the shared table stays as
// it is.
TEST(Patcher, SharedTableIsNotOverwrittenWhenItsTensorsDisagree) {
  Patched first = PatchAndCheck(Build(SharedCacheSpec()));
  ReadProgram in = Read(first.after);
  const TensorValue* prefill_z = in.view.methods[0].tensor(1);
  const TensorValue* decode_z = in.view.methods[1].tensor(1);
  const fb::Program& program = ProgramTable(first.after);
  ASSERT_EQ(TensorTable(program, in.view.methods[0], *prefill_z).allocation_info(),
            TensorTable(program, in.view.methods[1], *decode_z).allocation_info());

  Plan plan;
  for (const MethodView& m : in.view.methods) {
    MethodPlan mp;
    mp.name = m.name;
    mp.method_index = m.index;
    for (const Arena& a : m.arenas) mp.arena_sizes_before.push_back(a.size);
    mp.arena_sizes_after = mp.arena_sizes_before;
    for (const TensorValue& t : m.tensors) {
      if (!t.planned) continue;
      TensorMove move{t.value_index, t.placement, t.placement};
      if (m.index == 0 && t.value_index == 1) move.after.offset = 3968;
      mp.moves.push_back(move);
    }
    plan.methods.push_back(mp);
  }
  Result<PatchSet> patch = MakePatchSet(first.after, in.view, plan);
  ASSERT_TRUE(patch.ok()) << patch.error().message;
  EXPECT_EQ(patch->tables_appended, 1u);
  EXPECT_EQ(patch->tensors_repointed, 1u);
  EXPECT_EQ(patch->appended.size(), 12u) << "one {memory_id, low} table, no vtable";
  std::vector<uint8_t> after = ApplyPatch(first.after, *patch);
  EXPECT_TRUE(CheckRewrittenFile(after, in.layout, *patch, plan).ok());
  ReadProgram out = Read(after);
  EXPECT_EQ(out.view.methods[0].tensor(1)->placement.offset, 3968u);
  EXPECT_EQ(out.view.methods[1].tensor(1)->placement.offset, 1024u);
}

TEST(Patcher, PlanForAnotherProgramIsRefused) {
  std::vector<uint8_t> bytes = Build(SharedCacheSpec());
  ReadProgram in = Read(bytes);
  Plan plan = PlanSharing(in.view);
  plan.methods[0].moves[0].before.offset += 16;
  Result<PatchSet> patch = MakePatchSet(bytes, in.view, plan);
  ASSERT_FALSE(patch.ok());
  EXPECT_NE(patch.error().message.find("method prefill, value 0: the plan starts from arena 1"),
            std::string::npos)
      << patch.error().message;
}

}  // namespace
}  // namespace pteshare
