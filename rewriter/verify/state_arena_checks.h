// The plan verifier's checks of Layout::kArena (plan_verifier.h; design.md,
// "Verifying"): the state arenas themselves, and every tensor that lay
// inside a shared buffer going with it. Written apart from the planners
// like the rest of the verifier.
#pragma once

#include <cstddef>
#include <vector>

#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"
#include "rewriter/share/shared_buffers.h"
#include "rewriter/verify/violation.h"

namespace pteshare {

/// I5 (and I1 for front slots): front regions only with Layout::kFront,
/// each taking buffers of its own arena; with Layout::kArena one state arena
/// per device, each new one numbered from one past `most_arenas` (the most
/// any method had) or an input arena holding nothing but its buffers, on
/// the device of every arena its buffers leave.
std::vector<PlanViolation> CheckStateArenaLayout(const ProgramView& view, const Plan& plan,
                                                 size_t most_arenas);

/// I1 for aliases: every tensor of method plan `m` that lay inside a shared
/// buffer in `in` goes with it to its state arena at the same relative
/// offset. `slot_of_buffer` and `region_of_buffer` are indexed like
/// shared.buffers (nullptr: no slot).
std::vector<PlanViolation> CheckAliasesFollow(
    const MethodView& in, const MethodPlan& m, const SharedBufferSet& shared,
    const std::vector<const FrontSlot*>& slot_of_buffer,
    const std::vector<const FrontRegion*>& region_of_buffer);

}  // namespace pteshare
