// Writing shared-buffer names (name_patch.h, --write-names): which tensors
// NamesToWrite lists, and the Tensor copies BuildNamedTensorCopies appends,
// read through the generated accessors once the EValues are repointed:
// every field of the old table kept, the name and the plan's placement
// taken; and its refusals. The command's whole run (names found by the
// checkers, a second run changing nothing) is rewrite_command_test.cc's.
#include "rewriter/patch/name_patch.h"

#include <gtest/gtest.h>

#include "rewriter/patch/patched_bytes.h"
#include "rewriter/patch/patcher.h"
#include "rewriter/program/program_tables.h"
#include "tests/plan_options.h"
#include "tests/program_fixture.h"

namespace pteshare {
namespace {

using synth::FixedMethod;
using test_support::Load;

// Unnamed state, as exported: k and a in both methods (named with --name),
// and in prefill one more state tensor that only prefill has (private).
// k is a HALF[2, 16] in a transposed dim order, so the copy has something
// to keep.
std::vector<FixedMethod> UnnamedState() {
  synth::FixedTensor k{64, 1, 64, "", true, fb::ScalarType::HALF, {2, 16}, {1, 0}};
  synth::FixedTensor k_decode = k;
  k_decode.offset = 64;
  return {
      {"prefill", {{64, 1, 0}, k, {64, 1, 128, "", true}, {64, 1, 192, "", true}}},
      {"decode", {{64, 1, 0, "", true}, k_decode, {16, 1, 128}}},
  };
}

ShareRequest NameAndShare() {
  ShareRequest request;
  request.names = {"a", "k"};
  request.namings = {
      {"prefill", 1, "k"}, {"prefill", 2, "a"}, {"decode", 1, "k"}, {"decode", 0, "a"}};
  return request;
}

PlanResult PlanNamed(const ProgramView& view) {
  return test_support::PlanVerified(view, NameAndShare(), WithStrategy(Strategy::kRelocate, 16));
}

// "method:value:name" per name, for comparing lists with readable output.
std::vector<std::string> Listed(const std::vector<TensorName>& names) {
  std::vector<std::string> listed;
  for (const TensorName& n : names) {
    listed.push_back(std::to_string(n.method_index) + ":" + std::to_string(n.value_index) + ":" +
                     n.name);
  }
  return listed;
}

// Method by method in value order (not in the buffers' name order), only
// tensors whose name is not yet the buffer's, never a private buffer's
// label; and once the names are written there is nothing left to write.
TEST(NamePatch, NamesToWriteListsEachSharedTensorNotYetNamedInMethodThenValueOrder) {
  auto p = Load(UnnamedState());
  ASSERT_NE(p, nullptr);
  const PlanResult planned = PlanNamed(p->view);
  ASSERT_TRUE(std::any_of(planned.shared.buffers.begin(), planned.shared.buffers.end(),
                          [](const SharedBuffer& b) { return b.private_state; }))
      << "prefill's own state is a private buffer, whose label is no name to write";
  const std::vector<TensorName> names = NamesToWrite(p->view, planned.shared);
  EXPECT_EQ(Listed(names), (std::vector<std::string>{"0:1:k", "0:2:a", "1:0:a", "1:1:k"}));

  Result<PatchSet> patch = MakePatchSet(p->bytes, p->view, planned.plan, names);
  ASSERT_TRUE(patch.ok()) << patch.error().message;
  Result<std::vector<uint8_t>> written = ApplyPatchInMemory(p->bytes, *patch);
  ASSERT_TRUE(written.ok()) << written.error().message;
  auto again = Load(std::move(written).value());
  ASSERT_NE(again, nullptr);
  const PlanResult replanned = PlanNamed(again->view);
  EXPECT_TRUE(NamesToWrite(again->view, replanned.shared).empty());
}

TEST(NamePatch, CopyOfATensorKeepsEveryFieldAndTakesTheNameAndThePlannedPlace) {
  auto p = Load(UnnamedState());
  ASSERT_NE(p, nullptr);
  const PlanResult planned = PlanNamed(p->view);
  const std::vector<TensorName> names = NamesToWrite(p->view, planned.shared);
  // An unaligned start: the copies align themselves by file offset.
  std::vector<uint8_t> file = p->bytes;
  file.resize(file.size() + 3, 0xEE);
  const uint64_t start = file.size();
  Result<NamedTensorCopies> copies =
      BuildNamedTensorCopies(p->bytes, p->view, planned.plan, names, start);
  ASSERT_TRUE(copies.ok()) << copies.error().message;
  ASSERT_EQ(copies->overwrites.size(), names.size()) << "one EValue repointed per name";
  file.insert(file.end(), copies->bytes.begin(), copies->bytes.end());
  for (const ByteOverwrite& w : copies->overwrites) {
    ASSERT_LT(w.end(), p->view.layout.program_size) << "only the flatbuffer is overwritten";
    std::copy(w.bytes.begin(), w.bytes.end(), file.begin() + static_cast<ptrdiff_t>(w.offset));
  }

  for (const TensorName& n : names) {
    SCOPED_TRACE(ValueLabel(p->view.methods[n.method_index], n.value_index));
    const MethodView& method = p->view.methods[n.method_index];
    const fb::Tensor& old =
        TensorTable(ProgramTable(p->bytes), method, *method.tensor(n.value_index));
    const fb::Tensor& copy = TensorTable(ProgramTable(file), method, *method.tensor(n.value_index));
    const auto copy_at =
        static_cast<uint64_t>(reinterpret_cast<const uint8_t*>(&copy) - file.data());
    EXPECT_GE(copy_at, start) << "the EValue points at the copy";
    EXPECT_EQ(copy.scalar_type(), old.scalar_type());
    EXPECT_EQ(copy.storage_offset(), old.storage_offset());
    ASSERT_NE(copy.sizes(), nullptr);
    EXPECT_EQ(std::vector<int32_t>(copy.sizes()->begin(), copy.sizes()->end()),
              std::vector<int32_t>(old.sizes()->begin(), old.sizes()->end()));
    ASSERT_NE(copy.dim_order(), nullptr);
    EXPECT_EQ(std::vector<uint8_t>(copy.dim_order()->begin(), copy.dim_order()->end()),
              std::vector<uint8_t>(old.dim_order()->begin(), old.dim_order()->end()));
    EXPECT_EQ(copy.requires_grad(), old.requires_grad());
    EXPECT_EQ(copy.data_buffer_idx(), old.data_buffer_idx());
    EXPECT_EQ(copy.layout(), old.layout());
    EXPECT_EQ(copy.shape_dynamism(), old.shape_dynamism());
    ASSERT_NE(copy.extra_tensor_info(), nullptr);
    ASSERT_NE(copy.extra_tensor_info()->fully_qualified_name(), nullptr);
    EXPECT_EQ(copy.extra_tensor_info()->fully_qualified_name()->str(), n.name);
    if (const fb::ExtraTensorInfo* extra = old.extra_tensor_info()) {
      EXPECT_EQ(copy.extra_tensor_info()->mutable_data_segments_idx(),
                extra->mutable_data_segments_idx());
      EXPECT_EQ(copy.extra_tensor_info()->location(), extra->location());
    }
    // The plan's placement, in a complete table (a later rewrite
    // overwrites it in place).
    const Placement& after = planned.plan.methods[n.method_index].Find(n.value_index)->after;
    const fb::AllocationDetails* allocation = copy.allocation_info();
    ASSERT_NE(allocation, nullptr);
    EXPECT_EQ(allocation->memory_id(), after.memory_id);
    EXPECT_EQ(allocation->memory_offset_low(), static_cast<uint32_t>(after.offset));
    EXPECT_EQ(allocation->memory_offset_high(), static_cast<uint32_t>(after.offset >> 32));
    const auto& table = *reinterpret_cast<const flatbuffers::Table*>(allocation);
    EXPECT_NE(table.GetAddressOf(fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH), nullptr);
  }
  // HALF[2, 16] in dim order [1, 0]: the fields the copy had to carry.
  const fb::Tensor& k =
      TensorTable(ProgramTable(file), p->view.methods[0], *p->view.methods[0].tensor(1));
  EXPECT_EQ(k.scalar_type(), fb::ScalarType::HALF);
  EXPECT_EQ(k.dim_order()->Get(0), 1);
}

TEST(NamePatch, AValueThePlanDoesNotPlaceIsRefusedNamingIt) {
  auto p = Load(UnnamedState());
  ASSERT_NE(p, nullptr);
  Plan plan = PlanNamed(p->view).plan;
  auto& moves = plan.methods[1].moves;
  moves.erase(moves.begin());  // decode's value 0
  Result<NamedTensorCopies> copies =
      BuildNamedTensorCopies(p->bytes, p->view, plan, {{1, 0, "a"}}, p->bytes.size());
  ASSERT_FALSE(copies.ok());
  EXPECT_EQ(copies.error().message,
            "method decode, value 0: cannot name it (not a planned tensor of the plan)");
}

// A newer exporter's Tensor table stores a field past the schema's: a copy
// made from the known fields would drop it, so the name is refused as bad
// input, naming the table's offset and the field.
TEST(NamePatch, ATensorTableWithAFieldTheSchemaDoesNotKnowIsRefusedAsBadInput) {
  synth::BuildOptions newer;
  newer.newer_exporter_fields = true;
  Result<std::vector<uint8_t>> bytes =
      synth::BuildProgram(synth::FixedLayoutSpec(UnnamedState()), newer);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  auto p = Load(std::move(bytes).value());
  ASSERT_NE(p, nullptr);
  const PlanResult planned = PlanNamed(p->view);
  const MethodView& prefill = p->view.methods[0];
  const auto table_at =
      static_cast<uint64_t>(reinterpret_cast<const uint8_t*>(
                                &TensorTable(ProgramTable(p->bytes), prefill, *prefill.tensor(1))) -
                            p->bytes.data());
  Result<NamedTensorCopies> copies = BuildNamedTensorCopies(
      p->bytes, p->view, planned.plan, NamesToWrite(p->view, planned.shared), p->bytes.size());
  ASSERT_FALSE(copies.ok());
  EXPECT_EQ(copies.error().kind, ErrorKind::kBadInput);
  EXPECT_EQ(copies.error().message,
            "method prefill, value 1: its Tensor table at offset " + std::to_string(table_at) +
                " stores field 10, which pteshare's schema does not know (a newer exporter?); "
                "--write-names would copy the table without it; refusing");
}

}  // namespace
}  // namespace pteshare
