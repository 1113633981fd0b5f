// ByteOwnership: every byte of a verified flatbuffer has the owners the
// schema says, and the patcher refuses a patch whose bytes also belong to
// something other than allocation info (F6: an Int value whose table is an
// AllocationDetails table; a rewrite changed the kernel argument).
#include "rewriter/patch/byte_ownership.h"
#include "rewriter/program/program_tables.h"

#include <gtest/gtest.h>

#include "tests/rewrite_fixtures.h"
#include "tools/synth/spec_helpers.h"
#include "wire.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;

constexpr int64_t kArgument = 70368744177665;  // 0x4000'0000'0001

uint64_t At(const std::vector<uint8_t>& bytes, const void* p) {
  return static_cast<uint64_t>(static_cast<const uint8_t*>(p) - bytes.data());
}

// SharedCacheSpec with complete tables and an Int value in each method.
std::vector<uint8_t> ProgramWithIntArguments() {
  b::ProgramSpec spec = SharedCacheSpec();
  for (b::MethodSpec& m : spec.methods) b::AddInt(m, kArgument);
  b::BuildOptions options;
  options.force_defaults = true;
  options.segment_alignment = 4096;
  return Build(spec, options);
}

// F6's crafted file: an Int value's EValue points its table at the
// AllocationDetails table of a tensor the plan moves, chosen so that the
// file still passes the FlatBuffers verifier (offsets point forward, the
// int64 is 8-byte aligned). Empty if the layout offers no such pair.
std::vector<uint8_t> IntOverAllocationDetails() {
  std::vector<uint8_t> bytes = ProgramWithIntArguments();
  const fb::Program* program = fb::GetProgram(bytes.data());
  for (const fb::ExecutionPlan* plan : *program->execution_plan()) {
    for (const fb::EValue* value : *plan->values()) {
      if (value->val_type() != fb::KernelTypes::Int) continue;
      const uint64_t slot =
          At(bytes,
             reinterpret_cast<const flatbuffers::Table*>(value)->GetAddressOf(fb::EValue::VT_VAL));
      // Every tensor of the fixture moves when the cache is shared.
      for (const fb::ExecutionPlan* owner : *program->execution_plan()) {
        for (const fb::EValue* other : *owner->values()) {
          const fb::Tensor* tensor = other->val_as_Tensor();
          if (tensor == nullptr || tensor->allocation_info() == nullptr) continue;
          const uint64_t table = At(bytes, tensor->allocation_info());
          if (table <= slot || table % 8 != 4) continue;
          std::vector<uint8_t> crafted = bytes;
          wire::StoreU32(crafted.data() + slot, static_cast<uint32_t>(table - slot));
          const fb::Program* ignored = nullptr;
          if (ReadPteLayout(crafted, &ignored).ok()) return crafted;
        }
      }
    }
  }
  return {};
}

TEST(ByteOwnership, EveryAllocationFieldIsAllocationOnlyInAnExporterFile) {
  const std::vector<uint8_t> bytes = ProgramWithIntArguments();
  ReadProgram program = Read(bytes);
  const ByteOwnership map = ByteOwnership::Map(
      std::span<const uint8_t>(bytes).first(program.layout.program_size), program.layout);
  size_t tables = 0;
  for (const MethodView& method : program.view.methods) {
    for (const TensorValue& tensor : method.tensors) {
      const fb::AllocationDetails* info =
          TensorTable(ProgramTable(bytes), method, tensor).allocation_info();
      if (info == nullptr) continue;
      ++tables;
      const auto* table = reinterpret_cast<const flatbuffers::Table*>(info);
      for (auto field :
           {fb::AllocationDetails::VT_MEMORY_ID, fb::AllocationDetails::VT_MEMORY_OFFSET_LOW,
            fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH}) {
        EXPECT_TRUE(map.AllocationOnly(At(bytes, table->GetAddressOf(field)), 4));
      }
      // The soffset of the table is not allocation info.
      EXPECT_FALSE(map.AllocationOnly(At(bytes, info), 4));
    }
    const auto* sizes = PlanTable(ProgramTable(bytes), method).non_const_buffer_sizes();
    EXPECT_TRUE(map.AllocationOnly(At(bytes, sizes->Data()), 8 * sizes->size()));
    EXPECT_FALSE(map.AllocationOnly(At(bytes, sizes), 4)) << "a vector's length is not";
  }
  EXPECT_GT(tables, 0u);
  EXPECT_TRUE(map.AllocationOnly(16, 8)) << "program_size";
  EXPECT_FALSE(map.AllocationOnly(0, 8)) << "root offset and identifier";
  EXPECT_EQ(map.OtherOwner(0, 8), "the root offset and identifier");
}

TEST(ByteOwnership, IntValueOverAnAllocationTableMakesItsFieldsShared) {
  const std::vector<uint8_t> crafted = IntOverAllocationDetails();
  ASSERT_FALSE(crafted.empty()) << "the builder's layout offers no aligned forward pair";
  ReadProgram program = Read(crafted);
  const ByteOwnership map = ByteOwnership::Map(
      std::span<const uint8_t>(crafted).first(program.layout.program_size), program.layout);
  size_t shared = 0;
  for (const MethodView& method : program.view.methods) {
    for (const TensorValue& tensor : method.tensors) {
      const fb::AllocationDetails* info =
          TensorTable(ProgramTable(crafted), method, tensor).allocation_info();
      if (info == nullptr) continue;
      const uint64_t id_at =
          At(crafted, reinterpret_cast<const flatbuffers::Table*>(info)->GetAddressOf(
                          fb::AllocationDetails::VT_MEMORY_ID));
      if (!map.AllocationOnly(id_at, 4)) {
        ++shared;
        EXPECT_EQ(map.OtherOwner(id_at, 4), "int_val");
      }
    }
  }
  EXPECT_GE(shared, 1u);
}

// MapAround keeps only the parts meeting its ranges (the patcher's writes)
// and must answer for those bytes exactly as the whole map does, in a
// well-formed file and in one whose objects overlap.
TEST(ByteOwnership, MapAroundTheWrittenBytesAnswersAsTheWholeMap) {
  for (const std::vector<uint8_t>& bytes :
       {ProgramWithIntArguments(), IntOverAllocationDetails()}) {
    ASSERT_FALSE(bytes.empty());
    ReadProgram program = Read(bytes);
    const std::span<const uint8_t> flatbuffer =
        std::span<const uint8_t>(bytes).first(program.layout.program_size);
    std::vector<ByteRange> fields{{16, 24}};  // program_size
    for (const MethodView& method : program.view.methods) {
      for (const TensorValue& tensor : method.tensors) {
        const auto* info = reinterpret_cast<const flatbuffers::Table*>(
            TensorTable(ProgramTable(bytes), method, tensor).allocation_info());
        if (info == nullptr) continue;
        for (auto field :
             {fb::AllocationDetails::VT_MEMORY_ID, fb::AllocationDetails::VT_MEMORY_OFFSET_LOW}) {
          const uint64_t at = At(bytes, info->GetAddressOf(field));
          fields.push_back({at, at + 4});
        }
      }
    }
    std::sort(fields.begin(), fields.end(),
              [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
    const ByteOwnership whole = ByteOwnership::Map(flatbuffer, program.layout);
    const ByteOwnership around = ByteOwnership::MapAround(flatbuffer, program.layout, fields);
    for (const ByteRange& r : fields) {
      EXPECT_EQ(around.AllocationOnly(r.begin, r.end - r.begin),
                whole.AllocationOnly(r.begin, r.end - r.begin))
          << r.begin;
      EXPECT_EQ(around.OtherOwner(r.begin, r.end - r.begin),
                whole.OtherOwner(r.begin, r.end - r.begin))
          << r.begin;
    }
    EXPECT_LT(around.AllocationOnlyRanges().size(), whole.AllocationOnlyRanges().size());
  }
}

// F6: before, the rewrite wrote the moved tensor's offset into the Int's
// bytes (exit 0, verify ok, a kernel argument changed). Now the patch is
// refused before anything is written.
TEST(ByteOwnership, PatchTouchingAnIntArgumentIsRefused) {
  const std::vector<uint8_t> crafted = IntOverAllocationDetails();
  ASSERT_FALSE(crafted.empty());
  ReadProgram program = Read(crafted);
  Plan plan = PlanSharing(program.view);
  Result<PatchSet> patch = MakePatchSet(crafted, program.view, plan);
  ASSERT_FALSE(patch.ok()) << "the patch would change a kernel argument";
  EXPECT_NE(patch.error().message.find("also belong to int_val"), std::string::npos)
      << patch.error().message;
  // Issue 23: it was exit 1 ("no valid plan"); the file is at fault.
  EXPECT_EQ(patch.error().kind, ErrorKind::kBadInput);

  TempDir dir;
  WriteBytes(dir / "m.pte", crafted);
  CommandOutput out = RunTool(
      "pteshare", {"rewrite", (dir / "m.pte").string(), "--share", kCacheName, "--in-place"});
  EXPECT_EQ(out.exit_status, 2) << out.err;
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  EXPECT_EQ(ReadBytes(dir / "m.pte"), crafted) << "nothing written";
}

}  // namespace
}  // namespace pteshare
