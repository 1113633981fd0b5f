#include "rewriter/plan/blockplan/planner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "rewriter/base/grouped.h"
#include "rewriter/plan/blockplan/descent.h"
#include "rewriter/plan/blockplan/greedy.h"
#include "rewriter/plan/blockplan/lower_bound.h"
#include "rewriter/plan/blockplan/search.h"
#include "rewriter/plan/blockplan/step_budget.h"
#include "rewriter/plan/blockplan/validator.h"
#include "rewriter/plan/blockplan/windows.h"

namespace pteshare {
namespace {

/// Sizes and offsets stay below this so sums of them cannot wrap.
constexpr Bytes kMaxTotal = Bytes{1} << 62;
/// Random orders tried after the fixed ones.
constexpr int kRandomOrders = 8;
/// Past this many blocks the whole-problem search costs too much per node
/// (O(blocks)) and per dive (O(blocks^2)); larger problems are searched in
/// windows (windows.h).
constexpr size_t kMaxWholeSearchBlocks = 2000;
/// From this many blocks the windowed search runs before the whole one.
constexpr size_t kMinWindowedBlocks = 500;

std::string Describe(const Block& block) {
  return "block '" + block.id + "' [" + std::to_string(block.lifespan.begin) + ", " +
         std::to_string(block.lifespan.end) + ")";
}

// " (33.3% of it)" where a share helps: below all of `whole`. A miss of
// 40,500% says nothing the byte counts do not.
std::string Percent(Bytes part, Bytes whole) {
  if (whole == 0 || part >= whole) return "";
  char text[32];
  std::snprintf(text, sizeof text, " (%.1f%%)", 100.0 * static_cast<double>(part) / whole);
  return text;
}

/// The size-descending order with every key scaled by a random factor in
/// [0.75, 1.25): near-greedy orders that explore other tie-breaks.
std::vector<uint32_t> RandomOrder(const BlockProblem& problem, std::mt19937_64& random) {
  std::vector<std::pair<double, uint32_t>> keyed;
  for (uint32_t i = 0; i < problem.blocks.size(); ++i) {
    if (problem.blocks[i].fixed_offset) continue;
    // Raw engine bits, not a std:: distribution: those differ between
    // standard libraries, and the plan must not.
    double factor = 0.75 + 0.5 * static_cast<double>(random() >> 11) * 0x1.0p-53;
    keyed.push_back({static_cast<double>(problem.blocks[i].size) * factor, i});
  }
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<uint32_t> order;
  for (const auto& [key, index] : keyed) order.push_back(index);
  return order;
}

}  // namespace

Status ValidateBlockProblem(const BlockProblem& problem) {
  const Bytes alignment = problem.alignment;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > kMaxTotal) {
    return Error{"alignment " + std::to_string(alignment) + " is not a power of two"};
  }
  Bytes total = 0;
  std::vector<const Block*> fixed;
  for (const Block& block : problem.blocks) {
    if (block.lifespan.end < block.lifespan.begin) {
      return Error{Describe(block) + " ends before it begins"};
    }
    if (block.size > kMaxTotal || (total += block.size) > kMaxTotal) {
      return Error{Describe(block) + ": sizes add up past 2^62 bytes"};
    }
    if (!block.fixed_offset) continue;
    if (*block.fixed_offset > kMaxTotal) {
      return Error{Describe(block) + ": fixed offset " + std::to_string(*block.fixed_offset) +
                   " is past 2^62"};
    }
    if (problem.capacity && *block.fixed_offset + block.size > *problem.capacity) {
      return Error{Describe(block) + " is fixed at offset " + Grouped(*block.fixed_offset) +
                   " with " + Grouped(block.size) + " bytes, so it ends at " +
                   Grouped(*block.fixed_offset + block.size) + ", past the capacity of " +
                   Grouped(*problem.capacity) + " bytes"};
    }
    if (block.size > 0 && block.lifespan.begin < block.lifespan.end) fixed.push_back(&block);
  }
  // Fixed blocks are few (front regions); a pairwise check is enough.
  for (size_t i = 0; i < fixed.size(); ++i) {
    for (size_t j = i + 1; j < fixed.size(); ++j) {
      const Block& a = *fixed[i];
      const Block& b = *fixed[j];
      if (LifespansOverlap(a.lifespan, b.lifespan) && *a.fixed_offset < *b.fixed_offset + b.size &&
          *b.fixed_offset < *a.fixed_offset + a.size) {
        return Error{"fixed " + Describe(a) + " at offset " + std::to_string(*a.fixed_offset) +
                     " and fixed " + Describe(b) + " at offset " + std::to_string(*b.fixed_offset) +
                     " overlap while both are live"};
      }
    }
  }
  return Status::Ok();
}

Result<BlockPlan> PlanBlocks(const BlockProblem& problem, const BlockPlannerOptions& options) {
  if (Status valid = ValidateBlockProblem(problem); !valid) return valid.error();
  std::optional<StepBudget::Clock::time_point> deadline;
  if (options.time_limit_seconds) {
    deadline = StepBudget::Clock::now() +
               std::chrono::duration_cast<StepBudget::Clock::duration>(
                   std::chrono::duration<double>(std::max(0.0, *options.time_limit_seconds)));
  }
  StepBudget budget(options.max_steps, deadline);
  BlockPlan plan;
  plan.lower_bound = BlockLowerBound(problem.blocks);

  // 1. Greedy passes: the fallback, and where the whole problem is
  // searched, its first upper bound. They always run in full, but past
  // kMaxWholeSearchBlocks (searched in windows only) they are most of the
  // plan's time (12 passes over a 50k-block chain: about 1 s) and the
  // windowed search is far below them, so there the first order runs, then
  // the windows, and the other orders only when the windows missed the
  // lower bound (nothing can beat it). The windowed result does not depend
  // on the budget, so more steps still never give a larger arena.
  GreedyPlacer greedy(problem);
  auto consider = [&](BlockSolution candidate) {
    if (plan.solution.offsets.empty() || candidate.height < plan.solution.height) {
      plan.solution = std::move(candidate);
    }
  };
  auto greedy_orders = [&](size_t from, size_t to) {
    for (size_t k = from; k < to; ++k) {
      if (!plan.solution.offsets.empty() && plan.solution.height == plan.lower_bound) break;
      std::vector<uint32_t> blocks = OrderFreeBlocks(problem, kAllBlockOrders[k]);
      consider(greedy.Place(blocks, FitRule::kFirstFit, &budget));
      consider(greedy.Place(blocks, FitRule::kBestFit, &budget));
    }
  };
  const bool windows_only = problem.blocks.size() > kMaxWholeSearchBlocks;
  constexpr size_t kOrders = std::size(kAllBlockOrders);
  greedy_orders(0, windows_only ? 1 : kOrders);
  // Random orders only where the whole problem is searched: on larger ones
  // the windowed search improves on them for less than their cost.
  std::mt19937_64 random(options.seed);
  const int random_orders = windows_only ? 0 : kRandomOrders;
  for (int i = 0; i < random_orders && plan.solution.height > plan.lower_bound; ++i) {
    consider(greedy.Place(RandomOrder(problem, random), FitRule::kBestFit, &budget));
  }

  // 2. Capacity searches: a descent from the best height found, with a
  // probe at the lower bound (a tight capacity prunes hardest, and is often
  // met); heights below `proven_low` are known not to fit.
  // From kMinWindowedBlocks on, the windowed search goes first: on chains
  // of short-lived blocks it is far ahead of the whole search (a 1,000-block
  // residual chain: the lower bound in 5 M steps, against +5.5% after 20 M).
  Bytes proven_low = plan.lower_bound;
  if (plan.solution.height > proven_low && !budget.exhausted() &&
      problem.blocks.size() >= kMinWindowedBlocks) {
    std::optional<BlockSolution> windowed =
        SearchInWindows(problem, plan.lower_bound, WindowedSearchOptions{}, &budget);
    if (windowed) consider(std::move(*windowed));
  }
  if (windows_only) greedy_orders(1, kOrders);
  if (plan.solution.height > proven_low && !budget.exhausted() &&
      problem.blocks.size() <= kMaxWholeSearchBlocks) {
    CapacitySearch search(problem);
    DescentOptions descent;
    descent.seed = options.seed;
    SearchDescending(search, problem, plan.lower_bound, descent, &budget, &plan.solution,
                     &proven_low);
  }
  plan.optimal = plan.solution.height <= proven_low;
  plan.steps = budget.used();
  plan.timed_out = budget.timed_out();
  if (problem.capacity && plan.solution.height > *problem.capacity) {
    const Bytes miss = plan.solution.height - *problem.capacity;
    if (plan.lower_bound > *problem.capacity) {
      return Error{"no plan fits the capacity of " + Grouped(*problem.capacity) +
                   " bytes: " + Grouped(plan.lower_bound) + " bytes are live at once, " +
                   Grouped(plan.lower_bound - *problem.capacity) + " bytes" +
                   Percent(plan.lower_bound - *problem.capacity, *problem.capacity) +
                   " over; the best plan found needs " + Grouped(plan.solution.height) + " bytes"};
    }
    return Error{"no plan fits the capacity of " + Grouped(*problem.capacity) +
                 " bytes: the best found needs " + Grouped(plan.solution.height) + " bytes, " +
                 Grouped(miss) + " bytes" + Percent(miss, *problem.capacity) + " over" +
                 (proven_low > *problem.capacity ? " (proven: no plan fits)" : "")};
  }
#ifndef NDEBUG
  // Debug builds check every plan, as an assert would, with a checker that
  // shares no code with the planner.
  if (Status valid = ValidateBlockSolution(problem, plan.solution); !valid) {
    std::fprintf(stderr, "PlanBlocks made an invalid placement: %s\n",
                 valid.error().message.c_str());
    std::abort();
  }
#endif
  return plan;
}

}  // namespace pteshare
