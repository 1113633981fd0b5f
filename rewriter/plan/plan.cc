#include "rewriter/plan/plan.h"

#include <algorithm>

namespace pteshare {

const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kFront:
      return "front";
    case Layout::kArena:
      return "arena";
  }
  return "?";
}

std::optional<Layout> ParseLayout(std::string_view name) {
  for (Layout layout : {Layout::kFront, Layout::kArena}) {
    if (name == LayoutName(layout)) return layout;
  }
  return std::nullopt;
}

const char* StrategyName(Strategy strategy) {
  switch (strategy) {
    case Strategy::kRelocate:
      return "relocate";
    case Strategy::kReplan:
      return "replan";
    case Strategy::kBest:
      return "best";
  }
  return "?";
}

std::optional<Strategy> ParseStrategy(std::string_view name) {
  for (Strategy strategy : {Strategy::kRelocate, Strategy::kReplan, Strategy::kBest}) {
    if (name == StrategyName(strategy)) return strategy;
  }
  return std::nullopt;
}

const TensorMove* MethodPlan::Find(uint32_t value_index) const {
  auto it = std::lower_bound(
      moves.begin(), moves.end(), value_index,
      [](const TensorMove& move, uint32_t index) { return move.value_index < index; });
  return it != moves.end() && it->value_index == value_index ? &*it : nullptr;
}

}  // namespace pteshare
