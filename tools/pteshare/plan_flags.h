// The planning flags every planning command shares (plan, rewrite, plot):
// --strategy, --layout, --alignment and --arena-limit, and what they mean
// to the library (PlanOptions).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/plan/plan.h"
#include "rewriter/plan/planner.h"

namespace pteshare::cli {

struct PlanFlags {
  Strategy strategy = Strategy::kBest;    // --strategy relocate|replan|best
  Layout layout = Layout::kFront;         // --layout front|arena
  uint64_t alignment = 0;                 // --alignment (0: detected)
  std::vector<std::string> arena_limits;  // --arena-limit ID=BYTES, raw text
  /// Also run the strategy not chosen, so the report shows both sizes
  /// (`pteshare plan` does; rewrite need not pay for it).
  bool compare_strategies = false;
  /// Also plan the layout not chosen, so the report shows what each costs
  /// (`pteshare plan` does).
  bool compare_layouts = false;

  void AddTo(CLI::App* command);
  /// Parses every --arena-limit; an error names the bad one.
  Result<PlanOptions> ToPlanOptions() const;
};

}  // namespace pteshare::cli
