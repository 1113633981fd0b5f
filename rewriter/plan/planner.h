// MakePlan: from a program and a share request to a Plan, by the chosen
// strategy. The plan is not yet verified: callers run VerifyPlan before
// anything could be written.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "rewriter/base/result.h"
#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"
#include "rewriter/share/shared_buffers.h"

namespace pteshare {

// input_lifetimes.h: only a pointer here, so the installed headers need not
// carry the lifetimes (a front end passes none).
class InputLifetimes;

/// The largest --alignment accepted (1 GiB).
inline constexpr uint64_t kMaxAlignment = uint64_t{1} << 30;

struct PlanOptions {
  /// The library default stays relocate; the command line defaults to best.
  Strategy strategy = Strategy::kRelocate;
  /// 0: detect from the input (DetectAlignment). Otherwise a power of two.
  uint64_t alignment = 0;
  /// memory_id -> the most bytes that arena may take in any method. Misses
  /// are listed in Plan::limit_misses (not an input error: exit 1).
  std::map<uint32_t, uint64_t> arena_limits{};
  /// Replan's block planner effort per arena (deterministic steps).
  uint64_t replan_max_steps = kDefaultReplanMaxSteps;
  /// Run replan even for relocate, so a report can show both sizes.
  bool compare_strategies = false;
  /// PlanAndVerify (rewrite.h) also plans the layout not chosen, so a
  /// report can show what each costs (layout_costs.h).
  bool compare_layouts = false;
  /// Where the shared buffers go: the front of their arenas, or an arena
  /// of their own per device (state_arena.h).
  Layout layout = Layout::kFront;
  /// The application's loader binds every arena itself. Without it, a
  /// state arena that ExecuTorch's Module(share_memory_arenas=true) cannot
  /// share (memory_id above 2, or off the CPU) is refused, not written with
  /// a warning: Module would give each method its own copy of the state.
  bool own_loader = false;
};

/// Everything the plan was made from, kept for the verifier and reports.
struct PlanResult {
  SharedBufferSet shared;
  Plan plan;
};

/// Input errors (bad names, straddling tensors, placements outside their
/// arena) come back as errors; a plan that comes back still needs VerifyPlan.
/// `lifetimes`, when given, is asked for the lifetimes replan needs (and
/// keeps them for the verifier, input_lifetimes.h); otherwise they are
/// computed here and dropped.
Result<PlanResult> MakePlan(const ProgramView& view, const ShareRequest& request,
                            const PlanOptions& options, InputLifetimes* lifetimes = nullptr);

/// Checks that every planned placement of the input lies in an arena the
/// method has and fits it: the precondition of every strategy.
Status CheckInputPlacements(const ProgramView& view);

}  // namespace pteshare
