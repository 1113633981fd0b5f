// Appended AllocationDetails tables (appended_tables.h): which fields a
// value needs, which vtables of a program appended tables may share, and
// the bytes laid out after the flatbuffer, read back through the schema's
// own accessors. The patcher's use of them (when tables are appended at
// all, segments moving to make room) is tested in patcher_test.cc.
#include "rewriter/patch/appended_tables.h"

#include <gtest/gtest.h>

#include <set>

#include "rewriter/program/program_tables.h"
#include "tests/rewrite_fixtures.h"
#include "wire.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;

constexpr uint64_t kFourGiB = uint64_t{1} << 32;

// A vtable at offset 0 and its table at offset 16: vtable {size, table
// size, field positions}, then the table's soffset (16: the vtable lies 16
// bytes before it), `table_size` bytes of table in all.
std::vector<uint8_t> HandMadeTable(uint16_t table_size, std::vector<uint16_t> field_at) {
  std::vector<uint8_t> bytes(16 + std::max<uint16_t>(table_size, 4), 0);
  const uint16_t vtable_size = static_cast<uint16_t>(4 + 2 * field_at.size());
  std::memcpy(bytes.data(), &vtable_size, 2);
  std::memcpy(bytes.data() + 2, &table_size, 2);
  for (size_t f = 0; f < field_at.size(); ++f)
    std::memcpy(bytes.data() + 4 + 2 * f, &field_at[f], 2);
  wire::StoreU32(bytes.data() + 16, 16);
  return bytes;
}

const fb::AllocationDetails& AllocationAt(const std::vector<uint8_t>& bytes, uint64_t offset) {
  return *reinterpret_cast<const fb::AllocationDetails*>(bytes.data() + offset);
}

// Writers omit zeros, so a value needs exactly its nonzero fields, and a
// table can be overwritten to say a value only if it stores all of them.
TEST(AppendedTables, AValueNeedsItsNonzeroFieldsAndATableMustStoreThemAll) {
  EXPECT_EQ(NeededFields({0, 0}), 0);
  EXPECT_EQ(NeededFields({1, 0}), kMemoryIdField);
  EXPECT_EQ(NeededFields({1, 4096}), kMemoryIdField | kOffsetLowField);
  EXPECT_EQ(NeededFields({0, kFourGiB}), kOffsetHighField);
  EXPECT_EQ(NeededFields({2, kFourGiB + 16}), kMemoryIdField | kOffsetLowField | kOffsetHighField);

  EXPECT_TRUE(CanHold(kMemoryIdField, {1, 0}));
  EXPECT_TRUE(CanHold(0, {0, 0})) << "an empty table says (0, 0)";
  EXPECT_FALSE(CanHold(kMemoryIdField, {1, 4096}));
  EXPECT_FALSE(CanHold(kMemoryIdField | kOffsetLowField, {1, kFourGiB}));
  EXPECT_TRUE(CanHold(kMemoryIdField | kOffsetLowField | kOffsetHighField, {1, kFourGiB}));
}

// An exporter's tables are what appended tables share: each vtable offered
// says exactly the fields its table stores, at the positions the
// FlatBuffers reader finds them. One is refused only for a table size that
// is no multiple of 4 (the builder's padding can make one 14 bytes):
// appended tables lie one after another and each must stay 4-aligned. The
// {memory_id} and {memory_id, low} shapes the header counts on are offered.
TEST(AppendedTables, AnExporterProgramOffersTheVtablesOfItsAlignedTables) {
  const std::vector<uint8_t> bytes = Build(SharedCacheSpec());
  ReadProgram in = Read(bytes);
  std::set<uint8_t> offered;
  for (const MethodView& m : in.view.methods) {
    for (const TensorValue& t : m.tensors) {
      SCOPED_TRACE(ValueLabel(m, t.value_index));
      const auto* allocation = TensorTable(ProgramTable(bytes), m, t).allocation_info();
      if (allocation == nullptr) continue;
      const auto& table = *reinterpret_cast<const flatbuffers::Table*>(allocation);
      const auto* table_bytes = reinterpret_cast<const uint8_t*>(allocation);
      const uint64_t vtable_at = static_cast<uint64_t>(table.GetVTable() - bytes.data());
      std::optional<ExistingVtable> vtable =
          ReusableVtable(bytes, static_cast<uint64_t>(table_bytes - bytes.data()));
      if (!vtable) {
        EXPECT_NE(wire::LoadU16(bytes.data() + vtable_at + 2) % 4, 0)
            << "refused though its table size is a multiple of 4";
        continue;
      }
      EXPECT_EQ(vtable->offset, vtable_at);
      const flatbuffers::voffset_t fields[] = {fb::AllocationDetails::VT_MEMORY_ID,
                                               fb::AllocationDetails::VT_MEMORY_OFFSET_LOW,
                                               fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH};
      for (int f = 0; f < kAllocationFieldCount; ++f) {
        const uint8_t* field = table.GetAddressOf(fields[f]);
        EXPECT_EQ(vtable->shape.field_at[f],
                  field == nullptr ? 0 : static_cast<uint16_t>(field - table_bytes));
      }
      offered.insert(vtable->shape.fields());
    }
  }
  EXPECT_TRUE(offered.count(kMemoryIdField)) << "z at offset 0";
  EXPECT_TRUE(offered.count(kMemoryIdField | kOffsetLowField));
}

// Each of these shapes would make an appended table that does not read as
// the value written (or describe fields this schema does not know).
TEST(AppendedTables, VtablesAppendedTablesCannotShareAreNotOffered) {
  ASSERT_TRUE(ReusableVtable(HandMadeTable(12, {4, 8}), 16).has_value()) << "the control";
  const std::vector<uint8_t> control = HandMadeTable(12, {4, 8});
  EXPECT_FALSE(ReusableVtable(control, control.size() - 2).has_value()) << "past the end";
  EXPECT_FALSE(ReusableVtable(HandMadeTable(12, {4, 6}), 16).has_value()) << "unaligned field";
  EXPECT_FALSE(ReusableVtable(HandMadeTable(12, {4, 4}), 16).has_value()) << "one field twice";
  EXPECT_FALSE(ReusableVtable(HandMadeTable(12, {4, 12}), 16).has_value()) << "field past table";
  EXPECT_FALSE(ReusableVtable(HandMadeTable(68, {4, 8}), 16).has_value()) << "table over 64";
  EXPECT_FALSE(ReusableVtable(HandMadeTable(10, {4}), 16).has_value()) << "table size not 4k";
  EXPECT_FALSE(ReusableVtable(HandMadeTable(16, {4, 8, 0, 12}), 16).has_value())
      << "a fourth field";
  std::vector<uint8_t> before_the_start = HandMadeTable(12, {4, 8});
  wire::StoreU32(before_the_start.data() + 16, 20);  // the vtable would lie at -4
  EXPECT_FALSE(ReusableVtable(before_the_start, 16).has_value()) << "vtable before byte 0";
}

// From an unaligned start: padding to 4, one new vtable per need (values
// with the same need share it), then the tables in the given order, each
// reading back through the generated accessors as its value.
TEST(AppendedTables, TablesFromAnUnalignedStartReadBackAsTheirValues) {
  const uint64_t start = 4097;
  const std::vector<AllocationValue> values = {{1, 16}, {2, 3 * kFourGiB}, {1, 32}, {0, 0}};
  AppendedTables tables = BuildAppendedTables(start, values, {});
  EXPECT_EQ(tables.vtables_appended, 3u) << "{id, low}, {id, high}, and {} for (0, 0)";
  ASSERT_EQ(tables.table_at.size(), values.size());
  EXPECT_EQ(std::vector<uint8_t>(tables.bytes.begin(), tables.bytes.begin() + 3),
            std::vector<uint8_t>(3, 0));

  std::vector<uint8_t> file(start, 0);
  file.insert(file.end(), tables.bytes.begin(), tables.bytes.end());
  uint64_t previous = 0;
  for (const AllocationValue& v : values) {
    const uint64_t at = tables.table_at.at(v);
    EXPECT_EQ(at % 4, 0u);
    EXPECT_GT(at, previous) << "tables in the order of the values";
    previous = at;
    const fb::AllocationDetails& table = AllocationAt(file, at);
    EXPECT_EQ(table.memory_id(), v.memory_id);
    EXPECT_EQ(table.memory_offset_low(), v.low());
    EXPECT_EQ(table.memory_offset_high(), v.high());
    std::optional<ExistingVtable> vtable = ReusableVtable(file, at);
    ASSERT_TRUE(vtable.has_value());
    EXPECT_EQ(vtable->shape.fields(), NeededFields(v)) << "only the fields its value needs";
  }
  EXPECT_EQ(ReusableVtable(file, tables.table_at.at({1, 16}))->offset,
            ReusableVtable(file, tables.table_at.at({1, 32}))->offset);
  EXPECT_TRUE(BuildAppendedTables(start, {}, {}).bytes.empty());
}

// Appended tables store only the fields their value needs: (1, 16) needs
// memory_id and the low word, (2, 2^33) memory_id and the high word (its
// low word is 0). With no vtable to share, each need gets its own.
TEST(AppendedTables, EachTableStoresOnlyTheFieldsItsValueNeeds) {
  std::vector<uint8_t> program(64, 0);
  AppendedTables tables = BuildAppendedTables(64, {{1, 16}, {2, uint64_t{1} << 33}}, {});
  EXPECT_EQ(tables.vtables_appended, 2u);
  // vtables of 8 and 10 bytes (10 padded to 12), then tables of 12 and 12.
  EXPECT_EQ(tables.bytes.size(), 8u + 12u + 12u + 12u);
  program.insert(program.end(), tables.bytes.begin(), tables.bytes.end());
  auto low = ReusableVtable(program, tables.table_at.at({1, 16}));
  ASSERT_TRUE(low.has_value());
  EXPECT_EQ(low->shape.table_size, 12);
  EXPECT_EQ(low->shape.fields(), kMemoryIdField | kOffsetLowField);
  auto high = ReusableVtable(program, tables.table_at.at({2, uint64_t{1} << 33}));
  ASSERT_TRUE(high.has_value());
  EXPECT_EQ(high->shape.fields(), kMemoryIdField | kOffsetHighField);
  program[high->offset] = 12;  // a vtable with a fourth field this schema does not know
  EXPECT_FALSE(ReusableVtable(program, tables.table_at.at({2, uint64_t{1} << 33})).has_value());
}

// A vtable the program already has is shared when it covers the need: the
// smallest one that does, so (1, 0) takes the 8-byte {memory_id} shape.
TEST(AppendedTables, AnExistingVtableThatCoversTheNeedIsShared) {
  const std::vector<ExistingVtable> existing = {
      {16, TableShape{12, {4, 8, 0}}},  // {memory_id, low}
      {32, TableShape{8, {4, 0, 0}}},   // {memory_id}
  };
  AppendedTables tables = BuildAppendedTables(64, {{1, 0}, {1, 4096}}, existing);
  EXPECT_EQ(tables.vtables_appended, 0u);
  EXPECT_EQ(tables.bytes.size(), 8u + 12u);
  EXPECT_EQ(tables.table_at.at({1, 0}), 64u);
  EXPECT_EQ(tables.table_at.at({1, 4096}), 72u);
  EXPECT_EQ(wire::LoadU32(tables.bytes.data()), 64u - 32u) << "soffset to the {memory_id} vtable";
  EXPECT_EQ(wire::LoadU32(tables.bytes.data() + 8), 72u - 16u);
  EXPECT_EQ(wire::LoadU32(tables.bytes.data() + 16), 4096u);
}

}  // namespace
}  // namespace pteshare
