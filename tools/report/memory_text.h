// The memory a plan costs, as the lines `plan`, `rewrite` and `plot` print
// (the numbers are memory_cost.h's; JSON: plan_json.h's "memory").
#pragma once

#include <string>
#include <vector>

#include "rewriter/plan/memory_cost.h"
#include "rewriter/plan/planner.h"
#include "rewriter/program/program_view.h"

namespace pteshare::cli {

/// The memory lines: per arena and in total, one shared set of arenas vs
/// separate sets, before -> after. Each line starts with `indent`. New
/// arenas (a plan's state arenas) take their device from `fronts`.
std::string MemoryText(const ProgramView& view, const MemoryCost& cost, const std::string& indent,
                       const std::vector<FrontRegion>& fronts = {});

}  // namespace pteshare::cli
