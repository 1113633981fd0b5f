// Appended AllocationDetails tables: complete tables (all three fields
// stored) written after the old end of the flatbuffer, for tensors whose own
// table lacks a field their new placement needs. FlatBuffers uoffsets point
// forward, so a Tensor earlier in the buffer may reference them; one table
// per distinct value, shared by every tensor (in any method) that needs it.
//
// Layout from `start` (the old program_size):
//   zero padding to 4 bytes
//   vtable (unless an existing complete one is reused), 2-byte aligned:
//     u16 vtable size 10, u16 table size 16, u16 field offsets 4, 8, 12
//   padding to 4, then per value a 4-byte aligned table:
//     i32 soffset (table - vtable), u32 memory_id, u32 low, u32 high
// (a reused vtable dictates its own table size and field positions).
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

/// Where the three fields sit in a complete table, as its vtable says.
struct CompleteTableShape {
  uint16_t table_size = 16;  // bytes, the soffset included
  uint16_t memory_id_at = 4;
  uint16_t offset_low_at = 8;
  uint16_t offset_high_at = 12;
};

/// A vtable already in the flatbuffer that describes complete tables.
struct ExistingVtable {
  uint64_t offset = 0;  // file offset
  CompleteTableShape shape;
};

/// The vtable of the complete table at `table_offset` in the verified
/// flatbuffer `program`, if appended tables can share it: exactly the three
/// fields, each 4-byte aligned inside a table of at most 64 bytes.
std::optional<ExistingVtable> ReusableVtable(std::span<const uint8_t> program,
                                             uint64_t table_offset);

struct AppendedTables {
  /// Bytes to write at `start`, padding included.
  std::vector<uint8_t> bytes;
  /// File offset of the table holding each value.
  std::map<AllocationValue, uint64_t> table_at;
};

/// Lays out one table per value of `values` (distinct, in the given order)
/// from file offset `start`, sharing `reuse` if given, else one new vtable.
AppendedTables BuildAppendedTables(uint64_t start, const std::vector<AllocationValue>& values,
                                   const std::optional<ExistingVtable>& reuse);

}  // namespace pteshare
