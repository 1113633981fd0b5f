#include "rewriter/appended_tables.h"

#include <cstring>
#include <set>

#include "rewriter/wire.h"

namespace pteshare {
namespace {

constexpr uint16_t kFieldCount = 3;
constexpr uint16_t kVtableSize = 4 + 2 * kFieldCount;  // sizes + one entry per field
constexpr uint16_t kMaxReusedTableSize = 64;

uint16_t LoadU16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
void StoreU16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, sizeof v); }

uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

std::optional<ExistingVtable> ReusableVtable(std::span<const uint8_t> program,
                                             uint64_t table_offset) {
  if (table_offset + 4 > program.size()) return std::nullopt;
  const int32_t soffset = static_cast<int32_t>(wire::LoadU32(program.data() + table_offset));
  const int64_t vtable = static_cast<int64_t>(table_offset) - soffset;
  if (vtable < 0 || vtable % 2 != 0 ||
      static_cast<uint64_t>(vtable) + kVtableSize > program.size()) {
    return std::nullopt;
  }
  const uint8_t* vt = program.data() + vtable;
  if (LoadU16(vt) != kVtableSize) return std::nullopt;
  CompleteTableShape shape;
  shape.table_size = LoadU16(vt + 2);
  shape.memory_id_at = LoadU16(vt + 4);
  shape.offset_low_at = LoadU16(vt + 6);
  shape.offset_high_at = LoadU16(vt + 8);
  if (shape.table_size % 4 != 0 || shape.table_size > kMaxReusedTableSize) return std::nullopt;
  std::set<uint16_t> seen;
  for (uint16_t at : {shape.memory_id_at, shape.offset_low_at, shape.offset_high_at}) {
    if (at < 4 || at % 4 != 0 || at + 4 > shape.table_size || !seen.insert(at).second) {
      return std::nullopt;
    }
  }
  return ExistingVtable{static_cast<uint64_t>(vtable), shape};
}

AppendedTables BuildAppendedTables(uint64_t start, const std::vector<AllocationValue>& values,
                                   const std::optional<ExistingVtable>& reuse) {
  AppendedTables out;
  if (values.empty()) return out;
  // Work in file offsets; bytes[i] lands at start + i.
  uint64_t at = AlignUp(start, 4);
  uint64_t vtable = 0;
  CompleteTableShape shape;
  if (reuse) {
    vtable = reuse->offset;
    shape = reuse->shape;
  } else {
    vtable = at;
    at = AlignUp(at + kVtableSize, 4);
  }
  const uint64_t end = at + uint64_t{shape.table_size} * values.size();
  out.bytes.assign(end - start, 0);
  if (!reuse) {
    uint8_t* vt = out.bytes.data() + (vtable - start);
    StoreU16(vt, kVtableSize);
    StoreU16(vt + 2, shape.table_size);
    StoreU16(vt + 4, shape.memory_id_at);
    StoreU16(vt + 6, shape.offset_low_at);
    StoreU16(vt + 8, shape.offset_high_at);
  }
  for (const AllocationValue& value : values) {
    uint8_t* table = out.bytes.data() + (at - start);
    // soffset: the vtable lies at table - soffset, before it.
    wire::StoreU32(table, static_cast<uint32_t>(static_cast<int32_t>(at - vtable)));
    wire::StoreU32(table + shape.memory_id_at, value.memory_id);
    wire::StoreU32(table + shape.offset_low_at, value.low());
    wire::StoreU32(table + shape.offset_high_at, value.high());
    out.table_at.emplace(value, at);
    at += shape.table_size;
  }
  return out;
}

}  // namespace pteshare
