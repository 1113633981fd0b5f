// Fields a table stores that pteshare's schema does not know
// (unknown_fields.h): FirstUnknownField on an exporter's tables, on a newer
// exporter's (pte-synth's newer_exporter_fields: one field past the
// schema's last in every Tensor, ExtraTensorInfo and AllocationDetails
// table) and on hand-made vtables, and the words a refusal uses. The
// refusals themselves (patcher, --write-names) are patcher_test.cc's and
// name_patch_test.cc's.
#include "rewriter/patch/unknown_fields.h"

#include <gtest/gtest.h>

#include <cstring>

#include "rewriter/program/program_tables.h"
#include "tests/rewrite_fixtures.h"
#include "wire.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;

// The fields program.fbs gives each table.
constexpr int kTensorFields = 10, kExtraTensorInfoFields = 5, kAllocationFields = 3;

const flatbuffers::Table& AsTable(const void* generated) {
  return *reinterpret_cast<const flatbuffers::Table*>(generated);
}

// What FirstUnknownField says of each kind of table of the cache tensor in
// prefill (named, planned: it has all three) and of z (at offset 0, so its
// allocation table stores memory_id only).
struct Answers {
  std::optional<int> tensor, extra, allocation, z_past_memory_id;
};

Answers AnswersFor(const b::BuildOptions& options) {
  const std::vector<uint8_t> bytes = Build(SharedCacheSpec(), options);
  ReadProgram in = Read(bytes);
  const MethodView& prefill = in.view.methods.at(0);
  const fb::Tensor& cache = TensorTable(ProgramTable(bytes), prefill, prefill.tensors.at(0));
  const fb::Tensor& z = TensorTable(ProgramTable(bytes), prefill, prefill.tensors.at(1));
  EXPECT_EQ(prefill.tensors.at(0).name, kCacheName);
  EXPECT_EQ(prefill.tensors.at(1).placement.offset, 0u);
  return {FirstUnknownField(AsTable(&cache), kTensorFields),
          FirstUnknownField(AsTable(cache.extra_tensor_info()), kExtraTensorInfoFields),
          FirstUnknownField(AsTable(cache.allocation_info()), kAllocationFields),
          FirstUnknownField(AsTable(z.allocation_info()), 1)};
}

TEST(UnknownFields, AnExporterStoresNoneAndANewerExporterOnePastTheSchema) {
  const Answers exporter = AnswersFor({});
  EXPECT_EQ(exporter.tensor, std::nullopt);
  EXPECT_EQ(exporter.extra, std::nullopt);
  EXPECT_EQ(exporter.allocation, std::nullopt);
  EXPECT_EQ(exporter.z_past_memory_id, std::nullopt) << "offset 0: the low word is absent";

  b::BuildOptions newer;
  newer.newer_exporter_fields = true;
  const Answers found = AnswersFor(newer);
  EXPECT_EQ(found.tensor, kTensorFields);
  EXPECT_EQ(found.extra, kExtraTensorInfoFields);
  EXPECT_EQ(found.allocation, kAllocationFields);
  // The lowest stored field at or above the first one asked about: z's
  // table stores no low or high word, so the next stored one is 3.
  EXPECT_EQ(found.z_past_memory_id, kAllocationFields);
}

// A vtable may be longer than the fields it stores (a writer that keeps
// trailing absent entries): only a nonzero entry is a stored field.
TEST(UnknownFields, AbsentEntriesPastTheKnownFieldsAreNotFields) {
  // vtable at 0: size, table size, then field positions; the table at 16.
  const auto table_with = [](std::vector<uint16_t> field_at) {
    std::vector<uint8_t> bytes(32, 0);
    const uint16_t sizes[] = {static_cast<uint16_t>(4 + 2 * field_at.size()), 8};
    std::memcpy(bytes.data(), sizes, sizeof sizes);
    // (An empty vector's data() may be null, which memcpy must not get.)
    if (!field_at.empty()) std::memcpy(bytes.data() + 4, field_at.data(), 2 * field_at.size());
    wire::StoreU32(bytes.data() + 16, 16);  // soffset: the vtable 16 bytes before
    return bytes;
  };
  const std::vector<uint8_t> trailing_zeros = table_with({4, 0, 0, 0, 0});
  EXPECT_EQ(FirstUnknownField(AsTable(trailing_zeros.data() + 16), 1), std::nullopt);
  const std::vector<uint8_t> fifth = table_with({4, 0, 0, 0, 4});
  EXPECT_EQ(FirstUnknownField(AsTable(fifth.data() + 16), 1), 4);
  EXPECT_EQ(FirstUnknownField(AsTable(fifth.data() + 16), 5), std::nullopt);
  const std::vector<uint8_t> header_only = table_with({});
  EXPECT_EQ(FirstUnknownField(AsTable(header_only.data() + 16), 0), std::nullopt);
}

TEST(UnknownFields, TheRefusalNamesTheTableItsOffsetAndTheField) {
  EXPECT_EQ(UnknownFieldText("AllocationDetails", 1234, 3),
            "AllocationDetails table at offset 1234 stores field 3, which pteshare's schema "
            "does not know (a newer exporter?)");
}

}  // namespace
}  // namespace pteshare
