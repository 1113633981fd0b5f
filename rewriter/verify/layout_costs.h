// What each layout (plan.h, Layout) costs the application: the same request
// planned with --layout front and with --layout arena, each verified, and
// its memory (memory_cost.h: per arena, one set of arenas for every method
// = the largest method's size, or a set per method = the sum), so a user
// can choose. A layout that cannot be planned says why instead.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rewriter/plan/memory_cost.h"
#include "rewriter/plan/planner.h"
#include "rewriter/verify/plan_verifier.h"

namespace pteshare {

struct LayoutCost {
  Layout layout = Layout::kFront;
  /// Set when the layout gives a verified plan.
  std::optional<MemoryCost> memory;
  /// The plan's per-method arena devices are not in MemoryCost: the state
  /// arenas' memory ids, for labels.
  std::vector<FrontRegion> state_arenas;
  /// Why there is no cost (an input error, a violation, a missed limit).
  std::string refused;
};

/// Both layouts, front first. `chosen` is the plan already made with
/// `options` and `chosen_violations` what VerifyPlan found in it (its
/// layout is neither planned nor verified again). `lifetimes` (may be
/// null) goes to MakePlan and VerifyPlan.
std::vector<LayoutCost> CompareLayouts(const ProgramView& view, const ShareRequest& request,
                                       const PlanOptions& options, const PlanResult& chosen,
                                       const std::vector<PlanViolation>& chosen_violations,
                                       InputLifetimes* lifetimes = nullptr);

}  // namespace pteshare
