#include "rewriter/blockplan/windows.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "rewriter/blockplan/greedy.h"
#include "rewriter/blockplan/lower_bound.h"
#include "rewriter/blockplan/probe.h"
#include "rewriter/blockplan/search.h"

namespace pteshare {
namespace {

bool Occupies(const Block& block) {
  return block.size > 0 && block.lifespan.begin < block.lifespan.end;
}

/// Bisection probes a window may spend after it missed the running capacity.
constexpr int kBisectionProbes = 4;
/// The first runs of a window's probes: short, since a window is small.
constexpr uint64_t kMinFirstRunSteps = 20'000;

/// The small problem of one window: the blocks already placed that are live
/// in the window's time span become fixed blocks (clipped to that span, and
/// merged where they stack with no gap over the same span, which leaves every
/// obstacle where it was but keeps the section checks short), then the
/// window's free blocks.
struct WindowProblem {
  BlockProblem problem;
  size_t first_free = 0;  // problem.blocks[first_free + k] is the k-th free block
};

WindowProblem MakeWindowProblem(const BlockProblem& whole, const std::vector<uint32_t>& placed,
                                const std::vector<Offset>& offsets, const uint32_t* free_begin,
                                const uint32_t* free_end) {
  const std::vector<Block>& blocks = whole.blocks;
  TimeValue from = blocks[*free_begin].lifespan.begin;
  TimeValue to = from;
  for (const uint32_t* i = free_begin; i != free_end; ++i) {
    from = std::min(from, blocks[*i].lifespan.begin);
    to = std::max(to, blocks[*i].lifespan.end);
  }
  std::vector<Block> obstacles;
  for (uint32_t i : placed) {
    const Block& block = blocks[i];
    const Lifespan clipped{std::max(block.lifespan.begin, from), std::min(block.lifespan.end, to)};
    if (clipped.begin >= clipped.end) continue;
    obstacles.push_back({std::string(), clipped, block.size, offsets[i]});
  }
  std::sort(obstacles.begin(), obstacles.end(), [](const Block& a, const Block& b) {
    if (a.lifespan.begin != b.lifespan.begin) return a.lifespan.begin < b.lifespan.begin;
    if (a.lifespan.end != b.lifespan.end) return a.lifespan.end < b.lifespan.end;
    return *a.fixed_offset < *b.fixed_offset;
  });
  WindowProblem out;
  out.problem.alignment = whole.alignment;
  for (Block& obstacle : obstacles) {
    if (!out.problem.blocks.empty()) {
      Block& last = out.problem.blocks.back();
      if (last.lifespan.begin == obstacle.lifespan.begin &&
          last.lifespan.end == obstacle.lifespan.end &&
          *last.fixed_offset + last.size == *obstacle.fixed_offset) {
        last.size += obstacle.size;
        continue;
      }
    }
    out.problem.blocks.push_back(std::move(obstacle));
  }
  out.first_free = out.problem.blocks.size();
  for (const uint32_t* i = free_begin; i != free_end; ++i) {
    out.problem.blocks.push_back({std::string(), blocks[*i].lifespan, blocks[*i].size, {}});
  }
  return out;
}

/// The lowest of a few greedy placements of the window's problem.
BlockSolution GreedyWindow(const BlockProblem& problem, StepBudget* budget) {
  GreedyPlacer greedy(problem);
  BlockSolution best;
  for (BlockOrder order : {BlockOrder::kSizeDescending, BlockOrder::kPeakTotalDescending,
                           BlockOrder::kBeginAscending}) {
    std::vector<uint32_t> blocks = OrderFreeBlocks(problem, order);
    for (FitRule rule : {FitRule::kBestFit, FitRule::kFirstFit}) {
      BlockSolution candidate = greedy.Place(blocks, rule, budget);
      if (best.offsets.empty() || candidate.height < best.height) best = std::move(candidate);
    }
  }
  return best;
}

}  // namespace

BlockSolution SearchInWindows(const BlockProblem& problem, Bytes lower_bound,
                              const WindowedSearchOptions& options, StepBudget* budget) {
  const std::vector<Block>& blocks = problem.blocks;
  BlockSolution out;
  out.offsets.assign(blocks.size(), 0);
  // Blocks that stay placed and may still be live: fixed ones first, then
  // each window's, dropped once they end before the next window begins.
  std::vector<uint32_t> placed;
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    const Block& block = blocks[i];
    if (block.fixed_offset) {
      out.offsets[i] = *block.fixed_offset;
      if (block.size > 0) out.height = std::max(out.height, *block.fixed_offset + block.size);
      if (Occupies(block)) placed.push_back(i);
    } else if (Occupies(block)) {
      order.push_back(i);
    } else {
      out.height = std::max(out.height, block.size);  // at 0, live with nothing
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return blocks[a].lifespan.begin < blocks[b].lifespan.begin;
  });
  const size_t window = std::max<size_t>(options.window_blocks, 1);
  const size_t lookahead = options.lookahead_blocks;
  const size_t windows = (order.size() + window - 1) / window;
  const Bytes granularity = std::max<Bytes>(problem.alignment, lower_bound / 1024);
  Bytes capacity = lower_bound;
  for (size_t w = 0; w < windows; ++w) {
    const size_t start = w * window;
    const size_t commit_end = std::min(order.size(), start + window);
    const size_t search_end = std::min(order.size(), commit_end + lookahead);
    const TimeValue from = blocks[order[start]].lifespan.begin;
    std::erase_if(placed, [&](uint32_t i) { return blocks[i].lifespan.end <= from; });
    WindowProblem sub = MakeWindowProblem(problem, placed, out.offsets, order.data() + start,
                                          order.data() + search_end);
    capacity = std::max(capacity, BlockLowerBound(sub.problem.blocks));

    // An equal share of what is left: half for the running capacity, the
    // rest for the bisection if the window misses it.
    const uint64_t allowance = budget->remaining() / (windows - w);
    CapacitySearch search(sub.problem);
    ProbeSchedule schedule;
    schedule.first_run_steps = std::max(kMinFirstRunSteps, allowance / 64);
    schedule.shuffle_seed = options.seed * 0x100000001b3ull + w * 131;
    const uint64_t window_start = budget->used();
    std::optional<BlockSolution> kept;
    BlockSolution found;
    if (!budget->exhausted() && ProbeCapacity(search, capacity, schedule, allowance / 2, budget,
                                              &found) == SearchOutcome::kFound) {
      kept = std::move(found);
    } else {
      kept = GreedyWindow(sub.problem, budget);
      Bytes low = capacity + 1;  // the running capacity was missed
      for (int probe = 0; probe < kBisectionProbes && low + granularity <= kept->height; ++probe) {
        const uint64_t spent = budget->used() - window_start;
        if (budget->exhausted() || spent >= allowance) break;
        const uint64_t steps = (allowance - spent) / (kBisectionProbes - probe);
        const Bytes middle = low + (kept->height - 1 - low) / 2;
        SearchOutcome outcome = ProbeCapacity(search, middle, schedule, steps, budget, &found);
        if (outcome == SearchOutcome::kFound) {
          kept = std::move(found);
        } else {
          low = middle + 1;
        }
      }
      capacity = std::max(capacity, kept->height);
    }
    for (size_t k = start; k < commit_end; ++k) {
      const uint32_t i = order[k];
      out.offsets[i] = kept->offsets[sub.first_free + (k - start)];
      out.height = std::max(out.height, out.offsets[i] + blocks[i].size);
      placed.push_back(i);
    }
  }
  return out;
}

}  // namespace pteshare
