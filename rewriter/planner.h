// MakePlan: from a program and a share request to a Plan, by the chosen
// strategy. The plan is not yet verified: callers run VerifyPlan before
// anything could be written.
#pragma once

#include <string>

#include "rewriter/plan.h"
#include "rewriter/program_view.h"
#include "rewriter/result.h"
#include "rewriter/shared_buffers.h"

namespace pteshare {

enum class Strategy { kRelocate };

struct PlanOptions {
  Strategy strategy = Strategy::kRelocate;
  /// 0: detect from the input (DetectAlignment). Otherwise a power of two.
  uint64_t alignment = 0;
};

/// Everything the plan was made from, kept for the verifier and reports.
struct PlanInput {
  SharedBufferSet shared;
  Plan plan;
};

/// Input errors (bad names, straddling tensors, placements outside their
/// arena) come back as errors; a plan that comes back still needs VerifyPlan.
Result<PlanInput> MakePlan(const ProgramView& view, const ShareRequest& request,
                           const PlanOptions& options);

/// Checks that every planned placement of the input lies in an arena the
/// method has and fits it: the precondition of every strategy.
Status CheckInputPlacements(const ProgramView& view);

}  // namespace pteshare
