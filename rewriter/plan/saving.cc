#include "rewriter/plan/saving.h"

#include <algorithm>

#include "rewriter/plan/state_arena.h"

namespace pteshare {

std::vector<DelegateUse> DelegateUses(const ProgramView& view) {
  std::vector<DelegateUse> uses;
  for (const MethodView& method : view.methods) {
    for (const std::optional<std::string_view>& id : method.delegate_ids) {
      const std::string backend = id && !id->empty() ? std::string(*id) : "?";
      auto it = std::find_if(uses.begin(), uses.end(),
                             [&](const DelegateUse& u) { return u.backend == backend; });
      if (it == uses.end()) it = uses.insert(uses.end(), DelegateUse{backend, {}, 0});
      ++it->delegates;
      if (it->methods.empty() || it->methods.back() != method.name)
        it->methods.push_back(method.name);
    }
  }
  return uses;
}

namespace {

// The most telling reason first: asking would not help a program that
// runs one method or keeps its state where pteshare cannot reach it.
NoShareReason WhyNothingShared(const PlanSaving& saving,
                               const std::vector<std::string>& with_state) {
  if (saving.running_methods.size() <= 1) return NoShareReason::kOneMethod;
  if (with_state.empty()) {
    return saving.delegates.empty() ? NoShareReason::kNoState : NoShareReason::kStateInDelegate;
  }
  if (with_state.size() == 1) return NoShareReason::kStateInOneMethod;
  return NoShareReason::kNotAsked;
}

}  // namespace

double PlanSaving::change_percent() const {
  if (before == 0) return 0;
  return (static_cast<double>(after) - static_cast<double>(before)) * 100.0 /
         static_cast<double>(before);
}

bool PlanChangesProgram(const Plan& plan) {
  return std::any_of(plan.methods.begin(), plan.methods.end(), [](const MethodPlan& m) {
    return m.moved_count() > 0 || m.arena_sizes_after != m.arena_sizes_before;
  });
}

PlanSaving DescribeSaving(const ProgramView& view, const PlanResult& planned, bool changes_program,
                          bool share_asked) {
  PlanSaving saving;
  saving.share_asked = share_asked;
  saving.delegates = DelegateUses(view);
  for (const MethodView& method : view.methods) {
    if (!PlansNothing(method)) saving.planning_methods.push_back(method.name);
    if (!PlansNothing(method) || method.instruction_count > 0) {
      saving.running_methods.push_back(method.name);
    }
  }
  saving.shared_buffers = static_cast<size_t>(
      std::count_if(planned.shared.buffers.begin(), planned.shared.buffers.end(),
                    [](const SharedBuffer& b) { return !b.private_state; }));
  const MemoryCost cost = ComputeMemoryCost(planned.plan);
  if (saving.shared_buffers > 0) {
    saving.kind = changes_program ? SavingKind::kShared : SavingKind::kAlreadyShared;
    saving.before_is_separate_sets = changes_program;
    saving.before = changes_program ? cost.total.separate_before : cost.total.one_set_before;
    saving.after = cost.total.one_set_after;
    return saving;
  }
  const std::vector<std::string> with_state = MethodsWithState(view);
  if (with_state.size() == 1) saving.method_with_state = with_state.front();
  saving.reason = WhyNothingShared(saving, with_state);
  saving.kind = changes_program ? SavingKind::kReplanned : SavingKind::kUnchanged;
  saving.before = cost.total.one_set_before;
  saving.after = cost.total.one_set_after;
  return saving;
}

}  // namespace pteshare
