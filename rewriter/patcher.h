// Patcher: turns a verified Plan into a PatchSet, the exact bytes a rewrite
// changes, without writing anything (docs/design.md, "Rewriting in place").
//
//  - AllocationDetails fields that are stored are overwritten in place, and
//    so are non_const_buffer_sizes entries (vectors store every element). A
//    field that is absent reads as 0, so a new value 0 needs no write.
//  - A table is overwritten only if every tensor referencing it (tables may
//    be shared) wants the same new value and the table stores every field
//    that value needs. Otherwise the tensors that want a different value are
//    repointed to complete tables appended after the old end of the
//    flatbuffer (appended_tables.h), one per distinct value.
//  - program_size grows over the appended bytes. If they run into the
//    segments, the segment data moves up by the smallest amount that keeps
//    every segment's absolute alignment, and segment_base_offset follows
//    (segment offsets are relative and stay). Without an extended header
//    the whole file is the flatbuffer and simply grows.
// Every table a rewrite writes stores all fields, so rewriting the result
// is pure overwriting, and rewriting it with the same options gives an
// empty PatchSet (I7). The PatchSet depends only on the input bytes and the
// plan (I8).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rewriter/plan.h"
#include "rewriter/program_view.h"
#include "rewriter/result.h"

namespace pteshare {

/// `bytes` replace the file's bytes at `offset`.
struct ByteOverwrite {
  uint64_t offset = 0;
  std::vector<uint8_t> bytes;

  uint64_t end() const { return offset + bytes.size(); }
  bool operator==(const ByteOverwrite&) const = default;
};

/// Everything a rewrite changes, as plain data. File offsets of overwrites
/// are the same in the old and the new file (they lie in the flatbuffer,
/// which never moves).
struct PatchSet {
  uint64_t old_file_size = 0;
  uint64_t new_file_size = 0;
  uint64_t old_program_size = 0;
  uint64_t new_program_size = 0;
  /// Sorted by offset, disjoint, inside [0, old_program_size): allocation
  /// fields, Tensor.allocation_info offsets, arena sizes, header fields.
  std::vector<ByteOverwrite> overwrites;
  /// Written at old_program_size: padding, the appended vtable and tables.
  std::vector<uint8_t> appended;
  /// The segment data [old_segment_base_offset, old_file_size) goes to
  /// new_segment_base_offset; zeros fill [new_program_size,
  /// new_segment_base_offset) when it moves. Both 0 without segments.
  uint64_t old_segment_base_offset = 0;
  uint64_t new_segment_base_offset = 0;

  // What the patch does, for reports.
  size_t fields_overwritten = 0;  // allocation fields rewritten in place
  size_t tables_appended = 0;
  size_t tensors_repointed = 0;
  size_t arena_sizes_changed = 0;
  size_t names_written = 0;

  bool empty() const { return overwrites.empty() && appended.empty(); }
  uint64_t segment_shift() const { return new_segment_base_offset - old_segment_base_offset; }
  bool segments_move() const { return segment_shift() != 0; }
  /// The overwrites and the appended bytes as one sorted list of writes.
  std::vector<ByteOverwrite> AllWrites() const;
};

/// A name to store in a tensor's extra_tensor_info (name_patch.h).
struct TensorName {
  uint32_t method_index = 0;
  uint32_t value_index = 0;
  std::string name;
};

/// The patch for `plan` (already verified) on the file `file`, which `view`
/// was read from (its table pointers point into `file`); with `names`, also
/// the named Tensor copies of name_patch.h. Errors: a plan that does not
/// describe this program, a result the format cannot hold.
Result<PatchSet> MakePatchSet(std::span<const uint8_t> file, const ProgramView& view,
                              const Plan& plan, const std::vector<TensorName>& names = {});

/// Largest power of two, capped at 4096, dividing `file_offset`: the
/// alignment a segment at that offset must keep when segments move.
uint64_t SegmentAlignment(uint64_t file_offset);

}  // namespace pteshare
