#include "rewriter/block_planner.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "rewriter/block_greedy.h"
#include "rewriter/block_lower_bound.h"
#include "rewriter/block_search.h"
#include "rewriter/block_step_budget.h"

namespace pteshare {
namespace {

/// Sizes and offsets stay below this so sums of them cannot wrap.
constexpr Bytes kMaxTotal = Bytes{1} << 62;
/// Random orders tried after the fixed ones.
constexpr int kRandomOrders = 8;
/// The search recurses once per block; past this many it would risk the
/// stack, and a greedy plan is what such sizes get.
constexpr size_t kMaxSearchBlocks = 20000;
/// The probe at the lower bound may take 1/this of the search budget.
constexpr uint64_t kLowerBoundShare = 2;
/// Steps of the first, shortest runs of a probe's round robin.
constexpr uint64_t kFirstRunSteps = 1'000'000;

std::string Describe(const Block& block) {
  return "block '" + block.id + "' [" + std::to_string(block.lifespan.begin) + ", " +
         std::to_string(block.lifespan.end) + ")";
}

std::string Percent(Bytes part, Bytes whole) {
  if (whole == 0) return "";
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

/// Does every block fit under `capacity`? MiniMalloc's round robin: each
/// preorder in turn, then shuffles of them, runs with a step limit that
/// doubles every round, so whichever order suits the instance gets to finish
/// early, and the short runs escape subtrees a single order gets stuck in.
/// A run that ends kInfeasible has searched the whole tree: a proof.
SearchOutcome ProbeCapacity(CapacitySearch& search, Bytes capacity, uint64_t shuffle_seed,
                            uint64_t steps, StepBudget* budget, BlockSolution* found) {
  const uint64_t start = budget->used();
  const size_t preorders = std::size(kAllSearchPreorders);
  for (uint64_t limit = kFirstRunSteps;; limit = limit > UINT64_MAX / 2 ? UINT64_MAX : limit * 2) {
    const uint64_t round_start = budget->used();
    for (size_t run = 0; run < 2 * preorders; ++run) {
      const uint64_t spent = budget->used() - start;
      if (spent >= steps || budget->exhausted()) return SearchOutcome::kOutOfSteps;
      // The plain preorders first; then each shuffled, differently every round.
      const uint64_t shuffle = run < preorders ? 0 : shuffle_seed + limit + run;
      SearchOutcome outcome = search.Run(capacity, kAllSearchPreorders[run % preorders], shuffle,
                                         std::min(limit, steps - spent), budget, found);
      if (outcome != SearchOutcome::kOutOfSteps) return outcome;
    }
    // A round that spent nothing would spend nothing again (its runs gave up
    // before their first step): stop instead of looping forever.
    if (budget->used() == round_start) return SearchOutcome::kOutOfSteps;
  }
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
      return Error{Describe(block) + " is fixed at offset " + std::to_string(*block.fixed_offset) +
                   " + " + std::to_string(block.size) + " bytes, past the capacity " +
                   std::to_string(*problem.capacity)};
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

  // 1. Greedy passes. They always run in full (cheap, and the fallback).
  GreedyPlacer greedy(problem);
  auto consider = [&](BlockSolution candidate) {
    if (plan.solution.offsets.empty() || candidate.height < plan.solution.height) {
      plan.solution = std::move(candidate);
    }
  };
  for (BlockOrder order : kAllBlockOrders) {
    if (!plan.solution.offsets.empty() && plan.solution.height == plan.lower_bound) break;
    std::vector<uint32_t> blocks = OrderFreeBlocks(problem, order);
    consider(greedy.Place(blocks, FitRule::kFirstFit, &budget));
    consider(greedy.Place(blocks, FitRule::kBestFit, &budget));
  }
  std::mt19937_64 random(options.seed);
  for (int i = 0; i < kRandomOrders && plan.solution.height > plan.lower_bound; ++i) {
    consider(greedy.Place(RandomOrder(problem, random), FitRule::kBestFit, &budget));
  }

  // 2. Capacity probes: the lower bound first (a tight capacity prunes
  // hardest, and is often met), then bisection between what is known not to
  // fit (below `proven_low`) and the best height found.
  Bytes proven_low = plan.lower_bound;
  const bool must_fit = problem.capacity && plan.solution.height > *problem.capacity;
  if (plan.solution.height > proven_low && !budget.exhausted() &&
      problem.blocks.size() <= kMaxSearchBlocks) {
    CapacitySearch search(problem);
    uint64_t probe_count = 0;
    // Asks "does it fit in `capacity`?" spending at most `steps`.
    auto probe = [&](Bytes capacity, uint64_t steps) {
      const uint64_t shuffle_seed = options.seed * 0x100000001b3ull + ++probe_count * 131;
      BlockSolution found;
      SearchOutcome outcome = ProbeCapacity(search, capacity, shuffle_seed, steps, &budget, &found);
      if (outcome == SearchOutcome::kFound) consider(std::move(found));
      if (outcome == SearchOutcome::kInfeasible) proven_low = std::max(proven_low, capacity + 1);
      return outcome;
    };
    if (must_fit) {
      probe(*problem.capacity, budget.remaining());
    } else {
      probe(plan.lower_bound, budget.remaining() / kLowerBoundShare);
    }
    // Probes that run out of steps only raise `soft_low`; once the range
    // above it is used up, the probes start again from `proven_low` with
    // twice the steps.
    uint64_t probe_steps = std::max<uint64_t>(budget.remaining() / 16, 1);
    Bytes soft_low = proven_low;
    uint64_t used_at_pass_start = budget.used();
    // Probes closer than this to the best height gain too little to pay.
    const Bytes granularity = std::max<Bytes>(problem.alignment, plan.lower_bound / 1024);
    while (plan.solution.height > proven_low && !budget.exhausted() &&
           !(problem.capacity && plan.solution.height > *problem.capacity)) {
      soft_low = std::max(soft_low, proven_low);
      if (soft_low + granularity > plan.solution.height) {
        if (soft_low == proven_low) break;  // nothing left worth a probe
        // A pass whose probes spent nothing would repeat forever.
        if (budget.used() == used_at_pass_start) break;
        used_at_pass_start = budget.used();
        soft_low = proven_low;
        probe_steps = probe_steps > UINT64_MAX / 2 ? UINT64_MAX : probe_steps * 2;
      }
      const Bytes capacity = soft_low + (plan.solution.height - 1 - soft_low) / 2;
      if (probe(capacity, probe_steps) == SearchOutcome::kOutOfSteps) soft_low = capacity + 1;
    }
  }
  plan.optimal = plan.solution.height <= proven_low;
  plan.steps = budget.used();
  plan.timed_out = budget.timed_out();
  if (problem.capacity && plan.solution.height > *problem.capacity) {
    const Bytes miss = plan.solution.height - *problem.capacity;
    if (plan.lower_bound > *problem.capacity) {
      return Error{"no plan fits the capacity of " + std::to_string(*problem.capacity) +
                   " bytes: " + std::to_string(plan.lower_bound) +
                   " bytes are live at one instant, " +
                   std::to_string(plan.lower_bound - *problem.capacity) + " bytes" +
                   Percent(plan.lower_bound - *problem.capacity, *problem.capacity) +
                   " over; the best plan found needs " + std::to_string(plan.solution.height)};
    }
    return Error{"no plan fits the capacity of " + std::to_string(*problem.capacity) +
                 " bytes: the best found needs " + std::to_string(plan.solution.height) +
                 " bytes, " + std::to_string(miss) + " bytes" + Percent(miss, *problem.capacity) +
                 " over" + (proven_low > *problem.capacity ? " (proven: no plan fits)" : "")};
  }
  return plan;
}

}  // namespace pteshare
