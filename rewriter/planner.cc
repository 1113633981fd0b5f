#include "rewriter/planner.h"

#include <algorithm>
#include <map>

#include "rewriter/front_region.h"
#include "rewriter/relocate.h"

namespace pteshare {
namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

// "a, b, c and 61 more": enough names to recognise, short enough to read.
std::string FewNames(const std::vector<std::string>& names) {
  constexpr size_t kShown = 3;
  std::vector<std::string> shown(
      names.begin(), names.begin() + static_cast<ptrdiff_t>(std::min(kShown, names.size())));
  std::string text = JoinNames(shown);
  if (names.size() > kShown) text += " and " + std::to_string(names.size() - kShown) + " more";
  return text;
}

// One warning per kind and per set of methods, not one per buffer: a
// 32-layer model has 64 caches that all say the same thing.
std::vector<std::string> Warnings(const SharedBufferSet& shared) {
  std::map<std::vector<std::string>, std::vector<std::string>> recopied;  // methods -> buffers
  std::map<uint32_t, std::vector<std::string>> high_arena;                // arena -> buffers
  for (const SharedBuffer& b : shared.buffers) {
    if (b.methods_with_initial_state.size() >= 2)
      recopied[b.methods_with_initial_state].push_back(b.name);
    if (b.memory_id > 2) high_arena[b.memory_id].push_back(b.name);
  }
  std::vector<std::string> warnings;
  for (const auto& [methods, names] : recopied) {
    warnings.push_back(std::to_string(names.size()) + " shared buffer(s) (" + FewNames(names) +
                       ") have an initial state in methods " + JoinNames(methods) +
                       ": loading any of these methods copies that state over the shared memory "
                       "again, so load them all before the first run");
  }
  for (const auto& [memory_id, names] : high_arena) {
    warnings.push_back(std::to_string(names.size()) + " shared buffer(s) (" + FewNames(names) +
                       ") are in arena " + std::to_string(memory_id) +
                       ": ExecuTorch's Module(share_memory_arenas=true) shares only arenas 1 and "
                       "2; bind this arena to the same memory in every method yourself");
  }
  return warnings;
}

}  // namespace

Status CheckInputPlacements(const ProgramView& view) {
  for (const MethodView& method : view.methods) {
    for (const TensorValue& t : method.tensors) {
      if (!t.planned) continue;
      const Placement& p = t.placement;
      std::string label = "method " + method.name + ", value " + std::to_string(t.value_index);
      if (!t.name.empty()) label += " (" + std::string(t.name) + ")";
      const Arena* arena = method.arena(p.memory_id);
      if (arena == nullptr) {
        return Error{label + ": memory_id " + std::to_string(p.memory_id) +
                     " is not an arena of the method (it has " +
                     std::to_string(method.arenas.size()) + ")"};
      }
      uint64_t end = 0;
      if (__builtin_add_overflow(p.offset, p.nbytes, &end) || (t.nbytes > 0 && end > arena->size)) {
        return Error{label + ": offset " + std::to_string(p.offset) + " + " +
                     std::to_string(p.nbytes) + " bytes > arena " + std::to_string(p.memory_id) +
                     " size " + std::to_string(arena->size)};
      }
    }
  }
  return Status::Ok();
}

Result<PlanInput> MakePlan(const ProgramView& view, const ShareRequest& request,
                           const PlanOptions& options) {
  Status placements = CheckInputPlacements(view);
  if (!placements.ok()) return placements.error();
  if (options.alignment != 0 && (options.alignment & (options.alignment - 1)) != 0) {
    return Error{"--alignment " + std::to_string(options.alignment) + " is not a power of two"};
  }
  Result<SharedBufferSet> shared = ChooseSharedBuffers(view, request);
  if (!shared.ok()) return shared.error();

  PlanInput input;
  input.shared = std::move(shared).value();
  Plan& plan = input.plan;
  plan.strategy = "relocate";
  plan.alignment = options.alignment != 0 ? options.alignment : DetectAlignment(view);
  plan.fronts = LayOutFrontRegions(input.shared, plan.alignment);
  for (const MethodView& method : view.methods) {
    plan.methods.push_back(RelocateMethod(method, input.shared, plan.fronts));
  }
  plan.warnings = Warnings(input.shared);
  return input;
}

}  // namespace pteshare
