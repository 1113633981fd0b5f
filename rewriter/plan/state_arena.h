// State arenas (Layout::kArena): the shared buffers withheld from their
// arenas and given an arena of their own on each device that holds them,
// the same memory_id in every method, as the later revision of ExecuTorch's
// shared-buffer planning does (generalising the legacy CPU-only mem_id=2
// arena).
//
// Per device (CPU first, then by device type and index), one FrontRegion
// with state_arena set: the device's shared buffers in sorted-name order,
// each slot aligned and rounded up to the alignment, exactly as a front
// region. Its memory_id is the next one: one past the most arenas any
// method has (so it is new in every method), the next device's one past
// that. A method with fewer arenas gets empty ones in between (size 0,
// nothing in them), so every method can be handed the same spans.
//
// An arena that already is one (every method has it, holds nothing but
// the device's shared buffers and what lies inside them, and all the
// device's buffers are in it) is kept as the device's state arena: a
// second rewrite of a state-arena program adds nothing (I7), and an
// exporter's legacy mem_id=2 arena is used as it is.
#pragma once

#include <cstdint>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"
#include "rewriter/share/shared_buffers.h"

namespace pteshare {

/// One state arena per device that holds shared buffers. Errors: a shared
/// buffer whose arena is on different devices in different methods.
Result<std::vector<FrontRegion>> LayOutStateArenas(const ProgramView& view,
                                                   const SharedBufferSet& shared,
                                                   uint64_t alignment);

/// A method whose arenas are all empty and that has no planned bytes (the
/// exporter's constant methods).
bool PlansNothing(const MethodView& method);

/// The arena count every method has after a plan with these fronts: its
/// own, or up to the highest state arena; a method that plans nothing
/// keeps its own.
size_t ArenaCountAfter(const MethodView& method, const std::vector<FrontRegion>& fronts);

}  // namespace pteshare
