// Appended AllocationDetails tables: tables written after the old end of the
// flatbuffer for the values no existing table can hold (table_reuse.h decides
// which those are). FlatBuffers uoffsets point forward, so a Tensor earlier
// in the buffer may reference them; one table per distinct value, shared by
// every tensor (in any method) that needs it.
//
// A table stores only the fields its value needs (writers omit zeros, and an
// absent field reads as 0): (1, 4096) needs memory_id and memory_offset_low,
// 12 bytes with the soffset. Each table shares a vtable already in the
// flatbuffer whose fields cover that need, the smallest such; exporter
// output has the vtables of {memory_id} and {memory_id, memory_offset_low}
// tables, so usually no vtable is appended. Only a need no existing vtable
// covers (an offset of 4 GiB or more needs memory_offset_high) gets a new
// vtable, one per such need.
//
// Layout from `start` (the old program_size):
//   zero padding to 4 bytes
//   new vtables (if any), in need order: u16 vtable size, u16 table size,
//     u16 field positions (0 = absent), each padded to 4 bytes
//   per value a 4-byte aligned table: i32 soffset (table - vtable), then the
//     fields at the positions its vtable gives.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace pteshare {

/// What one AllocationDetails table says: arena and 64-bit offset.
struct AllocationValue {
  uint32_t memory_id = 0;
  uint64_t offset = 0;

  uint32_t low() const { return static_cast<uint32_t>(offset); }
  uint32_t high() const { return static_cast<uint32_t>(offset >> 32); }
  auto operator<=>(const AllocationValue&) const = default;
};

/// The three AllocationDetails fields as bits of a mask, in field-id order.
enum AllocationField : uint8_t {
  kMemoryIdField = 1,
  kOffsetLowField = 2,
  kOffsetHighField = 4,
};
inline constexpr int kAllocationFieldCount = 3;

/// The fields a table must store to say `value` (the nonzero ones).
uint8_t NeededFields(const AllocationValue& value);
/// Whether a table storing `stored` fields can be overwritten to say `value`.
inline bool CanHold(uint8_t stored, const AllocationValue& value) {
  return (NeededFields(value) & ~stored) == 0;
}

/// Where the fields sit in a table, as its vtable says (0 = absent).
struct TableShape {
  uint16_t table_size = 4;  // bytes, the soffset included
  uint16_t field_at[kAllocationFieldCount] = {0, 0, 0};

  uint8_t fields() const;
};

/// A vtable already in the flatbuffer that appended tables can share.
struct ExistingVtable {
  uint64_t offset = 0;  // file offset
  TableShape shape;
};

/// The vtable of the AllocationDetails table at `table_offset` in the
/// verified flatbuffer `program`, if appended tables can share it: no field
/// beyond the three, each stored field 4-byte aligned inside a table of at
/// most 64 bytes.
std::optional<ExistingVtable> ReusableVtable(std::span<const uint8_t> program,
                                             uint64_t table_offset);

struct AppendedTables {
  /// Bytes to write at `start`, padding included.
  std::vector<uint8_t> bytes;
  /// File offset of the table holding each value.
  std::map<AllocationValue, uint64_t> table_at;
  /// Vtables written (needs no existing vtable covered).
  size_t vtables_appended = 0;
};

/// Lays out one table per value of `values` (distinct, in the given order)
/// from file offset `start`, as described above, sharing `existing` vtables
/// (distinct, any order) where one covers a value's need.
AppendedTables BuildAppendedTables(uint64_t start, const std::vector<AllocationValue>& values,
                                   const std::vector<ExistingVtable>& existing);

}  // namespace pteshare
