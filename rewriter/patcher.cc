#include "rewriter/patcher.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "rewriter/appended_tables.h"
#include "rewriter/byte_ownership.h"
#include "rewriter/name_patch.h"
#include "rewriter/pte_layout.h"
#include "rewriter/wire.h"

namespace pteshare {
namespace {

using flatbuffers::voffset_t;

// Header fields, as file offsets (pte_layout.h: magic, length, then these).
constexpr uint64_t kProgramSizeAt = PteConstants::kHeaderOffset + 8;
constexpr uint64_t kSegmentBaseOffsetAt = PteConstants::kHeaderOffset + 16;
constexpr uint64_t kMaxSegmentAlignment = 4096;

// One Tensor's reference to its AllocationDetails table.
struct TableUse {
  uint64_t reference_at = 0;  // file offset of Tensor.allocation_info's uoffset
  AllocationValue wanted;
  std::string label;  // "method M, value V" for errors
};

// One AllocationDetails table and every Tensor that references it.
struct TableUses {
  const fb::AllocationDetails* table = nullptr;
  AllocationValue current;
  std::vector<TableUse> uses;
};

const flatbuffers::Table& AsTable(const void* generated) {
  return *reinterpret_cast<const flatbuffers::Table*>(generated);
}

uint64_t OffsetIn(std::span<const uint8_t> file, const void* p) {
  return static_cast<uint64_t>(static_cast<const uint8_t*>(p) - file.data());
}

std::vector<uint8_t> U32Bytes(uint32_t v) {
  std::vector<uint8_t> bytes(4);
  wire::StoreU32(bytes.data(), v);
  return bytes;
}

std::vector<uint8_t> U64Bytes(uint64_t v) {
  std::vector<uint8_t> bytes(8);
  wire::StoreU64(bytes.data(), v);
  return bytes;
}

AllocationValue CurrentValue(const fb::AllocationDetails& table) {
  return {table.memory_id(),
          uint64_t{table.memory_offset_high()} << 32 | table.memory_offset_low()};
}

// Every Tensor with allocation_info, grouped by table. A tensor the plan
// does not move (not planned: DYNAMIC_UNBOUND) wants what it has.
Result<std::map<uint64_t, TableUses>> CollectTableUses(std::span<const uint8_t> file,
                                                       const ProgramView& view, const Plan& plan) {
  if (plan.methods.size() != view.methods.size()) {
    return Error{"the plan has " + std::to_string(plan.methods.size()) +
                 " methods but the program has " + std::to_string(view.methods.size())};
  }
  std::map<uint64_t, TableUses> tables;
  for (const MethodPlan& method_plan : plan.methods) {
    const MethodView& method = view.methods[method_plan.method_index];
    std::map<uint32_t, const TensorMove*> moves;
    for (const TensorMove& move : method_plan.moves) moves[move.value_index] = &move;
    size_t planned_seen = 0;
    for (const TensorValue& tensor : method.tensors) {
      const fb::AllocationDetails* table = tensor.table ? tensor.table->allocation_info() : nullptr;
      if (table == nullptr) continue;
      const std::string label =
          "method " + method.name + ", value " + std::to_string(tensor.value_index);
      TableUses& entry = tables[OffsetIn(file, table)];
      entry.table = table;
      entry.current = CurrentValue(*table);
      TableUse use{
          OffsetIn(file, AsTable(tensor.table).GetAddressOf(fb::Tensor::VT_ALLOCATION_INFO)),
          entry.current, label};
      auto move = moves.find(tensor.value_index);
      if (move != moves.end()) {
        ++planned_seen;
        const Placement& before = move->second->before;
        if (before.memory_id != entry.current.memory_id || before.offset != entry.current.offset) {
          return Error{label + ": the plan starts from arena " + std::to_string(before.memory_id) +
                       " offset " + std::to_string(before.offset) + " but the file says arena " +
                       std::to_string(entry.current.memory_id) + " offset " +
                       std::to_string(entry.current.offset)};
        }
        use.wanted = {move->second->after.memory_id, move->second->after.offset};
      }
      entry.uses.push_back(std::move(use));
    }
    if (planned_seen != method_plan.moves.size()) {
      return Error{"method " + method.name + ": the plan moves " +
                   std::to_string(method_plan.moves.size()) + " tensors but only " +
                   std::to_string(planned_seen) + " of them have allocation info"};
    }
  }
  return tables;
}

// Writes of the fields that differ, or nullopt if a needed field is absent
// (an absent field reads as 0, so a new 0 needs nothing).
std::optional<std::vector<ByteOverwrite>> InPlaceFieldWrites(std::span<const uint8_t> file,
                                                             const TableUses& entry,
                                                             AllocationValue wanted) {
  struct Field {
    voffset_t id;
    uint32_t now, next;
  };
  const Field fields[] = {
      {fb::AllocationDetails::VT_MEMORY_ID, entry.current.memory_id, wanted.memory_id},
      {fb::AllocationDetails::VT_MEMORY_OFFSET_LOW, entry.current.low(), wanted.low()},
      {fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH, entry.current.high(), wanted.high()},
  };
  std::vector<ByteOverwrite> writes;
  for (const Field& f : fields) {
    const uint8_t* at = AsTable(entry.table).GetAddressOf(f.id);
    if (at == nullptr) {
      if (f.next != 0) return std::nullopt;
      continue;
    }
    if (f.now != f.next) writes.push_back({OffsetIn(file, at), U32Bytes(f.next)});
  }
  return writes;
}

// The first complete table's vtable, if appended tables can share it.
std::optional<ExistingVtable> FindReusableVtable(std::span<const uint8_t> program,
                                                 const std::map<uint64_t, TableUses>& tables) {
  for (const auto& [offset, entry] : tables) {
    const flatbuffers::Table& t = AsTable(entry.table);
    if (t.GetAddressOf(fb::AllocationDetails::VT_MEMORY_ID) &&
        t.GetAddressOf(fb::AllocationDetails::VT_MEMORY_OFFSET_LOW) &&
        t.GetAddressOf(fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH)) {
      if (auto vtable = ReusableVtable(program, offset)) return vtable;
    }
  }
  return std::nullopt;
}

Status AddArenaSizeWrites(std::span<const uint8_t> file, const ProgramView& view, const Plan& plan,
                          PatchSet& patch) {
  for (const MethodPlan& method_plan : plan.methods) {
    const MethodView& method = view.methods[method_plan.method_index];
    const auto* sizes = method.plan->non_const_buffer_sizes();
    const size_t stored = sizes ? sizes->size() : 0;
    if (method_plan.arena_sizes_after.size() + 1 != std::max<size_t>(stored, 1)) {
      return Error{"method " + method.name + ": the plan has " +
                   std::to_string(method_plan.arena_sizes_after.size()) +
                   " arena sizes but non_const_buffer_sizes has " + std::to_string(stored) +
                   " entries (entry 0 reserved)"};
    }
    for (size_t i = 0; i < method_plan.arena_sizes_after.size(); ++i) {
      const uint64_t after = method_plan.arena_sizes_after[i];
      const uint8_t* at = reinterpret_cast<const uint8_t*>(sizes->Data()) + 8 * (i + 1);
      if (wire::LoadU64(at) == after) continue;  // byte-wise: may sit at 4 mod 8
      patch.overwrites.push_back({OffsetIn(file, at), U64Bytes(after)});
      ++patch.arena_sizes_changed;
    }
  }
  return Status::Ok();
}

// program_size, and the segment move if the appended bytes reach them.
void PlaceAppendedBytes(const PteLayout& layout, PatchSet& patch) {
  patch.new_program_size = patch.old_program_size + patch.appended.size();
  patch.new_file_size = std::max(patch.old_file_size, patch.new_program_size);
  if (!layout.header.present) return;  // the whole file is the flatbuffer
  if (patch.new_program_size != patch.old_program_size) {
    patch.overwrites.push_back({kProgramSizeAt, U64Bytes(patch.new_program_size)});
  }
  const uint64_t base = layout.segment_base_offset;
  patch.old_segment_base_offset = patch.new_segment_base_offset = base;
  if (base == 0 || patch.new_program_size <= base) return;
  // Every segment keeps its absolute alignment if the shift is a multiple
  // of the largest alignment among them (all are powers of two).
  uint64_t alignment = SegmentAlignment(base);
  for (const SegmentExtent& s : layout.segments) {
    alignment = std::max(alignment, SegmentAlignment(s.file_offset));
  }
  const uint64_t need = patch.new_program_size - base;
  const uint64_t shift = (need + alignment - 1) / alignment * alignment;
  patch.new_segment_base_offset = base + shift;
  patch.new_file_size = patch.old_file_size + shift;
  patch.overwrites.push_back({kSegmentBaseOffsetAt, U64Bytes(patch.new_segment_base_offset)});
}

// FlatBuffers lets objects overlap (a string over a table) in a file that
// still verifies; a canonical writer never does that, a hostile one can, and
// then an in-place field write would also change the other object. So the
// patch is applied to a copy of the flatbuffer first: it must verify, and
// every tensor must keep its name, type and size. Refusing here means
// nothing is written; the writer's re-read after writing stays as well.
Status CheckPatchedFlatbuffer(std::span<const uint8_t> file, const ProgramView& view,
                              const PatchSet& patch, const std::vector<TensorName>& names) {
  std::vector<uint8_t> flat(patch.new_program_size, 0);
  std::copy_n(file.begin(), std::min<uint64_t>(file.size(), flat.size()), flat.begin());
  for (const ByteOverwrite& w : patch.AllWrites()) {
    if (w.offset >= flat.size()) continue;  // header of the segments, or past the program
    const size_t n = std::min<uint64_t>(w.bytes.size(), flat.size() - w.offset);
    std::copy_n(w.bytes.begin(), n, flat.begin() + static_cast<ptrdiff_t>(w.offset));
  }
  const auto max_tables = static_cast<flatbuffers::uoffset_t>(flat.size() / 4 + 64);
  flatbuffers::Verifier verifier(flat.data(), flat.size(), /*max_depth=*/64, max_tables);
  const Error refused{
      "this file's FlatBuffers objects overlap, so the patch would also change "
      "other data (a non-canonical or damaged file); refusing before writing"};
  if (!fb::VerifyProgramBuffer(verifier)) return refused;
  Result<ProgramView> after = ReadProgramView(*fb::GetProgram(flat.data()), view.layout);
  if (!after.ok() || after->methods.size() != view.methods.size()) return refused;
  std::set<std::pair<uint32_t, uint32_t>> named;  // (method, value) given a name
  for (const TensorName& n : names) named.insert({n.method_index, n.value_index});
  for (size_t m = 0; m < view.methods.size(); ++m) {
    const auto& a = view.methods[m].tensors;
    const auto& b = after->methods[m].tensors;
    if (a.size() != b.size()) return refused;
    for (size_t i = 0; i < a.size(); ++i) {
      const bool renamed = named.count({static_cast<uint32_t>(m), a[i].value_index}) != 0;
      if (a[i].value_index != b[i].value_index || (!renamed && a[i].name != b[i].name) ||
          a[i].scalar_type != b[i].scalar_type || a[i].nbytes != b[i].nbytes) {
        return refused;
      }
    }
  }
  return Status::Ok();
}

}  // namespace

uint64_t SegmentAlignment(uint64_t file_offset) {
  if (file_offset == 0) return kMaxSegmentAlignment;
  return std::min<uint64_t>(kMaxSegmentAlignment, file_offset & (~file_offset + 1));
}

std::vector<ByteOverwrite> PatchSet::AllWrites() const {
  std::vector<ByteOverwrite> writes = overwrites;
  if (!appended.empty()) writes.push_back({old_program_size, appended});
  return writes;  // appended bytes lie after every overwrite
}

Result<PatchSet> MakePatchSet(std::span<const uint8_t> file, const ProgramView& view,
                              const Plan& plan, const std::vector<TensorName>& names) {
  const PteLayout& layout = view.layout;
  if (file.size() != layout.file_size) {
    return Error{"the view was read from a file of " + std::to_string(layout.file_size) +
                 " bytes, not this one of " + std::to_string(file.size())};
  }
  PatchSet patch;
  patch.old_file_size = layout.file_size;
  patch.old_program_size = layout.program_size;

  Result<std::map<uint64_t, TableUses>> tables = CollectTableUses(file, view, plan);
  if (!tables.ok()) return tables.error();

  // Decide per table: nothing, overwrite in place, or repoint its tensors.
  std::vector<const TableUse*> repointed;
  for (const auto& [offset, entry] : *tables) {
    const AllocationValue wanted = entry.uses.front().wanted;
    const bool agreed = std::all_of(entry.uses.begin(), entry.uses.end(),
                                    [&](const TableUse& u) { return u.wanted == wanted; });
    if (agreed && wanted == entry.current) continue;
    if (agreed) {
      if (auto writes = InPlaceFieldWrites(file, entry, wanted)) {
        patch.fields_overwritten += writes->size();
        patch.overwrites.insert(patch.overwrites.end(), writes->begin(), writes->end());
        continue;
      }
    }
    for (const TableUse& use : entry.uses) {
      if (use.wanted != entry.current) repointed.push_back(&use);
    }
  }

  std::set<AllocationValue> distinct;
  for (const TableUse* use : repointed) distinct.insert(use->wanted);
  AppendedTables appended = BuildAppendedTables(
      patch.old_program_size, std::vector<AllocationValue>(distinct.begin(), distinct.end()),
      FindReusableVtable(file.first(layout.program_size), *tables));
  for (const TableUse* use : repointed) {
    const uint64_t target = appended.table_at.at(use->wanted);
    patch.overwrites.push_back(
        {use->reference_at, U32Bytes(static_cast<uint32_t>(target - use->reference_at))});
  }
  patch.tables_appended = distinct.size();
  patch.tensors_repointed = repointed.size();
  patch.appended = std::move(appended.bytes);
  std::set<uint64_t> name_references;  // EValue offsets --write-names repoints
  if (!names.empty()) {
    Result<NamedTensorCopies> copies = BuildNamedTensorCopies(
        file, view, plan, names, patch.old_program_size + patch.appended.size());
    if (!copies.ok()) return copies.error();
    patch.appended.insert(patch.appended.end(), copies->bytes.begin(), copies->bytes.end());
    patch.overwrites.insert(patch.overwrites.end(), copies->overwrites.begin(),
                            copies->overwrites.end());
    for (const ByteOverwrite& w : copies->overwrites) name_references.insert(w.offset);
    patch.names_written = names.size();
  }

  Status sizes = AddArenaSizeWrites(file, view, plan, patch);
  if (!sizes.ok()) return sizes.error();
  PlaceAppendedBytes(layout, patch);
  if (patch.new_program_size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return Error{"the rewritten flatbuffer would be " + std::to_string(patch.new_program_size) +
                 " bytes, beyond the FlatBuffers limit of " +
                 std::to_string(FLATBUFFERS_MAX_BUFFER_SIZE)};
  }

  std::sort(patch.overwrites.begin(), patch.overwrites.end(),
            [](const ByteOverwrite& a, const ByteOverwrite& b) { return a.offset < b.offset; });
  for (size_t i = 1; i < patch.overwrites.size(); ++i) {
    if (patch.overwrites[i].offset < patch.overwrites[i - 1].end()) {
      return Error{"internal error: two patches overlap at offset " +
                   std::to_string(patch.overwrites[i].offset)};
    }
  }
  // Every byte the patch changes must belong to allocation info and to no
  // other object (byte_ownership.h): refused here, nothing is written. The
  // one exception is --write-names repointing an EValue to its named copy
  // (name_patch.h), which the ownership map must show to be an EValue's val.
  const ByteOwnership ownership = ByteOwnership::Map(file.first(layout.program_size), layout);
  for (const ByteOverwrite& w : patch.overwrites) {
    if (name_references.count(w.offset) != 0) continue;
    if (!ownership.AllocationOnly(w.offset, w.bytes.size())) {
      return Error{"the patch would change bytes [" + std::to_string(w.offset) + ", " +
                   std::to_string(w.end()) + ") that also belong to " +
                   ownership.OtherOwner(w.offset, w.bytes.size()) +
                   " (this file's objects overlap); refusing before writing"};
    }
  }
  Status safe = CheckPatchedFlatbuffer(file, view, patch, names);
  if (!safe.ok()) return safe.error();
  return patch;
}

}  // namespace pteshare
