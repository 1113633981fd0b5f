#include "rewriter/plan/blockplan/windows.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <vector>

#include "rewriter/plan/blockplan/greedy.h"
#include "rewriter/plan/blockplan/lower_bound.h"
#include "rewriter/plan/blockplan/probe.h"
#include "rewriter/plan/blockplan/search.h"

namespace pteshare {
namespace {

bool Occupies(const Block& block) {
  return block.size > 0 && block.lifespan.begin < block.lifespan.end;
}

/// A probe is one run of each plain preorder.
constexpr uint64_t kPlainRuns = std::size(kAllSearchPreorders);
/// A window that misses the running capacity tries it raised by a 512th of
/// the lower bound, then twice, four times that... while below what a
/// greedy placement of the window reaches.
constexpr Bytes kFirstRaiseDivisor = 512;

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

std::optional<BlockSolution> SearchInWindows(const BlockProblem& problem, Bytes lower_bound,
                                             const WindowedSearchOptions& options,
                                             StepBudget* budget) {
  const std::vector<Block>& blocks = problem.blocks;
  BlockSolution out;
  out.offsets.assign(blocks.size(), 0);
  // Blocks that stay placed and may still be live: fixed ones first, then
  // each window's, dropped once they end before the earliest window a miss
  // may free again begins.
  std::vector<uint32_t> placed;
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    const Block& block = blocks[i];
    if (block.fixed_offset) {
      out.offsets[i] = *block.fixed_offset;
      out.height = std::max(out.height, ReachOf(block, *block.fixed_offset));
      if (Occupies(block)) placed.push_back(i);
    } else if (Occupies(block)) {
      order.push_back(i);
    } else {
      out.height = std::max(out.height, ReachOf(block, 0));  // at 0, live with nothing
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return blocks[a].lifespan.begin < blocks[b].lifespan.begin;
  });
  const size_t window = std::max<size_t>(options.window_blocks, 1);
  const size_t lookahead = options.lookahead_blocks;
  const size_t back_blocks = options.backtrack_windows * window;
  const size_t windows = (order.size() + window - 1) / window;
  const Bytes first_raise = std::max<Bytes>(problem.alignment, lower_bound / kFirstRaiseDivisor);
  std::vector<uint32_t> freed(blocks.size(), 0);
  uint32_t stamp = 0;
  Bytes capacity = lower_bound;
  for (size_t w = 0; w < windows; ++w) {
    if (budget->exhausted()) return std::nullopt;
    const size_t start = w * window;
    const size_t commit_end = std::min(order.size(), start + window);
    const size_t search_end = std::min(order.size(), commit_end + lookahead);
    const size_t earliest = start - std::min(start, back_blocks);
    const TimeValue from = blocks[order[earliest]].lifespan.begin;
    std::erase_if(placed, [&](uint32_t i) { return blocks[i].lifespan.end <= from; });

    // The window's blocks from `first` (this window's start, or earlier
    // when the windows before are freed again) searched under `cap`.
    WindowProblem sub;
    size_t kept_first = start;
    std::optional<BlockSolution> kept;
    auto build = [&](size_t first) {
      ++stamp;
      for (size_t k = first; k < start; ++k) freed[order[k]] = stamp;
      std::vector<uint32_t> obstacles;
      for (uint32_t i : placed) {
        if (freed[i] != stamp) obstacles.push_back(i);
      }
      sub = MakeWindowProblem(problem, obstacles, out.offsets, order.data() + first,
                              order.data() + search_end);
    };
    auto search_from = [&](size_t first, Bytes cap) -> bool {
      build(first);
      CapacitySearch search(sub.problem);
      BlockSolution found;
      // Steps in proportion to the blocks searched: a probe with three
      // windows freed again has four windows' work to do (at a window's
      // steps it missed where it could fit, and greedy took over).
      const uint64_t steps = std::max<uint64_t>(
          options.probe_steps * (search_end - first) / (window + lookahead), kPlainRuns);
      ProbeSchedule schedule;
      schedule.first_run_steps = steps / kPlainRuns;
      schedule.shuffled_runs = false;
      if (ProbeCapacity(search, cap, schedule, steps, budget, &found) != SearchOutcome::kFound) {
        return false;
      }
      kept = std::move(found);
      kept_first = first;
      return true;
    };
    // The running capacity; on a miss the earlier windows' placements may
    // be what is in the way, so they are freed too, one more at a time.
    build(start);
    capacity = std::max(capacity, BlockLowerBound(sub.problem.blocks));
    bool fits = search_from(start, capacity);
    for (size_t first = start; !fits && first > earliest && !budget->exhausted();) {
      first -= std::min(first - earliest, window);
      fits = search_from(first, capacity);
    }
    // Then more room, doubling, alone and with the windows before freed,
    // but only below the height a greedy placement of the window reaches: a
    // fit under a larger capacity may use all of it, and the running
    // capacity would rise past what greedy needed.
    std::optional<BlockSolution> greedy;
    if (!fits && !budget->exhausted()) {
      build(start);
      greedy = GreedyWindow(sub.problem, budget);
    }
    for (Bytes raise = first_raise;
         !fits && !budget->exhausted() && capacity + raise < greedy->height; raise *= 2) {
      const Bytes cap = capacity + raise;
      fits = search_from(start, cap) || (earliest < start && search_from(earliest, cap));
    }
    if (budget->exhausted()) return std::nullopt;
    if (!fits) {
      build(start);
      kept = std::move(*greedy);  // set: the budget lasted
      kept_first = start;
    }
    capacity = std::max(capacity, kept->height);
    for (size_t k = kept_first; k < commit_end; ++k) {
      const uint32_t i = order[k];
      out.offsets[i] = kept->offsets[sub.first_free + (k - kept_first)];
      if (k >= start) placed.push_back(i);
    }
  }
  for (uint32_t i : order) out.height = std::max(out.height, ReachOf(blocks[i], out.offsets[i]));
  return out;
}

}  // namespace pteshare
