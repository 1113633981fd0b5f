// The planning step every planning command shares (plan, rewrite, plot):
// open, choose the shared buffers, make the plan, verify it; and the plan
// report in text (JSON: tools/report/plan_json.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rewriter/open_program.h"
#include "rewriter/plan/memory_cost.h"
#include "rewriter/plan/planner.h"
#include "rewriter/rewrite.h"
#include "rewriter/verify/layout_costs.h"
#include "rewriter/verify/plan_verifier.h"
#include "tools/pteshare/option_flags.h"
#include "tools/report/memory_text.h"
#include "tools/report/plan_json.h"

namespace pteshare::cli {

/// A plan with its verification (rewrite.h), or why there is none.
struct PlanOutcome {
  int exit_status = 0;  // kExitOk, kExitFindings (violations, a limit), kExitBadInput
  /// Also set for a plan that misses an --arena-limit (fits() false, exit
  /// 1): `plot` draws the input with its shared buffers and the limit.
  std::optional<VerifiedPlan> plan;
};

/// PlanAndVerify (rewrite.h) with the command's flags; prints input
/// errors, arena-limit misses (exit 1, no plan), the nothing-to-share note
/// and violations (exit 1, the plan kept for the report) on stderr naming
/// `file`.
PlanOutcome PlanForCommand(const std::string& file, const ProgramView& view,
                           const ShareFlags& share, const PlanFlags& planning);

/// "nothing to share: ..." for a plan that shares nothing (a note, not an
/// error: replan goes on).
Error NothingToShare(const Plan& plan, const PlanOptions& options);

/// Human-readable report of a plan.
void PrintPlanText(const std::string& file, const ProgramView& view, const VerifiedPlan& verified);

/// "prefill:22 <-> decode:22  FLOAT[1,8,128,64]  arena 1", one per pair
/// --share-auto made of unnamed state.
std::vector<std::string> PairingLines(const ProgramView& view, const SharedBufferSet& shared);

}  // namespace pteshare::cli
