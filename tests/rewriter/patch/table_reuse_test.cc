// Table reuse: which table each tensor points at after a rewrite. Plain
// slots and references, laid out the way exporter output is (a tensor's
// own table follows its reference), with the rules of table_reuse.h: point
// only forward, say one value per table, write only stored fields, append
// only what no table can say.
#include "rewriter/patch/table_reuse.h"

#include <gtest/gtest.h>

namespace pteshare {
namespace {

constexpr uint8_t kId = kMemoryIdField;
constexpr uint8_t kIdLow = kMemoryIdField | kOffsetLowField;

TEST(TableReuse, AgreedTablesAreOverwrittenInPlaceAndNothingIsAppended) {
  const std::vector<TableSlot> slots = {{100, kIdLow, {1, 64}}, {200, kIdLow, {1, 128}}};
  const std::vector<TableReference> refs = {{40, 0, {1, 0}}, {50, 0, {1, 0}}, {60, 1, {1, 512}}};
  const TableAssignment a = AssignTables(slots, refs);
  EXPECT_EQ(a.final_value, (std::vector<AllocationValue>{{1, 0}, {1, 512}}));
  EXPECT_EQ(a.target, (std::vector<std::optional<size_t>>{0, 0, 1}));
  EXPECT_TRUE(a.appended.empty());
}

// The tensor at 40 moves off offset 0, so its {memory_id} table cannot say
// (1, 512); the table at 300 says it already and lies after the reference.
// The tensor at 400 wants the same, but nothing after it says so: it needs
// an appended table (offsets point forward).
TEST(TableReuse, ATensorPointsAtALaterTableThatSaysItsValueButNeverBack) {
  const std::vector<TableSlot> slots = {
      {100, kId, {1, 0}}, {300, kIdLow, {1, 512}}, {450, kId, {1, 0}}};
  const std::vector<TableReference> refs = {{40, 0, {1, 512}}, {200, 1, {1, 512}}};
  TableAssignment a = AssignTables(slots, refs);
  EXPECT_EQ(a.target[0], std::optional<size_t>(1));
  EXPECT_TRUE(a.appended.empty());

  const std::vector<TableReference> late = {{200, 1, {1, 512}}, {400, 2, {1, 512}}};
  a = AssignTables(slots, late);
  EXPECT_EQ(a.target[1], std::nullopt);
  EXPECT_EQ(a.appended, (std::vector<AllocationValue>{{1, 512}}));
  EXPECT_EQ(a.final_value[2], (AllocationValue{1, 0})) << "a table nobody uses keeps its bytes";
}

// Front-packing in exporter output: the shared buffer (reference 40, its
// {id, low} table at 300) moves to offset 0, the tensor at offset 0
// (reference 200, {id} table at 250) moves up. The buffer takes the tensor's
// vacated table, which already says (1, 0); the tensor takes the buffer's.
TEST(TableReuse, ABufferMovingToZeroSwapsTablesWithATensorMovingOffZero) {
  const std::vector<TableSlot> slots = {{250, kId, {1, 0}}, {300, kIdLow, {1, 4096}}};
  const std::vector<TableReference> refs = {{40, 1, {1, 0}}, {200, 0, {1, 1024}}};
  const TableAssignment a = AssignTables(slots, refs);
  EXPECT_TRUE(a.appended.empty());
  EXPECT_EQ(a.tables_taken_over, 1u);
  EXPECT_EQ(a.target, (std::vector<std::optional<size_t>>{0, 1}));
  EXPECT_EQ(a.final_value, (std::vector<AllocationValue>{{1, 0}, {1, 1024}}));
}

// A table still in use is taken over only if its tensors can all move to
// another table saying their value after every one of their references.
TEST(TableReuse, ATableInUseIsTakenOverOnlyWhenItsTensorsHaveSomewhereToGo) {
  // Slot 1 (at 300) and slot 2 (at 500) both say (1, 64); slot 1's tensor
  // (reference 250) can move to slot 2. The tensor at 280 needs (1, 2048).
  const std::vector<TableSlot> slots = {
      {285, kId, {1, 0}}, {300, kIdLow, {1, 64}}, {500, kIdLow, {1, 64}}};
  const std::vector<TableReference> refs = {
      {280, 0, {1, 2048}}, {250, 1, {1, 64}}, {450, 2, {1, 64}}};
  TableAssignment a = AssignTables(slots, refs);
  EXPECT_TRUE(a.appended.empty());
  EXPECT_EQ(a.target, (std::vector<std::optional<size_t>>{1, 2, 2}));

  // Without slot 2 the tensor of slot 1 has nowhere to go: append.
  const std::vector<TableSlot> alone = {slots[0], slots[1]};
  const std::vector<TableReference> refs_alone = {refs[0], refs[1]};
  a = AssignTables(alone, refs_alone);
  EXPECT_EQ(a.appended, (std::vector<AllocationValue>{{1, 2048}}));
  EXPECT_EQ(a.target[1], std::optional<size_t>(1));
}

// A table shared by tensors that disagree keeps the value of those that
// want it; the others go elsewhere. A value needing the high word never
// lands in a table without one.
TEST(TableReuse, DisagreeingTensorsSplitAndAbsentFieldsAreNeverNeeded) {
  const uint64_t high = uint64_t{5} << 32;
  const std::vector<TableSlot> slots = {{100, kIdLow, {1, 64}}, {200, kIdLow, {1, 0}}};
  const std::vector<TableReference> refs = {{10, 0, {1, 64}}, {20, 0, {1, high}}};
  const TableAssignment a = AssignTables(slots, refs);
  EXPECT_EQ(a.target[0], std::optional<size_t>(0));
  EXPECT_EQ(a.target[1], std::nullopt);
  EXPECT_EQ(a.appended, (std::vector<AllocationValue>{{1, high}}));
  EXPECT_EQ(a.final_value[1], (AllocationValue{1, 0})) << "unused, kept as it was";
}

}  // namespace
}  // namespace pteshare
