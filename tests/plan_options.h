// Test shorthand for PlanOptions (kept out of the product's headers: the
// library's callers set the fields they mean).
#pragma once

#include <cstdint>

#include "rewriter/plan/planner.h"

namespace pteshare {

/// PlanOptions with a strategy and an alignment, the rest as defaults.
inline PlanOptions WithStrategy(Strategy strategy, uint64_t alignment = 0) {
  PlanOptions options;
  options.strategy = strategy;
  options.alignment = alignment;
  return options;
}

}  // namespace pteshare
