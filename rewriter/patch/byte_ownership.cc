#include "rewriter/patch/byte_ownership.h"

#include <flatbuffers/minireflect.h>

#include <algorithm>
#include <utility>

#include "program_generated.h"
#include "rewriter/patch/visited_objects.h"
#include "wire.h"

namespace pteshare {

namespace {

using flatbuffers::ElementaryType;
using flatbuffers::TypeTable;

// Field positions (vtable slot = 4 + 2 * index) of the allocation info.
constexpr size_t FieldIndex(flatbuffers::voffset_t vtable_offset) {
  return (vtable_offset - 4) / 2;
}

}  // namespace

// Walks the verified flatbuffer and records every part (see the header).
// Every read is of an object the FlatBuffers verifier has already checked
// against the same schema, so offsets are in bounds.
class OwnershipWalker {
 public:
  OwnershipWalker(std::span<const uint8_t> program, ByteOwnership& map)
      : bytes_(program), map_(map), visited_(program.size()) {}

  void Table(uint64_t at, const TypeTable* type) {
    if (type == nullptr || !visited_.Insert(at, type)) return;
    Add(at, 4, false, "a table's vtable offset");
    const uint64_t vtable = at - static_cast<uint64_t>(static_cast<int64_t>(LoadI32(at)));
    const uint16_t vtable_size = wire::LoadU16(bytes_.data() + vtable);
    // Tables of one shape share a vtable: record it once.
    if (visited_.Insert(vtable, &kVtableKind)) Add(vtable, vtable_size, false, "a vtable");
    for (size_t i = 0; i < type->num_elems; ++i) {
      const size_t slot = 4 + 2 * i;
      if (slot + 2 > vtable_size) break;
      const uint16_t field_at = wire::LoadU16(bytes_.data() + vtable + slot);
      if (field_at == 0) continue;
      Field(at, at + field_at, type, i);
    }
  }

 private:
  void Field(uint64_t table, uint64_t at, const TypeTable* type, size_t i) {
    const flatbuffers::TypeCode code = type->type_codes[i];
    const auto base = static_cast<ElementaryType>(code.base_type);
    const TypeTable* ref = code.sequence_ref >= 0 ? type->type_refs[code.sequence_ref]() : nullptr;
    const char* name = type->names != nullptr ? type->names[i] : "a field";
    if (code.is_repeating) {
      // The arena vectors' references: a plan that adds arenas repoints them
      // to longer vectors (arena_vectors.h).
      Add(at, 4,
          type == fb::ExecutionPlanTypeTable() &&
              (i == FieldIndex(fb::ExecutionPlan::VT_NON_CONST_BUFFER_SIZES) ||
               i == FieldIndex(fb::ExecutionPlan::VT_NON_CONST_BUFFER_DEVICE)),
          name);
      Vector(at + LoadU32(at), base, ref, name,
             type == fb::ExecutionPlanTypeTable() &&
                 i == FieldIndex(fb::ExecutionPlan::VT_NON_CONST_BUFFER_SIZES));
      return;
    }
    switch (base) {
      case ElementaryType::ET_STRING:
        Add(at, 4, false, name);
        String(at + LoadU32(at));
        return;
      case ElementaryType::ET_SEQUENCE:
        if (ref == nullptr) return;
        if (ref->st == flatbuffers::ST_STRUCT) {
          Add(at, flatbuffers::InlineSize(base, ref), false, name);
          return;
        }
        Add(at, 4, type == fb::TensorTypeTable() && i == FieldIndex(fb::Tensor::VT_ALLOCATION_INFO),
            name);
        if (ref->st == flatbuffers::ST_TABLE) {
          Table(at + LoadU32(at), ref);
        } else if (ref->st == flatbuffers::ST_UNION && i > 0) {
          Union(table, type, i, at + LoadU32(at), ref);
        }
        return;
      default: {
        const bool allocation = type == fb::AllocationDetailsTypeTable();  // its three fields
        Add(at, flatbuffers::InlineSize(base, ref), allocation, name);
        return;
      }
    }
  }

  // The union's type is the field before it (flatc puts `X_type` there).
  void Union(uint64_t table, const TypeTable* type, size_t i, uint64_t target,
             const TypeTable* union_type) {
    const uint64_t vtable = table - static_cast<uint64_t>(static_cast<int64_t>(LoadI32(table)));
    const size_t slot = 4 + 2 * (i - 1);
    if (slot + 2 > wire::LoadU16(bytes_.data() + vtable)) return;
    const uint16_t type_at = wire::LoadU16(bytes_.data() + vtable + slot);
    if (type_at == 0 || static_cast<ElementaryType>(type->type_codes[i - 1].base_type) !=
                            ElementaryType::ET_UTYPE) {
      return;
    }
    const uint8_t tag = bytes_[table + type_at];
    const int64_t index = flatbuffers::LookupEnum(tag, union_type->values, union_type->num_elems);
    if (index < 0 || static_cast<size_t>(index) >= union_type->num_elems) return;  // unknown
    const flatbuffers::TypeCode member = union_type->type_codes[index];
    if (member.sequence_ref < 0) return;  // NONE
    if (static_cast<ElementaryType>(member.base_type) == ElementaryType::ET_STRING) {
      String(target);
      return;
    }
    const TypeTable* ref = union_type->type_refs[member.sequence_ref]();
    if (ref != nullptr && ref->st == flatbuffers::ST_TABLE) Table(target, ref);
  }

  void Vector(uint64_t at, ElementaryType base, const TypeTable* ref, const char* name,
              bool allocation) {
    const bool tables =
        base == ElementaryType::ET_SEQUENCE && ref != nullptr && ref->st == flatbuffers::ST_TABLE;
    const bool strings = base == ElementaryType::ET_STRING;
    const uint64_t element = tables || strings ? 4 : flatbuffers::InlineSize(base, ref);
    // A vector of tables is keyed by its element type, one byte past the
    // type table's address (never a key of anything else).
    const void* kind = ref != nullptr
                           ? static_cast<const void*>(reinterpret_cast<const char*>(ref) + 1)
                           : &kVectorKinds[static_cast<size_t>(base)];
    if (!visited_.Insert(at, kind)) return;
    const uint64_t count = LoadU32(at);
    Add(at, 4, false, "a vector's length");
    Add(at + 4, count * element, allocation, name);
    if (!tables && !strings) return;
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t slot = at + 4 + 4 * k;
      if (tables) {
        Table(slot + LoadU32(slot), ref);
      } else {
        String(slot + LoadU32(slot));
      }
    }
  }

  void String(uint64_t at) {
    if (!visited_.Insert(at, &kStringKind)) return;
    Add(at, 4 + uint64_t{LoadU32(at)} + 1, false, "a string");
  }

  uint32_t LoadU32(uint64_t at) const { return wire::LoadU32(bytes_.data() + at); }
  int32_t LoadI32(uint64_t at) const { return static_cast<int32_t>(LoadU32(at)); }

  void Add(uint64_t at, uint64_t size, bool allocation, const char* what) {
    if (size != 0) map_.Add(at, at + size, allocation, what);
  }

  std::span<const uint8_t> bytes_;
  ByteOwnership& map_;
  // Kinds besides tables (keyed by their type table): a vtable, a string, a
  // vector of each scalar type.
  static constexpr char kVtableKind = 0, kStringKind = 0;
  static constexpr char kVectorKinds[flatbuffers::ET_SEQUENCE + 1] = {};
  VisitedObjects visited_;
};

void ByteOwnership::Add(uint64_t begin, uint64_t end, bool allocation, const char* what) {
  if (!keep_all_) {
    if (end - begin <= kGranule && end / kGranule < granule_met_.size() &&
        !granule_met_[begin / kGranule] && !granule_met_[(end - 1) / kGranule]) {
      return;  // no range in the (at most two) granules it lies in
    }
    // The first range ending past `begin` is the only one that can meet it;
    // it lies between the first ones ending past the starts of begin's
    // bucket and of the next.
    const uint64_t bucket = begin / kAroundBucket;
    const bool indexed = bucket + 1 < around_index_.size();
    const auto from = around_.begin() + (indexed ? around_index_[bucket] : around_index_.back());
    const auto to =
        indexed ? around_.begin() + std::min<size_t>(around_index_[bucket + 1] + 1, around_.size())
                : around_.end();
    auto it = std::partition_point(from, to, [&](const ByteRange& r) { return r.end <= begin; });
    if (it == around_.end() || it->begin >= end) return;
  }
  parts_.push_back({{begin, end}, allocation, what});
}

ByteOwnership ByteOwnership::Map(std::span<const uint8_t> program, const PteLayout& layout) {
  return Walk(program, layout, ByteOwnership());
}

ByteOwnership ByteOwnership::MapAround(std::span<const uint8_t> program, const PteLayout& layout,
                                       std::vector<ByteRange> ranges) {
  ByteOwnership map;
  map.around_ = std::move(ranges);
  // Buckets up to the program's end and one past it (a begin past them is
  // searched from the last one on).
  const uint64_t buckets = program.size() / kAroundBucket + 2;
  map.around_index_.resize(static_cast<size_t>(buckets));
  size_t first = 0;
  for (uint64_t b = 0; b < buckets; ++b) {
    while (first < map.around_.size() && map.around_[first].end <= b * kAroundBucket) ++first;
    map.around_index_[static_cast<size_t>(b)] = static_cast<uint32_t>(first);
  }
  map.granule_met_.resize(static_cast<size_t>(program.size() / kGranule + 1));
  for (const ByteRange& r : map.around_) {
    for (uint64_t g = r.begin / kGranule; g * kGranule < r.end && g < map.granule_met_.size();
         ++g) {
      map.granule_met_[static_cast<size_t>(g)] = true;
    }
  }
  map.keep_all_ = false;
  return Walk(program, layout, std::move(map));
}

ByteOwnership ByteOwnership::Walk(std::span<const uint8_t> program, const PteLayout& layout,
                                  ByteOwnership map) {
  map.Add(0, PteConstants::kHeaderOffset, false, "the root offset and identifier");
  if (layout.header.present) {
    // The two sizes a rewrite changes; the rest of the header is not ours.
    constexpr uint64_t h = PteConstants::kHeaderOffset;
    map.Add(h, h + 8, false, "the extended header");
    map.Add(h + 8, h + 16, true, "program_size");
    map.Add(h + 16, h + 24, true, "segment_base_offset");
    if (layout.header.length > 24)
      map.Add(h + 24, h + layout.header.length, false, "the extended header");
  }
  // About one part per 5 bytes in exporter files: reserved (untouched pages
  // cost nothing), so a million parts are not copied on every doubling;
  // at most 4 Mi parts (128 MiB) ahead of need.
  if (map.keep_all_) {
    map.parts_.reserve(std::min<size_t>(program.size() / 4 + 16, size_t{1} << 22));
  }
  OwnershipWalker walker(program, map);
  walker.Table(wire::LoadU32(program.data()), fb::ProgramTypeTable());
  map.Sweep();
  return map;
}

// Cuts the parts into pieces with their owner count. An offset and a part
// index pack into one integer (a verified buffer is below 2^31 bytes, and
// a part takes 32 bytes, so their count is far below 2^31), so the sorts
// are of plain numbers. In a well-formed file no two parts overlap and
// every part is a piece of its own: found from the parts by start alone.
// Otherwise a sweep over both ends counts the owners; the order of the
// events at one offset does not matter (all of them are applied before the
// piece after it is cut).
void ByteOwnership::Sweep() {
  auto offset_of = [](uint64_t key) { return key >> 32; };
  auto index_of = [](uint64_t key) { return static_cast<size_t>((key & 0xffffffffu) >> 1); };
  std::vector<uint64_t> starts;
  starts.reserve(parts_.size());
  for (size_t i = 0; i < parts_.size(); ++i) starts.push_back(parts_[i].range.begin << 32 | i << 1);
  std::sort(starts.begin(), starts.end());
  bool disjoint = true;
  for (size_t k = 1; k < starts.size() && disjoint; ++k) {
    disjoint = parts_[index_of(starts[k - 1])].range.end <= offset_of(starts[k]);
  }
  pieces_.reserve(parts_.size());
  if (disjoint) {
    for (uint64_t key : starts) pieces_.push_back({parts_[index_of(key)].range, 1, index_of(key)});
    return;
  }
  std::vector<uint64_t> events = std::move(starts);
  for (uint64_t& key : events) key |= 1;  // 1: a start, 0: an end
  for (size_t i = 0; i < parts_.size(); ++i) events.push_back(parts_[i].range.end << 32 | i << 1);
  std::sort(events.begin(), events.end());
  // Open parts; with one open, which one (the sum of open indices is that
  // index when the count is one).
  uint32_t open = 0;
  uint64_t index_sum = 0;
  for (size_t e = 0; e < events.size();) {
    const uint64_t at = offset_of(events[e]);
    for (; e < events.size() && offset_of(events[e]) == at; ++e) {
      const bool starts_here = (events[e] & 1) != 0;
      open = starts_here ? open + 1 : open - 1;
      index_sum = starts_here ? index_sum + index_of(events[e]) : index_sum - index_of(events[e]);
    }
    if (open == 0 || e == events.size()) continue;
    pieces_.push_back({{at, offset_of(events[e])}, open, static_cast<size_t>(index_sum)});
  }
}

std::span<const ByteOwnership::Piece> ByteOwnership::Overlapping(uint64_t offset,
                                                                 uint64_t length) const {
  const uint64_t end = offset + length;
  auto first = std::partition_point(pieces_.begin(), pieces_.end(),
                                    [&](const Piece& p) { return p.range.end <= offset; });
  auto last = std::partition_point(first, pieces_.end(),
                                   [&](const Piece& p) { return p.range.begin < end; });
  return {first, last};
}

bool ByteOwnership::AllocationOnly(uint64_t offset, uint64_t length) const {
  uint64_t covered = offset;
  for (const Piece& p : Overlapping(offset, length)) {
    if (p.range.begin > covered) return false;  // a byte nothing owns
    if (p.owners != 1 || !parts_[p.only].allocation) return false;
    covered = p.range.end;
  }
  return covered >= offset + length;
}

std::string ByteOwnership::OtherOwner(uint64_t offset, uint64_t length) const {
  for (const Piece& p : Overlapping(offset, length)) {
    if (p.owners == 1 && parts_[p.only].allocation) continue;
    if (p.owners == 1) return parts_[p.only].what;
    // Name a part that is not allocation info, if there is one.
    for (const Part& part : parts_) {
      if (!part.allocation && part.range.begin < p.range.end && p.range.begin < part.range.end) {
        return part.what;
      }
    }
    return "another allocation field";
  }
  return "nothing (padding)";
}

std::vector<ByteRange> ByteOwnership::AllocationOnlyRanges() const {
  std::vector<ByteRange> ranges;
  for (const Piece& p : pieces_) {
    if (p.owners != 1 || !parts_[p.only].allocation) continue;
    if (!ranges.empty() && ranges.back().end == p.range.begin) {
      ranges.back().end = p.range.end;
    } else {
      ranges.push_back(p.range);
    }
  }
  return ranges;
}

}  // namespace pteshare
