#include "rewriter/patch/patcher.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "program_fields.h"
#include "rewriter/patch/appended_tables.h"
#include "rewriter/patch/arena_vectors.h"
#include "rewriter/patch/byte_ownership.h"
#include "rewriter/patch/name_patch.h"
#include "rewriter/patch/table_reuse.h"
#include "rewriter/patch/unknown_fields.h"
#include "rewriter/program/program_tables.h"
#include "rewriter/program/pte_layout.h"
#include "verify_bounded.h"
#include "wire.h"

namespace pteshare {
namespace {

using flatbuffers::voffset_t;

// Header fields, as file offsets (pte_layout.h: magic, length, then these).
constexpr uint64_t kProgramSizeAt = PteConstants::kHeaderOffset + PteConstants::kProgramSizeAt;
constexpr uint64_t kSegmentBaseOffsetAt =
    PteConstants::kHeaderOffset + PteConstants::kSegmentBaseOffsetAt;

// One Tensor's reference to its AllocationDetails table.
struct TableUse {
  uint64_t reference_at = 0;  // file offset of Tensor.allocation_info's uoffset
  AllocationValue wanted;
};

// One AllocationDetails table and every Tensor that references it (its
// uses, in TableList::uses).
struct TableUses {
  uint64_t offset = 0;  // the table's, in the file
  const fb::AllocationDetails* table = nullptr;
  AllocationValue current;
  size_t first_use = 0;
  size_t use_count = 0;
};

// Every table by offset, each one's uses in one vector grouped by table
// (sorted once: not a map node and a vector per table).
struct TableList {
  std::vector<TableUses> tables;
  std::vector<TableUse> uses;

  std::span<const TableUse> UsesOf(const TableUses& t) const {
    return {uses.data() + t.first_use, t.use_count};
  }
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
          fields::AllocationOffset(table.memory_offset_low(), table.memory_offset_high())};
}

// Every Tensor with allocation_info, grouped by table. A tensor the plan
// does not move (not planned: DYNAMIC_UNBOUND) wants what it has.
Result<TableList> CollectTableUses(std::span<const uint8_t> file, const ProgramView& view,
                                   const Plan& plan) {
  if (plan.methods.size() != view.methods.size()) {
    return Error{"the plan has " + std::to_string(plan.methods.size()) +
                 " methods but the program has " + std::to_string(view.methods.size())};
  }
  // (table offset, order found, use): sorted, the uses of each table in
  // the order found, as the tensors come.
  struct Found {
    uint64_t table_at;
    size_t order;
    const fb::AllocationDetails* table;
    TableUse use;
  };
  std::vector<Found> found;
  const fb::Program& program = ProgramTable(file);
  for (const MethodPlan& method_plan : plan.methods) {
    const MethodView& method = view.methods[method_plan.method_index];
    // Per value index, its move (the last one wins, as a map's would).
    std::vector<const TensorMove*> moves(method.value_count, nullptr);
    for (const TensorMove& move : method_plan.moves) {
      if (move.value_index < moves.size()) moves[move.value_index] = &move;
    }
    size_t planned_seen = 0;
    for (const TensorValue& tensor : method.tensors) {
      const fb::Tensor& tensor_table = TensorTable(program, method, tensor);
      const fb::AllocationDetails* table = tensor_table.allocation_info();
      if (table == nullptr) continue;
      const AllocationValue current = CurrentValue(*table);
      TableUse use{
          OffsetIn(file, AsTable(&tensor_table).GetAddressOf(fb::Tensor::VT_ALLOCATION_INFO)),
          current};
      if (const TensorMove* move = moves[tensor.value_index]) {
        ++planned_seen;
        const Placement& before = move->before;
        if (before.memory_id != current.memory_id || before.offset != current.offset) {
          return Error{ValueLabel(method.name, tensor.value_index) +
                       ": the plan starts from arena " + std::to_string(before.memory_id) +
                       " offset " + std::to_string(before.offset) + " but the file says arena " +
                       std::to_string(current.memory_id) + " offset " +
                       std::to_string(current.offset)};
        }
        use.wanted = {move->after.memory_id, move->after.offset};
      }
      found.push_back({OffsetIn(file, table), found.size(), table, use});
    }
    if (planned_seen != method_plan.moves.size()) {
      return Error{"method " + method.name + ": the plan moves " +
                   std::to_string(method_plan.moves.size()) + " tensors but only " +
                   std::to_string(planned_seen) + " of them have allocation info"};
    }
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return a.table_at != b.table_at ? a.table_at < b.table_at : a.order < b.order;
  });
  TableList list;
  list.uses.reserve(found.size());
  for (const Found& f : found) {
    if (list.tables.empty() || list.tables.back().offset != f.table_at) {
      list.tables.push_back({f.table_at, f.table, CurrentValue(*f.table), list.uses.size(), 0});
    }
    list.uses.push_back(f.use);
    ++list.tables.back().use_count;
  }
  return list;
}

// The AllocationField mask of what `table` stores.
uint8_t StoredFields(const fb::AllocationDetails& table) {
  const flatbuffers::Table& t = AsTable(&table);
  uint8_t stored = 0;
  if (t.GetAddressOf(fb::AllocationDetails::VT_MEMORY_ID)) stored |= kMemoryIdField;
  if (t.GetAddressOf(fb::AllocationDetails::VT_MEMORY_OFFSET_LOW)) stored |= kOffsetLowField;
  if (t.GetAddressOf(fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH)) stored |= kOffsetHighField;
  return stored;
}

// Appends to `writes` the writes of the fields that differ between the
// table's value and `next`, which it can hold (table_reuse.h): an absent
// field reads as 0, so a field that must change is stored. Returns how many.
size_t AddFieldWrites(std::span<const uint8_t> file, const TableUses& entry, AllocationValue next,
                      std::vector<ByteOverwrite>* writes) {
  struct Field {
    voffset_t id;
    uint32_t now, next;
  };
  const Field fields[] = {
      {fb::AllocationDetails::VT_MEMORY_ID, entry.current.memory_id, next.memory_id},
      {fb::AllocationDetails::VT_MEMORY_OFFSET_LOW, entry.current.low(), next.low()},
      {fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH, entry.current.high(), next.high()},
  };
  size_t added = 0;
  for (const Field& f : fields) {
    if (f.now == f.next) continue;
    const uint8_t* at = AsTable(entry.table).GetAddressOf(f.id);
    writes->push_back({OffsetIn(file, at), U32Bytes(f.next)});
    ++added;
  }
  return added;
}

// Every distinct vtable of the program's AllocationDetails tables that
// appended tables may share, by offset.
std::vector<ExistingVtable> ReusableVtables(std::span<const uint8_t> program,
                                            const TableList& tables) {
  std::map<uint64_t, ExistingVtable> found;
  for (const TableUses& entry : tables.tables) {
    if (auto vtable = ReusableVtable(program, entry.offset)) found.emplace(vtable->offset, *vtable);
  }
  std::vector<ExistingVtable> vtables;
  for (const auto& [offset, vtable] : found) vtables.push_back(vtable);
  return vtables;
}

// Fields of AllocationDetails: memory_id, memory_offset_low and _high.
constexpr int kAllocationDetailsFields = 3;

// Points the tensors at tables (table_reuse.h), overwriting fields of the
// tables whose value changes and appending tables for the rest. A table
// with fields the schema does not know keeps its tensors and takes no
// others (unknown_fields.h): an assignment that would repoint one is
// refused, `*bad_input` set.
Status AssignAndAppendTables(std::span<const uint8_t> file, const PteLayout& layout,
                             const TableList& tables, PatchSet& patch, bool* bad_input) {
  std::vector<const TableUses*> entries;
  std::vector<TableSlot> slots;
  std::vector<TableReference> references;
  entries.reserve(tables.tables.size());
  slots.reserve(tables.tables.size());
  references.reserve(tables.uses.size());
  for (const TableUses& entry : tables.tables) {
    for (const TableUse& use : tables.UsesOf(entry)) {
      references.push_back({use.reference_at, slots.size(), use.wanted});
    }
    entries.push_back(&entry);
    slots.push_back({entry.offset, StoredFields(*entry.table), entry.current});
  }
  const TableAssignment assignment = AssignTables(slots, references);
  for (size_t r = 0; r < references.size(); ++r) {
    const std::optional<size_t> target = assignment.target[r];
    if (target == references[r].table) continue;
    for (std::optional<size_t> slot : {std::optional(references[r].table), target}) {
      if (!slot) continue;
      const std::optional<int> unknown =
          FirstUnknownField(AsTable(entries[*slot]->table), kAllocationDetailsFields);
      if (!unknown) continue;
      *bad_input = true;
      return Error{UnknownFieldText("the AllocationDetails", slots[*slot].at, *unknown) +
                   "; the plan would point a tensor " +
                   (*slot == references[r].table ? "away from it" : "at it") +
                   ", which would drop or misattribute that field; refusing"};
    }
  }
  AppendedTables appended =
      BuildAppendedTables(patch.old_program_size, assignment.appended,
                          ReusableVtables(file.first(layout.program_size), tables));
  patch.overwrites.reserve(patch.overwrites.size() + kAllocationDetailsFields * slots.size() +
                           references.size());
  for (size_t t = 0; t < slots.size(); ++t) {
    patch.fields_overwritten +=
        AddFieldWrites(file, *entries[t], assignment.final_value[t], &patch.overwrites);
  }
  for (size_t r = 0; r < references.size(); ++r) {
    const std::optional<size_t> target = assignment.target[r];
    if (target == references[r].table) continue;
    const uint64_t at = target ? slots[*target].at : appended.table_at.at(references[r].wanted);
    const uint64_t from = references[r].reference_at;
    patch.overwrites.push_back({from, U32Bytes(static_cast<uint32_t>(at - from))});
    ++patch.tensors_repointed;
  }
  patch.tables_appended = assignment.appended.size();
  patch.tables_taken_over = assignment.tables_taken_over;
  patch.appended = std::move(appended.bytes);
  return Status::Ok();
}

Status AddArenaSizeWrites(std::span<const uint8_t> file, const ProgramView& view, const Plan& plan,
                          PatchSet& patch) {
  for (const MethodPlan& method_plan : plan.methods) {
    const MethodView& method = view.methods[method_plan.method_index];
    if (GrowsArenas(view, method_plan)) continue;  // a new vector (arena_vectors.h)
    const auto* sizes = PlanTable(ProgramTable(file), method).non_const_buffer_sizes();
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
  // Whole multiples of kSegmentShiftUnit, whatever the segments' own
  // alignment: every alignment up to 4096 is kept, the filesystem can open
  // the gap by shifting extents (insert_range.h), and -o gives the same
  // bytes as --in-place.
  const uint64_t need = patch.new_program_size - base;
  const uint64_t shift = (need + kSegmentShiftUnit - 1) / kSegmentShiftUnit * kSegmentShiftUnit;
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
                              const Plan& plan, const PatchSet& patch,
                              const std::vector<TensorName>& names) {
  std::vector<uint8_t> flat(patch.new_program_size, 0);
  std::copy_n(file.begin(), std::min<uint64_t>(file.size(), flat.size()), flat.begin());
  auto apply = [&](uint64_t offset, const std::vector<uint8_t>& bytes) {
    if (offset >= flat.size()) return;  // header of the segments, or past the program
    const size_t n = std::min<uint64_t>(bytes.size(), flat.size() - offset);
    std::copy_n(bytes.begin(), n, flat.begin() + static_cast<ptrdiff_t>(offset));
  };
  // As AllWrites lists them, without copying them into one list.
  for (const ByteOverwrite& w : patch.overwrites) apply(w.offset, w.bytes);
  if (!patch.appended.empty()) apply(patch.old_program_size, patch.appended);
  const Error refused{
      "this file's FlatBuffers objects overlap, so the patch would also change "
      "other data (a non-canonical or damaged file); refusing before writing"};
  if (!verify_bounded::Verify(flat.data(), flat.size(), fb::VerifyProgramBuffer)) return refused;
  Result<ProgramView> after =
      ReadProgramView(*fb::GetProgram(flat.data()), view.layout, ViewEffects::kSkip);
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
  // Which tensor points at which table is decided by table_reuse.h; that
  // every tensor now says what the plan wants is checked here, before
  // anything is written (the writer's re-read checks it again on disk).
  for (const MethodPlan& method_plan : plan.methods) {
    const MethodView& before = view.methods[method_plan.method_index];
    const MethodView& method = after->methods[method_plan.method_index];
    // By position in tensors: the same values before and after (checked above).
    std::vector<Placement> wanted(before.tensors.size());
    for (size_t i = 0; i < before.tensors.size(); ++i) wanted[i] = before.tensors[i].placement;
    for (const TensorMove& move : method_plan.moves) {
      if (const TensorValue* t = before.tensor(move.value_index)) {
        wanted[static_cast<size_t>(t - before.tensors.data())] = move.after;
      }
    }
    for (size_t i = 0; i < method.tensors.size(); ++i) {
      const TensorValue& t = method.tensors[i];
      const Placement& w = wanted[i];
      if (t.placement.memory_id != w.memory_id || t.placement.offset != w.offset) {
        return Error{"internal error: after patching, " + ValueLabel(method.name, t.value_index) +
                     " does not say its planned placement"};
      }
    }
  }
  return Status::Ok();
}

}  // namespace

std::vector<ByteOverwrite> PatchSet::AllWrites() const {
  std::vector<ByteOverwrite> writes = overwrites;
  if (!appended.empty()) writes.push_back({old_program_size, appended});
  return writes;  // appended bytes lie after every overwrite
}

namespace {

// Sorts `writes` by offset (equal offsets in the order given). Sorted as
// (offset, position) keys, then moved into place once: sorting the writes
// themselves moved each one's byte vector about log n times.
void SortByOffset(std::vector<ByteOverwrite>* writes) {
  std::vector<std::pair<uint64_t, size_t>> keys;
  keys.reserve(writes->size());
  for (size_t i = 0; i < writes->size(); ++i) keys.emplace_back((*writes)[i].offset, i);
  std::sort(keys.begin(), keys.end());
  std::vector<ByteOverwrite> sorted;
  sorted.reserve(writes->size());
  for (const auto& key : keys) sorted.push_back(std::move((*writes)[key.second]));
  *writes = std::move(sorted);
}

// The patch as plain data, before its bytes are checked against their
// owners: every error here means this plan cannot be patched in.
// `name_references`: the EValue offsets --write-names repoints.
// `*bad_input`: set when the error is the file's (fields the schema does not
// know), not the plan's.
Result<PatchSet> AssemblePatch(std::span<const uint8_t> file, const ProgramView& view,
                               const Plan& plan, const std::vector<TensorName>& names,
                               std::set<uint64_t>& name_references, bool* bad_input) {
  const PteLayout& layout = view.layout;
  if (file.size() != layout.file_size) {
    return Error{"the view was read from a file of " + std::to_string(layout.file_size) +
                 " bytes, not this one of " + std::to_string(file.size())};
  }
  PatchSet patch;
  patch.old_file_size = layout.file_size;
  patch.old_program_size = layout.program_size;

  Result<TableList> tables = CollectTableUses(file, view, plan);
  if (!tables.ok()) return tables.error();

  Status assigned = AssignAndAppendTables(file, layout, *tables, patch, bad_input);
  if (!assigned.ok()) return assigned.error();
  if (!names.empty()) {
    Result<NamedTensorCopies> copies = BuildNamedTensorCopies(
        file, view, plan, names, patch.old_program_size + patch.appended.size());
    if (!copies.ok()) {
      *bad_input = copies.error().kind == ErrorKind::kBadInput;
      return copies.error();
    }
    patch.appended.insert(patch.appended.end(), copies->bytes.begin(), copies->bytes.end());
    for (const ByteOverwrite& w : copies->overwrites) name_references.insert(w.offset);
    patch.overwrites.insert(patch.overwrites.end(),
                            std::make_move_iterator(copies->overwrites.begin()),
                            std::make_move_iterator(copies->overwrites.end()));
    patch.names_written = names.size();
  }

  Result<GrownArenaVectors> grown =
      BuildGrownArenaVectors(file, view, plan, patch.old_program_size + patch.appended.size());
  if (!grown.ok()) return grown.error();
  patch.appended.insert(patch.appended.end(), grown->bytes.begin(), grown->bytes.end());
  patch.overwrites.insert(patch.overwrites.end(),
                          std::make_move_iterator(grown->overwrites.begin()),
                          std::make_move_iterator(grown->overwrites.end()));
  patch.arena_vectors_appended = grown->vectors_appended;

  Status sizes = AddArenaSizeWrites(file, view, plan, patch);
  if (!sizes.ok()) return sizes.error();
  PlaceAppendedBytes(layout, patch);
  if (patch.new_program_size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return Error{"the rewritten flatbuffer would be " + std::to_string(patch.new_program_size) +
                 " bytes, beyond the FlatBuffers limit of " +
                 std::to_string(FLATBUFFERS_MAX_BUFFER_SIZE)};
  }

  SortByOffset(&patch.overwrites);
  for (size_t i = 1; i < patch.overwrites.size(); ++i) {
    if (patch.overwrites[i].offset < patch.overwrites[i - 1].end()) {
      return Error{"internal error: two patches overlap at offset " +
                   std::to_string(patch.overwrites[i].offset)};
    }
  }
  return patch;
}

}  // namespace

Result<PatchSet> MakePatchSet(std::span<const uint8_t> file, const ProgramView& view,
                              const Plan& plan, const std::vector<TensorName>& names) {
  const PteLayout& layout = view.layout;
  std::set<uint64_t> name_references;
  bool bad_input = false;
  Result<PatchSet> assembled = AssemblePatch(file, view, plan, names, name_references, &bad_input);
  if (!assembled.ok()) {
    return Error{assembled.error().message,
                 bad_input ? ErrorKind::kBadInput : ErrorKind::kNoValidPlan};
  }
  PatchSet& patch = *assembled;
  // Every byte the patch changes must belong to allocation info and to no
  // other object (byte_ownership.h): refused here, nothing is written. The
  // one exception is --write-names repointing an EValue to its named copy
  // (name_patch.h), which the ownership map must show to be an EValue's val.
  // Only the parts around the bytes written are kept: the same answers for
  // those bytes at a fraction of the memory of a whole map.
  std::vector<ByteRange> written;
  written.reserve(patch.overwrites.size());
  for (const ByteOverwrite& w : patch.overwrites) written.push_back({w.offset, w.end()});
  const ByteOwnership ownership =
      ByteOwnership::MapAround(file.first(layout.program_size), layout, std::move(written));
  for (const ByteOverwrite& w : patch.overwrites) {
    if (name_references.count(w.offset) != 0) continue;
    if (!ownership.AllocationOnly(w.offset, w.bytes.size())) {
      // A hostile or broken file, not a plan that cannot be patched in.
      return Error{"the patch would change bytes [" + std::to_string(w.offset) + ", " +
                       std::to_string(w.end()) + ") that also belong to " +
                       ownership.OtherOwner(w.offset, w.bytes.size()) +
                       " (this file's objects overlap); refusing before writing",
                   ErrorKind::kBadInput};
    }
  }
  Status safe = CheckPatchedFlatbuffer(file, view, plan, patch, names);
  if (!safe.ok()) return Error{safe.error().message, ErrorKind::kNoValidPlan};
  return std::move(assembled).value();
}

}  // namespace pteshare
