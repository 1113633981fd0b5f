#include "rewriter/plan/blockplan/greedy.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace pteshare {
namespace {

bool Occupies(const Block& block) {
  return block.size > 0 && block.lifespan.begin < block.lifespan.end;
}

std::vector<Lifespan> Lifespans(const BlockProblem& problem) {
  std::vector<Lifespan> spans;
  spans.reserve(problem.blocks.size());
  for (const Block& block : problem.blocks) spans.push_back(block.lifespan);
  return spans;
}

/// For each block, how many other blocks are live alongside it, counted with
/// two sorted arrays: the others that end at or before it begins, or begin at
/// or after it ends, are the ones that don't conflict.
std::vector<uint64_t> ConflictCounts(const BlockProblem& problem) {
  std::vector<TimeValue> begins, ends;
  for (const Block& block : problem.blocks) {
    if (!Occupies(block)) continue;
    begins.push_back(block.lifespan.begin);
    ends.push_back(block.lifespan.end);
  }
  std::sort(begins.begin(), begins.end());
  std::sort(ends.begin(), ends.end());
  std::vector<uint64_t> counts(problem.blocks.size(), 0);
  for (size_t i = 0; i < problem.blocks.size(); ++i) {
    const Block& block = problem.blocks[i];
    if (!Occupies(block)) continue;
    size_t ended = std::upper_bound(ends.begin(), ends.end(), block.lifespan.begin) - ends.begin();
    size_t not_begun =
        begins.end() - std::lower_bound(begins.begin(), begins.end(), block.lifespan.end);
    counts[i] = begins.size() - ended - not_begun - 1;
  }
  return counts;
}

/// For each block, the largest total size live at any instant of its
/// lifespan: the live-size profile in a max segment tree over time sections.
std::vector<Bytes> PeakTotals(const BlockProblem& problem) {
  std::vector<TimeValue> points;
  for (const Block& block : problem.blocks) {
    if (!Occupies(block)) continue;
    points.push_back(block.lifespan.begin);
    points.push_back(block.lifespan.end);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  auto section = [&](TimeValue t) {
    return static_cast<size_t>(std::lower_bound(points.begin(), points.end(), t) - points.begin());
  };
  // Difference array -> live total per section.
  std::vector<int64_t> delta(points.size() + 1, 0);
  for (const Block& block : problem.blocks) {
    if (!Occupies(block)) continue;
    delta[section(block.lifespan.begin)] += static_cast<int64_t>(block.size);
    delta[section(block.lifespan.end)] -= static_cast<int64_t>(block.size);
  }
  size_t leaves = 1;
  while (leaves < points.size()) leaves *= 2;
  std::vector<Bytes> tree(2 * leaves, 0);
  int64_t live = 0;
  for (size_t s = 0; s < points.size(); ++s) {
    live += delta[s];
    tree[leaves + s] = static_cast<Bytes>(live);
  }
  for (size_t node = leaves - 1; node >= 1; --node) {
    tree[node] = std::max(tree[2 * node], tree[2 * node + 1]);
  }
  std::vector<Bytes> peaks(problem.blocks.size(), 0);
  for (size_t i = 0; i < problem.blocks.size(); ++i) {
    const Block& block = problem.blocks[i];
    if (!Occupies(block)) continue;
    Bytes peak = 0;
    // Max over sections [lo, hi) of the tree, bottom-up.
    for (size_t lo = section(block.lifespan.begin) + leaves,
                hi = section(block.lifespan.end) + leaves;
         lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) peak = std::max(peak, tree[lo++]);
      if (hi & 1) peak = std::max(peak, tree[--hi]);
    }
    peaks[i] = peak;
  }
  return peaks;
}

}  // namespace

std::vector<uint32_t> OrderFreeBlocks(const BlockProblem& problem, BlockOrder order) {
  const std::vector<Block>& blocks = problem.blocks;
  std::vector<uint32_t> free;
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    if (!blocks[i].fixed_offset) free.push_back(i);
  }
  std::vector<uint64_t> key(blocks.size(), 0);  // larger first
  switch (order) {
    case BlockOrder::kSizeDescending:
      break;
    case BlockOrder::kAreaDescending:
      for (uint32_t i : free) {
        const Lifespan& span = blocks[i].lifespan;
        uint64_t length = span.end > span.begin ? static_cast<uint64_t>(span.end - span.begin) : 0;
        // Saturate instead of wrapping for absurd sizes; order stays sensible.
        key[i] = length != 0 && blocks[i].size > std::numeric_limits<uint64_t>::max() / length
                     ? std::numeric_limits<uint64_t>::max()
                     : blocks[i].size * length;
      }
      break;
    case BlockOrder::kLengthDescending:
      for (uint32_t i : free) {
        const Lifespan& span = blocks[i].lifespan;
        key[i] = span.end > span.begin ? static_cast<uint64_t>(span.end - span.begin) : 0;
      }
      break;
    case BlockOrder::kConflictsDescending:
      key = ConflictCounts(problem);
      break;
    case BlockOrder::kBeginAscending:
      // Earlier begin = larger key; offset so the subtraction cannot wrap.
      for (uint32_t i : free) {
        key[i] = static_cast<uint64_t>(std::numeric_limits<TimeValue>::max()) -
                 static_cast<uint64_t>(blocks[i].lifespan.begin);
      }
      break;
    case BlockOrder::kPeakTotalDescending:
      key = PeakTotals(problem);
      break;
  }
  std::sort(free.begin(), free.end(), [&](uint32_t a, uint32_t b) {
    if (key[a] != key[b]) return key[a] > key[b];
    if (blocks[a].size != blocks[b].size) return blocks[a].size > blocks[b].size;
    return a < b;
  });
  // Blocks live over at least half of the time (KV caches when nothing is
  // shared) go first in every order: they conflict with nearly every block,
  // so placing them late only fragments the arena, and placed first they
  // make every later block see them as a few merged ranges, not one by one.
  TimeValue first = std::numeric_limits<TimeValue>::max();
  TimeValue last = std::numeric_limits<TimeValue>::min();
  for (const Block& block : blocks) {
    if (!Occupies(block)) continue;
    first = std::min(first, block.lifespan.begin);
    last = std::max(last, block.lifespan.end);
  }
  if (first < last) {
    const TimeValue half = (last - first + 1) / 2;
    std::stable_partition(free.begin(), free.end(), [&](uint32_t i) {
      return Occupies(blocks[i]) && blocks[i].lifespan.end - blocks[i].lifespan.begin >= half;
    });
  }
  return free;
}

namespace {

/// A 32nd of the time from the first begin to the last end: long enough that
/// few blocks are long, short enough that caches live throughout are.
TimeValue LongLength(const BlockProblem& problem) {
  TimeValue first = std::numeric_limits<TimeValue>::max();
  TimeValue last = std::numeric_limits<TimeValue>::min();
  for (const Block& block : problem.blocks) {
    if (!Occupies(block)) continue;
    first = std::min(first, block.lifespan.begin);
    last = std::max(last, block.lifespan.end);
  }
  return first < last ? std::max<TimeValue>(1, (last - first) / 32) : 1;
}

/// The lifespans of the blocks shorter than `long_length` (all when 0); the
/// others empty, so the short index never scans them.
std::vector<Lifespan> ShortLifespans(const BlockProblem& problem, TimeValue long_length) {
  std::vector<Lifespan> spans = Lifespans(problem);
  if (long_length == 0) return spans;
  for (Lifespan& span : spans) {
    if (span.end - span.begin >= long_length) span = Lifespan{};
  }
  return spans;
}

bool AnyLong(const BlockProblem& problem, TimeValue long_length) {
  return std::any_of(problem.blocks.begin(), problem.blocks.end(), [&](const Block& block) {
    return Occupies(block) && block.lifespan.end - block.lifespan.begin >= long_length;
  });
}

}  // namespace

GreedyPlacer::GreedyPlacer(const BlockProblem& problem)
    : problem_(problem),
      long_length_(LongLength(problem)),
      any_long_(AnyLong(problem, long_length_)),
      short_(ShortLifespans(problem, any_long_ ? long_length_ : 0)),
      long_index_(any_long_ ? Lifespans(problem) : std::vector<Lifespan>{}),
      long_(any_long_ ? Lifespans(problem) : std::vector<Lifespan>{}) {}

bool GreedyPlacer::IsLong(const Block& block) const {
  return any_long_ && block.lifespan.end - block.lifespan.begin >= long_length_;
}

BlockSolution GreedyPlacer::Place(const std::vector<uint32_t>& order, FitRule rule,
                                  StepBudget* budget) {
  const std::vector<Block>& blocks = problem_.blocks;
  const Bytes alignment = problem_.alignment;
  BlockSolution solution;
  solution.offsets.assign(blocks.size(), 0);
  short_.Clear();
  if (any_long_) {
    long_index_.Clear();
    long_.Clear();
  }
  auto insert = [&](uint32_t i) {
    const Block& block = blocks[i];
    if (IsLong(block)) {
      long_index_.Insert(i);
      long_.Insert(block.lifespan, solution.offsets[i], solution.offsets[i] + block.size);
    } else {
      short_.Insert(i, solution.offsets[i], solution.offsets[i] + block.size);
    }
  };
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    if (!blocks[i].fixed_offset) continue;
    solution.offsets[i] = *blocks[i].fixed_offset;
    if (Occupies(blocks[i])) insert(i);
    solution.height = std::max(solution.height, ReachOf(blocks[i], *blocks[i].fixed_offset));
  }
  for (uint32_t i : order) {
    const Block& block = blocks[i];
    if (!Occupies(block)) {  // at offset 0 it conflicts with nothing
      solution.height = std::max(solution.height, ReachOf(block, 0));
      continue;
    }
    hits_.clear();
    occupied_.clear();
    // Short placed blocks one by one; long ones as the merged ranges of
    // those covering the query's first or last instant, plus (only a long
    // query can have any) those strictly inside it.
    short_.AppendOverlapping(block.lifespan, &occupied_);
    if (any_long_) {
      long_.AppendCovering(block.lifespan, &occupied_);
      if (IsLong(block)) long_index_.FindInside(block.lifespan, &hits_);
    }
    for (uint32_t hit : hits_) {
      occupied_.push_back({solution.offsets[hit], solution.offsets[hit] + blocks[hit].size});
    }
    budget->Spend(1 + occupied_.size());
    std::sort(occupied_.begin(), occupied_.end(),
              [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
    // Walk the gaps between occupied ranges bottom-up; `cursor` is the lowest
    // aligned offset above everything seen so far.
    Offset cursor = 0;
    Offset chosen = 0;
    Bytes chosen_gap = std::numeric_limits<Bytes>::max();
    bool found = false;
    for (const Interval& taken : occupied_) {
      if (taken.begin >= cursor && taken.begin - cursor >= block.size) {
        Bytes gap = taken.begin - cursor;
        if (!found || gap < chosen_gap) {
          chosen = cursor;
          chosen_gap = gap;
          found = true;
          if (rule == FitRule::kFirstFit || gap == block.size) break;
        }
      }
      cursor = std::max(cursor, RoundUpToAlignment(taken.end, alignment));
    }
    if (!found) chosen = cursor;  // the unbounded gap on top
    solution.offsets[i] = chosen;
    solution.height = std::max(solution.height, ReachOf(block, chosen));
    insert(i);
  }
  return solution;
}

}  // namespace pteshare
