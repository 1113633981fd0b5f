// PlanVerifier: checks a Plan against the program it was made from, before
// anything is written. It shares no strategy's code: it re-derives every
// fact from the ProgramView and the plan's own claims, so a bug in a
// strategy shows up here as a violation instead of a corrupt file.
//
// It checks I1-I6 of the one list of invariants, docs/design.md
// ("Invariants"; how each is checked: "Verifying"), named by Invariant below.
// Lifetimes and their live overlaps (lifetimes.h, live_overlaps.h) are
// facts of the input, shared with replan by design (with an InputLifetimes,
// computed once for both: input_lifetimes.h); nothing of relocate's or
// replan's own code is used here.
#pragma once

#include <string>
#include <vector>

#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"
#include "rewriter/share/shared_buffers.h"
#include "rewriter/verify/violation.h"

namespace pteshare {

class InputLifetimes;  // input_lifetimes.h (a pointer only, as in planner.h)

/// Every violation found (empty: the plan is safe to write). `lifetimes`,
/// when given, is asked for each method's lifetimes with the always-live
/// values the verifier derives from `shared` (input_lifetimes.h: reused
/// only if the planner asked the same of the same program); otherwise
/// they are computed here.
std::vector<PlanViolation> VerifyPlan(const ProgramView& view, const SharedBufferSet& shared,
                                      const Plan& plan, InputLifetimes* lifetimes = nullptr);

}  // namespace pteshare
