#include "rewriter/plan/blockplan/descent.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include "rewriter/plan/blockplan/probe.h"
#include "rewriter/plan/blockplan/splitmix.h"

namespace pteshare {
namespace {

constexpr uint64_t kPlainPreorders = std::size(kAllSearchPreorders);

/// Variant `id`: the plain preorders first, then drawn from the seed.
SearchOrder VariantOrder(uint64_t id, uint64_t seed, const DescentOptions& options, size_t blocks) {
  SearchOrder order;
  if (id < kPlainPreorders) {
    order.preorder = kAllSearchPreorders[id];
    return order;
  }
  const uint64_t z = SplitMix64Hash(id + seed * 1'000'003);
  order.preorder = kAllSearchPreorders[z % kPlainPreorders];
  if ((z >> 50) % 2 == 0) {
    order.shuffle_seed = z | 1;
    order.shuffle_permille = options.shuffle_permille;
  } else {
    const uint64_t depths = std::max<uint64_t>(
        1, std::min<uint64_t>(options.deviation_depths, static_cast<uint64_t>(blocks)));
    order.deviate_depth = static_cast<uint32_t>((z >> 8) % depths);
    order.deviate_pick = static_cast<uint32_t>((z >> 24) % 3);
  }
  return order;
}

/// 1, 2, 1, 4, 1, 2, 1, 8...: the largest power of two dividing k.
uint64_t Ruler(uint64_t k) { return k & (~k + 1); }

}  // namespace

void SearchDescending(CapacitySearch& search, const BlockProblem& problem, Bytes lower_bound,
                      const DescentOptions& options, StepBudget* budget, BlockSolution* best,
                      Bytes* proven_low) {
  const size_t blocks = problem.blocks.size();
  auto unmet = [&] { return problem.capacity && best->height > *problem.capacity; };
  // The probe at the bound: while the problem's capacity is unmet, at it.
  ProbeSchedule bound_schedule;
  bound_schedule.first_run_steps = 1'000'000;
  bound_schedule.shuffled_runs = false;
  bound_schedule.growth = 4;
  ResumableProbe bound_probe(unmet() ? *problem.capacity : lower_bound, bound_schedule);
  bool bound_settled = false;
  uint64_t descent_spent = 0;
  BlockSolution found;
  auto consider = [&](BlockSolution& candidate) {
    if (candidate.height < best->height) *best = std::move(candidate);
  };
  auto level_bound_probe = [&] {
    if (bound_settled || bound_probe.stalled()) return;
    const uint64_t owed = descent_spent / 100 * options.bound_probe_percent;
    if (owed <= bound_probe.spent()) return;
    const SearchOutcome outcome =
        bound_probe.Continue(search, owed - bound_probe.spent(), budget, &found);
    if (outcome == SearchOutcome::kFound) consider(found);
    if (outcome == SearchOutcome::kInfeasible) {
      *proven_low = std::max(*proven_low, bound_probe.capacity() + 1);
    }
    bound_settled = outcome != SearchOutcome::kOutOfSteps;
  };

  const Bytes granule = std::max<Bytes>(problem.alignment, lower_bound / 1024);
  struct Variant {
    uint64_t id;
    size_t depth;
  };
  std::vector<uint64_t> elite;  // most recent success first
  uint64_t next_variant = 0;
  // A capacity proven out of reach ends the search: the plan is an error.
  auto hopeless = [&] { return unmet() && *proven_low > *problem.capacity; };
  // Heights that round up to the same multiple of the alignment make the
  // same arena for a caller that aligns it (replan does), so targets are
  // multiples of it, and the descent ends once no multiple is left between
  // what is proven and the best (a 28-block arena of a corpus program spent
  // its whole budget trying 1,265 bytes against 1,268, both 1,280 aligned).
  // At pack's default alignment of 1 this changes nothing. An unmet
  // capacity is aimed at wherever it is.
  const Bytes alignment = problem.alignment;
  auto worth_more = [&] {
    return RoundUpToAlignment(*proven_low, alignment) < RoundUpToAlignment(best->height, alignment);
  };
  for (uint64_t batch = 1; (worth_more() || unmet()) && !budget->exhausted() && !hopeless();
       ++batch) {
    Bytes step = granule * Ruler(batch);
    if (batch == 1) step = std::max<Bytes>(1, (best->height - lower_bound) / 8);
    Bytes target = best->height - std::min(step, best->height - *proven_low);
    target = std::max(RoundDownToAlignment(target, alignment),
                      RoundUpToAlignment(*proven_low, alignment));
    if (unmet()) target = std::min(target, *problem.capacity);
    std::vector<Variant> variants;
    for (uint64_t id : elite) variants.push_back({id, 0});
    while (variants.size() < options.batch_variants) variants.push_back({next_variant++, 0});
    bool improved = false;
    bool proven = false;
    for (uint64_t limit = options.first_run_steps; !variants.empty() && !improved && !proven;
         limit = limit * std::max<uint64_t>(options.run_growth, 2)) {
      for (Variant& variant : variants) {
        level_bound_probe();
        if (best->height <= *proven_low || budget->exhausted() || hopeless()) return;
        const uint64_t before = budget->used();
        const SearchOutcome outcome = search.Run(
            target, VariantOrder(variant.id, options.seed, options, blocks), limit, budget, &found);
        descent_spent += budget->used() - before;
        variant.depth = search.deepest();
        if (outcome == SearchOutcome::kFound) {
          consider(found);
          std::erase(elite, variant.id);
          elite.insert(elite.begin(), variant.id);
          if (elite.size() > options.elite_variants) elite.pop_back();
          improved = true;
          break;
        }
        if (outcome == SearchOutcome::kInfeasible) {
          // Every order searches the whole tree: nothing fits at target.
          *proven_low = std::max(*proven_low, target + 1);
          proven = true;
          break;
        }
      }
      std::stable_sort(variants.begin(), variants.end(),
                       [](const Variant& a, const Variant& b) { return a.depth > b.depth; });
      variants.resize(variants.size() / std::max<uint32_t>(options.keep_divisor, 2));
    }
  }
}

}  // namespace pteshare
