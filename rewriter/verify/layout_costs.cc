#include "rewriter/verify/layout_costs.h"

namespace pteshare {
namespace {

// `violations`: what VerifyPlan found in the plan (a plan missing a limit
// is not verified).
LayoutCost CostOf(const PlanResult& input, const std::vector<PlanViolation>& violations) {
  LayoutCost cost;
  cost.layout = input.plan.layout;
  for (const FrontRegion& f : input.plan.fronts) {
    if (f.state_arena) cost.state_arenas.push_back(f);
  }
  if (!input.plan.limit_misses.empty()) {
    cost.refused = "no plan fits --arena-limit: " + input.plan.limit_misses.front();
    return cost;
  }
  if (!violations.empty()) {
    cost.refused = "plan violates " + InvariantName(violations.front().invariant) + ": " +
                   violations.front().message;
    return cost;
  }
  cost.memory = ComputeMemoryCost(input.plan);
  return cost;
}

}  // namespace

std::vector<LayoutCost> CompareLayouts(const ProgramView& view, const ShareRequest& request,
                                       const PlanOptions& options, const PlanResult& chosen,
                                       const std::vector<PlanViolation>& chosen_violations,
                                       InputLifetimes* lifetimes) {
  std::vector<LayoutCost> costs;
  for (Layout layout : {Layout::kFront, Layout::kArena}) {
    if (layout == chosen.plan.layout) {
      costs.push_back(CostOf(chosen, chosen_violations));
      continue;
    }
    PlanOptions other = options;
    other.layout = layout;
    other.compare_strategies = false;  // only the sizes of the chosen strategy
    // What the layout costs, whoever loads it: a state arena Module cannot
    // share is refused only when it is the layout asked for (planner.h).
    other.own_loader = true;
    Result<PlanResult> input = MakePlan(view, request, other, lifetimes);
    if (!input.ok()) {
      LayoutCost cost;
      cost.layout = layout;
      cost.refused = input.error().message;
      costs.push_back(std::move(cost));
      continue;
    }
    const std::vector<PlanViolation> violations =
        input->plan.limit_misses.empty() ? VerifyPlan(view, input->shared, input->plan, lifetimes)
                                         : std::vector<PlanViolation>{};
    costs.push_back(CostOf(*input, violations));
  }
  return costs;
}

}  // namespace pteshare
