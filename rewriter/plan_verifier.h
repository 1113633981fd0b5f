// PlanVerifier: checks a Plan against the program it was made from, before
// anything is written. It shares no code with the strategies: it re-derives
// every fact from the ProgramView and the plan's own claims, so a bug in a
// strategy shows up here as a violation instead of a corrupt file.
//
// It checks I1-I6 of the one list of invariants, docs/design.md
// ("Invariants"; how each is checked: "Verifying"), named by Invariant below.
// Lifetimes (lifetimes.h) are facts of the input, shared with replan by
// design; nothing of replan's own code is used here.
#pragma once

#include <string>
#include <vector>

#include "rewriter/plan.h"
#include "rewriter/program_view.h"
#include "rewriter/shared_buffers.h"

namespace pteshare {

/// I1-I6 of docs/design.md, "Invariants".
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
