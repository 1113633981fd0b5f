// Growing a method's arena vectors (Layout::kArena, state_arena.h). A method
// that gets arenas it did not have needs a longer non_const_buffer_sizes and,
// for a state arena off the CPU, an entry in non_const_buffer_device. A
// vector cannot grow in place, so for each such method a new vector is
// appended after the flatbuffer and the ExecutionPlan's field offset is
// repointed to it (FlatBuffers offsets point forward, and every table lies
// before the appended bytes). The old vectors stay, unreferenced.
//
//  - non_const_buffer_sizes: the old entry 0 (reserved), then every arena
//    size of the plan; int64 elements on a multiple of 8.
//  - non_const_buffer_device: the old entries, then one per new arena off
//    the CPU (an arena without an entry is on the CPU), as tables storing
//    every field and sharing one appended vtable; the vector of offsets
//    comes first, the tables after it.
//
// Only a field the ExecutionPlan table stores can be repointed: a method
// with no non_const_buffer_sizes, or with no non_const_buffer_device when
// a new arena is off the CPU, is refused (its table has no room for the
// field; re-export with the state arena instead).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/patch/byte_overwrite.h"
#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"

namespace pteshare {

struct GrownArenaVectors {
  std::vector<uint8_t> bytes;             // written at `start`, padding included
  std::vector<ByteOverwrite> overwrites;  // the repointed ExecutionPlan fields
  size_t vectors_appended = 0;
};

/// The appended vectors of every method whose plan has more arenas than its
/// non_const_buffer_sizes, from file offset `start`.
Result<GrownArenaVectors> BuildGrownArenaVectors(std::span<const uint8_t> file,
                                                 const ProgramView& view, const Plan& plan,
                                                 uint64_t start);

/// Whether the plan gives method `method_plan` more arenas than it has.
bool GrowsArenas(const ProgramView& view, const MethodPlan& method_plan);

}  // namespace pteshare
