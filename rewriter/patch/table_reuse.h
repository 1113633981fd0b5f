// Table reuse: which AllocationDetails table each tensor points at after a
// rewrite, so that as few tables as possible are appended.
//
// Every Tensor reference must end at a table that says the tensor's new
// value and lies after the reference (FlatBuffers uoffsets are unsigned, so
// they point forward); a table says one value, for every tensor pointing at
// it, and can say only values whose nonzero fields it stores (an absent
// field cannot be written in place). Within that, a table's owner is free:
//  1. A table all of whose tensors want one value it can hold says that
//     value (overwritten in place, or already so).
//  2. A tensor whose own table cannot say its value points at the highest
//     table already saying it, if that lies after the tensor's reference.
//  3. For each value still without a table (hardest first: the one whose
//     furthest tensor reference lies highest), a table after every such
//     reference is taken over: preferably one no tensor points at any more
//     (its tensors all went elsewhere in 2), else one whose tensors can all
//     move to another table saying their value further on. Among those, the
//     one storing fewest fields (keep capable tables for later values),
//     then the lowest. Exporter output gives the typical case: a buffer
//     moving to offset 0 leaves its {id, low} table to a tensor moving away
//     from offset 0, whose {id} table now says the buffer's (id, 0).
//  4. Only the values left get appended tables (appended_tables.h).
// Afterwards a table no tensor points at keeps its bytes. Pure and
// deterministic: the result depends only on the inputs, in their order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "rewriter/patch/appended_tables.h"

namespace pteshare {

/// One AllocationDetails table of the flatbuffer.
struct TableSlot {
  uint64_t at = 0;     // file offset of the table
  uint8_t stored = 0;  // AllocationField mask of the fields on the wire
  AllocationValue current;
};

/// One Tensor's reference to a table.
struct TableReference {
  uint64_t reference_at = 0;  // file offset of Tensor.allocation_info's uoffset
  size_t table = 0;           // index into the slots: the table it points at now
  AllocationValue wanted;
};

struct TableAssignment {
  /// Per slot: the value the table says after the rewrite.
  std::vector<AllocationValue> final_value;
  /// Per reference: the slot it points at, or nullopt for the appended
  /// table of its wanted value.
  std::vector<std::optional<size_t>> target;
  /// The values that need an appended table, sorted.
  std::vector<AllocationValue> appended;
  /// Tables taken over in step 3 (for reports and tests).
  size_t tables_taken_over = 0;
};

/// The assignment described above. Every reference's `table` indexes
/// `slots`, and every slot lies after the references that point at it now.
TableAssignment AssignTables(const std::vector<TableSlot>& slots,
                             const std::vector<TableReference>& references);

}  // namespace pteshare
