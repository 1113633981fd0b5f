#include "rewriter/patch/appended_tables.h"

#include <array>
#include <cstring>

#include "wire.h"

namespace pteshare {
namespace {

constexpr uint16_t kMaxVtableSize = 4 + 2 * kAllocationFieldCount;
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

// The smallest shape storing exactly `fields`: each 4 bytes, in field order,
// after the soffset. The vtable ends at the last stored field.
TableShape ExactShape(uint8_t fields) {
  TableShape shape;
  for (int f = 0; f < kAllocationFieldCount; ++f) {
    if (fields & (1 << f)) {
      shape.field_at[f] = shape.table_size;
      shape.table_size += 4;
    }
  }
  return shape;
}

uint16_t VtableSize(const TableShape& shape) {
  int last = -1;
  for (int f = 0; f < kAllocationFieldCount; ++f) {
    if (shape.field_at[f] != 0) last = f;
  }
  return static_cast<uint16_t>(4 + 2 * (last + 1));
}

uint32_t FieldValue(const AllocationValue& value, int field) {
  switch (field) {
    case 0:
      return value.memory_id;
    case 1:
      return value.low();
    default:
      return value.high();
  }
}

}  // namespace

uint8_t NeededFields(const AllocationValue& value) {
  uint8_t fields = 0;
  if (value.memory_id != 0) fields |= kMemoryIdField;
  if (value.low() != 0) fields |= kOffsetLowField;
  if (value.high() != 0) fields |= kOffsetHighField;
  return fields;
}

uint8_t TableShape::fields() const {
  uint8_t mask = 0;
  for (int f = 0; f < kAllocationFieldCount; ++f) {
    if (field_at[f] != 0) mask |= static_cast<uint8_t>(1 << f);
  }
  return mask;
}

std::optional<ExistingVtable> ReusableVtable(std::span<const uint8_t> program,
                                             uint64_t table_offset) {
  if (table_offset + 4 > program.size()) return std::nullopt;
  const int32_t soffset = static_cast<int32_t>(wire::LoadU32(program.data() + table_offset));
  const int64_t vtable = static_cast<int64_t>(table_offset) - soffset;
  if (vtable < 0 || vtable % 2 != 0 || static_cast<uint64_t>(vtable) + 4 > program.size()) {
    return std::nullopt;
  }
  const uint8_t* vt = program.data() + vtable;
  const uint16_t vtable_size = LoadU16(vt);
  // A larger vtable describes fields this schema does not know.
  if (vtable_size < 4 || vtable_size > kMaxVtableSize || vtable_size % 2 != 0 ||
      static_cast<uint64_t>(vtable) + vtable_size > program.size()) {
    return std::nullopt;
  }
  TableShape shape;
  shape.table_size = LoadU16(vt + 2);
  if (shape.table_size < 4 || shape.table_size % 4 != 0 || shape.table_size > kMaxReusedTableSize) {
    return std::nullopt;
  }
  // Field offsets taken, by at / 4 (below kMaxReusedTableSize): asked once
  // per AllocationDetails table, so no set.
  std::array<bool, kMaxReusedTableSize / 4> taken{};
  for (int f = 0; 4 + 2 * f < vtable_size; ++f) {
    const uint16_t at = LoadU16(vt + 4 + 2 * f);
    if (at == 0) continue;
    if (at < 4 || at % 4 != 0 || at + 4 > shape.table_size || taken[at / 4]) {
      return std::nullopt;
    }
    taken[at / 4] = true;
    shape.field_at[f] = at;
  }
  return ExistingVtable{static_cast<uint64_t>(vtable), shape};
}

AppendedTables BuildAppendedTables(uint64_t start, const std::vector<AllocationValue>& values,
                                   const std::vector<ExistingVtable>& existing) {
  AppendedTables out;
  if (values.empty()) return out;
  // Per value: the smallest existing vtable covering its need, else a new
  // one of exactly that need (shared by every value with the same need).
  std::vector<ExistingVtable> chosen(values.size());
  std::map<uint8_t, std::vector<size_t>> new_vtable_users;
  for (size_t i = 0; i < values.size(); ++i) {
    const uint8_t need = NeededFields(values[i]);
    const ExistingVtable* best = nullptr;
    for (const ExistingVtable& v : existing) {
      if ((need & ~v.shape.fields()) != 0) continue;
      if (best == nullptr || v.shape.table_size < best->shape.table_size ||
          (v.shape.table_size == best->shape.table_size && v.offset < best->offset)) {
        best = &v;
      }
    }
    if (best != nullptr) {
      chosen[i] = *best;
    } else {
      new_vtable_users[need].push_back(i);
    }
  }

  // Work in file offsets; bytes[i] lands at start + i.
  uint64_t at = AlignUp(start, 4);
  struct NewVtable {
    uint64_t offset;
    TableShape shape;
  };
  std::vector<NewVtable> new_vtables;
  for (const auto& [need, users] : new_vtable_users) {
    const TableShape shape = ExactShape(need);
    new_vtables.push_back({at, shape});
    for (size_t i : users) chosen[i] = {at, shape};
    at = AlignUp(at + VtableSize(shape), 4);
  }
  uint64_t end = at;
  for (const ExistingVtable& v : chosen) end += v.shape.table_size;
  out.bytes.assign(end - start, 0);
  out.vtables_appended = new_vtables.size();

  for (const NewVtable& v : new_vtables) {
    uint8_t* vt = out.bytes.data() + (v.offset - start);
    const uint16_t size = VtableSize(v.shape);
    StoreU16(vt, size);
    StoreU16(vt + 2, v.shape.table_size);
    for (int f = 0; 4 + 2 * f < size; ++f) StoreU16(vt + 4 + 2 * f, v.shape.field_at[f]);
  }
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t* table = out.bytes.data() + (at - start);
    // soffset: the vtable lies at table - soffset (before it, here).
    wire::StoreU32(table, static_cast<uint32_t>(static_cast<int32_t>(at - chosen[i].offset)));
    for (int f = 0; f < kAllocationFieldCount; ++f) {
      const uint16_t field = chosen[i].shape.field_at[f];
      if (field != 0) wire::StoreU32(table + field, FieldValue(values[i], f));
    }
    out.table_at.emplace(values[i], at);
    at += chosen[i].shape.table_size;
  }
  return out;
}

}  // namespace pteshare
