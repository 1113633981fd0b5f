// PlanVerifier: checks a Plan against the program it was made from, before
// anything is written. It shares no code with the strategies: it re-derives
// every fact from the ProgramView and the plan's own claims, so a bug in a
// strategy shows up here as a violation instead of a corrupt file.
//
// Invariants (docs/design.md):
//  I1 a shared buffer has its front slot's placement in every method that
//     has it, in the arena the input gave it;
//  I2 no tensor outside a shared buffer's range touches a front region, in
//     any method that uses that arena;
//  I3 two tensors live at the same time (lifetimes.h, over their alias
//     groups) share bytes in the output only if they did in the input, and
//     at the same relative offset; for relocate also without lifetimes: two
//     that overlapped keep their relative offset, two that did not, do not
//     overlap unless both lie inside one shared buffer;
//  I4 every placement fits its arena, aligned offsets stay aligned;
//  I5 same methods, same arena count, same planned tensors with the same
//     arena and size; relocate leaves arenas without a front region alone;
//  I6 relocate grows an arena only by the slots of the shared buffers the
//     method lacks; replan and best take no more than relocate would
//     (MethodPlan::arena_sizes_relocate, itself held to relocate's rule).
// Lifetimes (lifetimes.h) are facts of the input, shared with replan by
// design; nothing of replan's own code is used here.
#pragma once

#include <string>
#include <vector>

#include "rewriter/plan.h"
#include "rewriter/program_view.h"
#include "rewriter/shared_buffers.h"

namespace pteshare {

/// The invariants above (docs/design.md, "Invariants").
enum class Invariant {
  kSharedPlacement = 1,  // I1
  kFrontRegionFree,      // I2
  kOverlapsKept,         // I3
  kFitsAndAligned,       // I4
  kSameShape,            // I5
  kNoGrowth,             // I6
};

/// "I1".."I6", as design.md and every report name them.
std::string InvariantName(Invariant invariant);

struct PlanViolation {
  Invariant invariant;
  std::string message;  // method, value, numbers
};

/// Every violation found (empty: the plan is safe to write).
std::vector<PlanViolation> VerifyPlan(const ProgramView& view, const SharedBufferSet& shared,
                                      const Plan& plan);

}  // namespace pteshare
