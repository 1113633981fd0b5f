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
/// errors, arena-limit misses (exit 1, no plan) and violations (exit 1,
/// the plan kept for the report) on stderr naming `file`. Exit 3 when
/// sharing was asked for and nothing can be shared (exit_codes.h).
PlanOutcome PlanForCommand(const std::string& file, const ProgramView& view,
                           const ShareFlags& share, const PlanFlags& planning);

/// Lists longer than this show their first lines and "... and N more
/// (all with -v)": a 512-layer model pairs 1,024 buffers.
inline constexpr size_t kLinesShown = 4;

/// `lines`, each on its own line after `indent`, the first kLinesShown
/// unless `verbose`.
std::string CappedLines(const std::vector<std::string>& lines, const std::string& indent,
                        bool verbose);

/// "FILE: memory for one set of arenas: ...": the first line of `plan` and
/// `rewrite`, and all of `--summary` (saving_text.h).
std::string PlanHeadline(const std::string& file, const VerifiedPlan& verified);

/// Human-readable report of a plan: the headline first, then the detail.
void PrintPlanText(const std::string& file, const PteFile& pte, const ProgramView& view,
                   const VerifiedPlan& verified, bool verbose);

/// "paired 8 unnamed mutable buffers by position (paired_state.K: position
/// K, no name in the program)": the heading of PairingLines.
std::string PairingHeader(const SharedBufferSet& shared);

/// "prefill:22 <-> decode:22  FLOAT[1,8,128,64]  arena 1", one per pair
/// --share-auto made of unnamed state.
std::vector<std::string> PairingLines(const ProgramView& view, const SharedBufferSet& shared);

}  // namespace pteshare::cli
