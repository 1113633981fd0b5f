#include "rewriter/block_search.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace pteshare {
namespace {

constexpr uint32_t kSectionTag = 0x80000000u;

bool Occupies(const Block& block) {
  return block.size > 0 && block.lifespan.begin < block.lifespan.end;
}

Offset AlignUp(Offset value, Bytes alignment) { return (value + alignment - 1) & ~(alignment - 1); }

/// A number in [0, 1) from a splitmix64 stream: the same on every platform.
double UnitRandom(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

}  // namespace

CapacitySearch::CapacitySearch(const BlockProblem& problem)
    : problem_(problem), alignment_(problem.alignment) {
  const std::vector<Block>& blocks = problem.blocks;
  std::vector<TimeValue> points;
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    if (!Occupies(blocks[i])) continue;
    points.push_back(blocks[i].lifespan.begin);
    points.push_back(blocks[i].lifespan.end);
    if (!blocks[i].fixed_offset) free_.push_back(i);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  // Section s is the time range [points[s], points[s + 1]): within it the
  // set of live blocks does not change.
  const size_t sections = points.empty() ? 0 : points.size() - 1;
  auto section_of = [&](TimeValue t) {
    return static_cast<uint32_t>(std::lower_bound(points.begin(), points.end(), t) -
                                 points.begin());
  };
  initial_total_.assign(sections, 0);
  section_fixed_.assign(sections, {});
  std::vector<uint32_t> fixed;
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].fixed_offset && Occupies(blocks[i])) fixed.push_back(i);
  }
  for (uint32_t i : fixed) {
    const Block& block = blocks[i];
    for (uint32_t s = section_of(block.lifespan.begin); s < section_of(block.lifespan.end); ++s) {
      section_fixed_[s].push_back({*block.fixed_offset, *block.fixed_offset + block.size});
    }
  }
  const size_t n = free_.size();
  size_.resize(n);
  section_begin_.resize(n);
  section_end_.resize(n);
  obstacles_.assign(n, {});
  conflicts_.assign(n, {});
  for (uint32_t b = 0; b < n; ++b) {
    const Block& block = blocks[free_[b]];
    size_[b] = block.size;
    section_begin_[b] = section_of(block.lifespan.begin);
    section_end_[b] = section_of(block.lifespan.end);
    for (uint32_t s = section_begin_[b]; s < section_end_[b]; ++s) initial_total_[s] += block.size;
    for (uint32_t f : fixed) {
      const Block& other = blocks[f];
      if (LifespansOverlap(block.lifespan, other.lifespan)) {
        obstacles_[b].push_back({*other.fixed_offset, *other.fixed_offset + other.size});
      }
    }
    std::sort(obstacles_[b].begin(), obstacles_[b].end(),
              [](const FixedSpan& x, const FixedSpan& y) { return x.begin < y.begin; });
  }
  // Conflicts: with blocks sorted by begin, the blocks after b that begin
  // before b ends are exactly the later-beginning ones live alongside it.
  std::vector<uint32_t> by_begin(n);
  std::iota(by_begin.begin(), by_begin.end(), 0u);
  auto begin_of = [&](uint32_t b) { return blocks[free_[b]].lifespan.begin; };
  auto end_of = [&](uint32_t b) { return blocks[free_[b]].lifespan.end; };
  std::sort(by_begin.begin(), by_begin.end(),
            [&](uint32_t x, uint32_t y) { return begin_of(x) < begin_of(y); });
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n && begin_of(by_begin[j]) < end_of(by_begin[i]); ++j) {
      conflicts_[by_begin[i]].push_back(by_begin[j]);
      conflicts_[by_begin[j]].push_back(by_begin[i]);
    }
  }
  peak_total_.assign(n, 0);
  section_blocks_.assign(sections, {});
  initial_spans_.assign(sections, 0);
  for (uint32_t b = 0; b < n; ++b) {
    for (uint32_t s = section_begin_[b]; s < section_end_[b]; ++s) {
      peak_total_[b] = std::max(peak_total_[b], initial_total_[s]);
      section_blocks_[s].push_back(b);
      if (s + 1 < section_end_[b]) ++initial_spans_[s];
    }
  }
}

SearchOutcome CapacitySearch::Run(Bytes capacity, SearchPreorder preorder, uint64_t shuffle,
                                  uint64_t step_limit, StepBudget* budget,
                                  BlockSolution* solution) {
  const size_t n = free_.size();
  const std::vector<Block>& blocks = problem_.blocks;
  auto length = [&](uint32_t b) {
    const Lifespan& span = blocks[free_[b]].lifespan;
    return static_cast<double>(span.end) - static_cast<double>(span.begin);
  };
  auto area = [&](uint32_t b) { return static_cast<double>(size_[b]) * length(b); };
  preorder_.resize(n);
  std::iota(preorder_.begin(), preorder_.end(), 0u);
  std::stable_sort(preorder_.begin(), preorder_.end(), [&](uint32_t x, uint32_t y) {
    switch (preorder) {
      case SearchPreorder::kPeakTotalThenArea:
        if (peak_total_[x] != peak_total_[y]) return peak_total_[x] > peak_total_[y];
        if (area(x) != area(y)) return area(x) > area(y);
        return length(x) > length(y);
      case SearchPreorder::kAreaThenPeakTotal:
        if (area(x) != area(y)) return area(x) > area(y);
        if (peak_total_[x] != peak_total_[y]) return peak_total_[x] > peak_total_[y];
        return length(x) > length(y);
      case SearchPreorder::kLengthThenArea:
        if (length(x) != length(y)) return length(x) > length(y);
        if (area(x) != area(y)) return area(x) > area(y);
        return peak_total_[x] > peak_total_[y];
    }
    return false;
  });
  if (shuffle != 0) {
    std::vector<std::pair<double, uint32_t>> keyed(n);
    uint64_t state = shuffle;
    for (uint32_t r = 0; r < n; ++r) {
      keyed[r] = {r + 0.2 * n * UnitRandom(&state), preorder_[r]};
    }
    std::sort(keyed.begin(), keyed.end());
    for (uint32_t r = 0; r < n; ++r) preorder_[r] = keyed[r].second;
  }
  rank_.resize(n);
  for (uint32_t r = 0; r < n; ++r) rank_[preorder_[r]] = r;

  capacity_ = capacity;
  step_limit_ = step_limit;
  // Setting up costs a pass over blocks and sections; charge it with the
  // first node so many short restarts are not free.
  work_ = n + initial_total_.size();
  charged_ = 0;
  budget_ = budget;
  offset_.assign(n, kUnplaced);
  min_offset_.assign(n, 0);
  floor_.assign(initial_total_.size(), 0);
  total_ = initial_total_;
  placed_ = 0;
  undo_.clear();

  // Fixed blocks must fit too; the planner's capacity is never below them.
  for (const Block& block : blocks) {
    if (block.fixed_offset && *block.fixed_offset + block.size > capacity) {
      return SearchOutcome::kInfeasible;
    }
  }
  spans_ = initial_spans_;
  stamp_.assign(initial_total_.size(), 0);
  stamp_now_ = 0;
  found_.assign(n, 0);
  // The whole problem is one partition, split wherever no block spans a
  // section boundary (gaps in time, or blocks lined up end to begin).
  Partition whole{0, static_cast<uint32_t>(initial_total_.size()), preorder_};
  if (!SectionsFit(whole, 0)) return SearchOutcome::kInfeasible;
  std::vector<uint32_t> cuts;
  for (uint32_t s = 0; s + 1 < initial_total_.size(); ++s) {
    if (spans_[s] == 0) cuts.push_back(s + 1);
  }
  SearchOutcome outcome = SearchSplit(whole, cuts);
  if (outcome != SearchOutcome::kFound) return outcome;
  solution->offsets.assign(blocks.size(), 0);
  solution->height = 0;
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].fixed_offset) solution->offsets[i] = *blocks[i].fixed_offset;
  }
  for (uint32_t b = 0; b < n; ++b) solution->offsets[free_[b]] = found_[b];
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].size > 0) {
      solution->height = std::max(solution->height, solution->offsets[i] + blocks[i].size);
    }
  }
  return SearchOutcome::kFound;
}

SearchOutcome CapacitySearch::Search(const Partition& part, Offset last_offset,
                                     uint32_t last_rank) {
  std::vector<Candidate> candidates;
  Offset min_top = std::numeric_limits<Offset>::max();
  for (uint32_t b : part.blocks) {
    if (offset_[b] != kUnplaced) continue;
    const Offset offset = LowestFreeOffset(b, min_offset_[b]);
    candidates.push_back({offset, rank_[b]});
    min_top = std::min(min_top, offset + size_[b]);
  }
  if (candidates.empty()) return SearchOutcome::kFound;
  // Charge the work since the last node: this node's scan plus the
  // placements and splits that led here.
  work_ += candidates.size() + (part.section_end - part.section_begin);
  const uint64_t cost = work_ - charged_;
  charged_ = work_;
  if (work_ > step_limit_ || !budget_->Spend(cost)) return SearchOutcome::kOutOfSteps;
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
    return x.offset != y.offset ? x.offset < y.offset : x.rank < y.rank;
  });
  std::vector<uint32_t> cuts;
  for (const Candidate& candidate : candidates) {
    // Canonical order: a block below the last placement, or level with it
    // but earlier in the preorder, would have been placed before it.
    if (candidate.offset < last_offset ||
        (candidate.offset == last_offset && candidate.rank < last_rank)) {
      continue;
    }
    // Dominance: at or above min_top, the block reaching min_top could have
    // gone first without touching this one.
    if (candidate.offset >= min_top) break;
    const uint32_t b = preorder_[candidate.rank];
    if (candidate.offset + size_[b] > capacity_) continue;
    const size_t undo_mark = undo_.size();
    cuts.clear();
    Place(b, candidate.offset, part, &cuts);
    SearchOutcome outcome = SearchOutcome::kInfeasible;
    if (SectionsFit(part, candidate.offset)) {
      outcome =
          cuts.empty() ? Search(part, candidate.offset, candidate.rank) : SearchSplit(part, cuts);
    }
    Unplace(b, undo_mark);
    if (outcome == SearchOutcome::kFound) found_[b] = candidate.offset;
    if (outcome != SearchOutcome::kInfeasible) return outcome;
  }
  return SearchOutcome::kInfeasible;
}

SearchOutcome CapacitySearch::SearchSplit(const Partition& part,
                                          const std::vector<uint32_t>& cuts) {
  std::vector<uint32_t> bounds = cuts;
  std::sort(bounds.begin(), bounds.end());
  bounds.insert(bounds.begin(), part.section_begin);
  bounds.push_back(part.section_end);
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    Partition sub{bounds[i], bounds[i + 1], {}};
    if (sub.section_begin >= sub.section_end) continue;
    for (uint32_t b : part.blocks) {
      if (offset_[b] == kUnplaced && section_begin_[b] < sub.section_end &&
          sub.section_begin < section_end_[b]) {
        sub.blocks.push_back(b);
      }
    }
    work_ += part.blocks.size();
    if (sub.blocks.empty()) continue;
    // Independent of what lies left and right: a fresh canonical order.
    SearchOutcome outcome = Search(sub, 0, 0);
    if (outcome != SearchOutcome::kFound) return outcome;
  }
  return SearchOutcome::kFound;
}

Offset CapacitySearch::LowestFreeOffset(uint32_t b, Offset from) const {
  Offset offset = AlignUp(from, alignment_);
  // Obstacles are sorted by begin; a bump past one can only run into a later
  // one, so one pass repeated until nothing moves suffices (usually none).
  for (bool moved = true; moved;) {
    moved = false;
    for (const FixedSpan& fixed : obstacles_[b]) {
      if (fixed.begin < offset + size_[b] && offset < fixed.end) {
        offset = AlignUp(fixed.end, alignment_);
        moved = true;
      }
    }
  }
  return offset;
}

bool CapacitySearch::SectionsFit(const Partition& part, Offset offset) {
  for (uint32_t s = part.section_begin; s < part.section_end; ++s) {
    if (total_[s] == 0) continue;
    // Every unplaced block of this section goes at or above `floor`, in the
    // room the fixed blocks leave there.
    const Offset floor = std::max(floor_[s], offset);
    Bytes needed = floor + total_[s];
    for (const FixedSpan& fixed : section_fixed_[s]) {
      if (fixed.end > floor) needed += fixed.end - std::max(fixed.begin, floor);
    }
    if (needed > capacity_) return false;
  }
  return true;
}

void CapacitySearch::Place(uint32_t b, Offset offset, const Partition& part,
                           std::vector<uint32_t>* cuts) {
  offset_[b] = offset;
  ++placed_;
  const Offset top = offset + size_[b];
  const Offset aligned_top = AlignUp(top, alignment_);
  for (uint32_t s = section_begin_[b]; s < section_end_[b]; ++s) {
    undo_.push_back({s | kSectionTag, floor_[s]});
    floor_[s] = std::max(floor_[s], top);
    total_[s] -= size_[b];
    if (s + 1 < section_end_[b] && --spans_[s] == 0 && s + 1 > part.section_begin &&
        s + 1 < part.section_end) {
      cuts->push_back(s + 1);
    }
  }
  // Raise the lowest offsets of the blocks live alongside, and with them the
  // floors of their sections: no unplaced block there can go lower.
  ++stamp_now_;
  work_ += conflicts_[b].size() + (section_end_[b] - section_begin_[b]);
  for (uint32_t other : conflicts_[b]) {
    if (offset_[other] != kUnplaced || min_offset_[other] >= aligned_top) continue;
    undo_.push_back({other, min_offset_[other]});
    min_offset_[other] = aligned_top;
    for (uint32_t s = section_begin_[other]; s < section_end_[other]; ++s) {
      // The new lowest offset there is at most aligned_top: a floor already
      // that high cannot rise.
      if (floor_[s] >= aligned_top || stamp_[s] == stamp_now_) continue;
      stamp_[s] = stamp_now_;
      Offset lowest = std::numeric_limits<Offset>::max();
      work_ += section_blocks_[s].size();
      for (uint32_t peer : section_blocks_[s]) {
        if (offset_[peer] == kUnplaced) lowest = std::min(lowest, min_offset_[peer]);
      }
      if (lowest != std::numeric_limits<Offset>::max() && lowest > floor_[s]) {
        undo_.push_back({s | kSectionTag, floor_[s]});
        floor_[s] = lowest;
      }
    }
  }
}

void CapacitySearch::Unplace(uint32_t b, size_t undo_mark) {
  while (undo_.size() > undo_mark) {
    auto [index, value] = undo_.back();
    undo_.pop_back();
    if (index & kSectionTag) {
      floor_[index & ~kSectionTag] = value;
    } else {
      min_offset_[index] = value;
    }
  }
  for (uint32_t s = section_begin_[b]; s < section_end_[b]; ++s) {
    total_[s] += size_[b];
    if (s + 1 < section_end_[b]) ++spans_[s];
  }
  offset_[b] = kUnplaced;
  --placed_;
}

}  // namespace pteshare
