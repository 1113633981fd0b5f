// Patcher: turns a verified Plan into a PatchSet, the exact bytes a rewrite
// changes, without writing anything (docs/design.md, "Writing").
//
//  - Tensors are pointed at AllocationDetails tables by table_reuse.h: a
//    table whose tensors agree is overwritten in place (only stored fields
//    can be; an absent field reads as 0, so a new value 0 needs no write);
//    a tensor whose table cannot say its value points at another table
//    that does (or is taken over to), further on in the buffer; only the
//    values no existing table can say get tables appended after the old
//    end of the flatbuffer (appended_tables.h), as small as the format
//    allows. non_const_buffer_sizes entries are overwritten in place
//    (vectors store every element); a method that gets new arenas
//    (Layout::kArena) gets new vectors instead (arena_vectors.h).
//  - program_size grows over the appended bytes. If they run into the
//    segments, the segment data moves up by a whole multiple of
//    kSegmentShiftUnit (4096: every segment alignment up to 4096 is kept,
//    and the writer can open the gap with FALLOC_FL_INSERT_RANGE instead of
//    copying), and segment_base_offset follows (segment offsets are
//    relative and stay). Without an extended header the whole file is the
//    flatbuffer and simply grows.
// Rewriting the result with the same options gives an empty PatchSet (I7):
// every tensor already says what the plan wants. The PatchSet depends only
// on the input bytes and the plan (I8).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/patch/byte_overwrite.h"
#include "rewriter/patch/tensor_name.h"
#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"

namespace pteshare {

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
  size_t tables_taken_over = 0;  // existing tables given a new tensor's value
  size_t tensors_repointed = 0;
  size_t arena_sizes_changed = 0;
  /// non_const_buffer_sizes / _device vectors appended for new arenas
  /// (arena_vectors.h).
  size_t arena_vectors_appended = 0;
  size_t names_written = 0;

  bool empty() const { return overwrites.empty() && appended.empty(); }
  uint64_t segment_shift() const { return new_segment_base_offset - old_segment_base_offset; }
  bool segments_move() const { return segment_shift() != 0; }
  /// The overwrites and the appended bytes as one sorted list of writes.
  std::vector<ByteOverwrite> AllWrites() const;
};

/// The patch for `plan` (already verified) on the file `file`, which `view`
/// was read from (its table pointers point into `file`); with `names`, also
/// the named Tensor copies of name_patch.h. Errors, kNoValidPlan: a plan
/// that does not describe this program, a result the format cannot hold;
/// kBadInput: a byte the patch must change also belongs to another object
/// (a hostile file whose objects overlap).
Result<PatchSet> MakePatchSet(std::span<const uint8_t> file, const ProgramView& view,
                              const Plan& plan, const std::vector<TensorName>& names = {});

/// Segments move by whole multiples of this (see above).
inline constexpr uint64_t kSegmentShiftUnit = 4096;

}  // namespace pteshare
