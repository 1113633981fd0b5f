#include "rewriter/plan/blockplan/search.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>

#include "rewriter/plan/blockplan/splitmix.h"

namespace pteshare {
namespace {

constexpr uint32_t kSectionTag = 0x80000000u;

/// A number in [0, 1) from a SplitMix64 stream: the same on every platform.
double UnitRandom(uint64_t* state) {
  return static_cast<double>(SplitMix64Next(state) >> 11) * 0x1.0p-53;
}

}  // namespace

CapacitySearch::CapacitySearch(const BlockProblem& problem)
    : problem_(problem), alignment_(problem.alignment), sweep_(SweepBlocks(problem)) {
  const size_t n = sweep_.free.size();
  const size_t sections = sweep_.section_count();
  size_.resize(n);
  padded_size_.resize(n);
  initial_total_.assign(sections, 0);
  initial_padded_.assign(sections, 0);
  initial_spans_.assign(sections, 0);
  any_obstacles_ = std::any_of(sweep_.obstacles.begin(), sweep_.obstacles.end(),
                               [](const std::vector<FixedSpan>& spans) { return !spans.empty(); });
  slot_base_.resize(n);
  uint32_t slots = 0;
  for (uint32_t b = 0; b < n; ++b) {
    slot_base_[b] = slots;
    slots += sweep_.section_end[b] - sweep_.section_begin[b];
  }
  slot_.assign(slots, 0);
  for (uint32_t b = 0; b < n; ++b) {
    size_[b] = problem.blocks[sweep_.free[b]].size;
    padded_size_[b] = RoundUpToAlignment(size_[b], alignment_);
    for (uint32_t s = sweep_.section_begin[b]; s < sweep_.section_end[b]; ++s) {
      initial_total_[s] += size_[b];
      initial_padded_[s] += padded_size_[b];
      if (s + 1 < sweep_.section_end[b]) ++initial_spans_[s];
    }
  }
}

SearchOutcome CapacitySearch::Run(Bytes capacity, SearchPreorder preorder, uint64_t shuffle,
                                  uint64_t step_limit, StepBudget* budget,
                                  BlockSolution* solution) {
  SearchOrder order;
  order.preorder = preorder;
  order.shuffle_seed = shuffle;
  return Run(capacity, order, step_limit, budget, solution);
}

SearchOutcome CapacitySearch::Run(Bytes capacity, const SearchOrder& order, uint64_t step_limit,
                                  StepBudget* budget, BlockSolution* solution) {
  const size_t n = sweep_.free.size();
  const size_t sections = sweep_.section_count();
  const std::vector<Block>& blocks = problem_.blocks;
  capacity_ = capacity;
  order_ = order;
  deviation_pending_ = order.deviate_depth != SearchOrder::kNoDeviation;
  deepest_ = 0;
  step_limit_ = step_limit;
  // Setting up costs a pass over blocks, sections and their member lists;
  // charged below, so many short restarts are not free, and a run is never
  // free even when it settles before its first node.
  work_ = 1 + n + sections + slot_.size();
  charged_ = 0;
  budget_ = budget;
  rank_.assign(n, 0);
  offset_.assign(n, kUnplaced);
  found_.assign(n, 0);
  min_offset_.assign(n, 0);
  floor_.assign(sections, 0);
  total_ = initial_total_;
  padded_ = initial_padded_;
  spans_ = initial_spans_;
  unplaced_.resize(sections);
  for (uint32_t s = 0; s < sections; ++s) {
    unplaced_[s].assign(sweep_.members[s].begin(), sweep_.members[s].end());
    for (uint32_t k = 0; k < unplaced_[s].size(); ++k) *Slot(unplaced_[s][k], s) = k;
  }
  witness_.assign(sections, kNoWitness);
  depth_ = 0;
  candidates_.resize(n + 1);
  undo_.clear();
  if (!Charge()) return SearchOutcome::kOutOfSteps;

  // Fixed blocks must fit too; the planner's capacity is never below them.
  for (const Block& block : blocks) {
    if (block.fixed_offset && *block.fixed_offset + block.size > capacity) {
      return SearchOutcome::kInfeasible;
    }
  }
  // The whole problem is one partition, split wherever no block spans a
  // section boundary (gaps in time, or blocks lined up end to begin).
  Partition whole{0, static_cast<uint32_t>(sections), {}};
  whole.blocks.resize(n);
  std::iota(whole.blocks.begin(), whole.blocks.end(), 0u);
  if (!SectionsFit(whole, 0)) return SearchOutcome::kInfeasible;
  std::vector<uint32_t> cuts;
  for (uint32_t s = 0; s + 1 < sections; ++s) {
    if (spans_[s] == 0) cuts.push_back(s + 1);
  }
  SearchOutcome outcome = cuts.empty() ? SolvePartition(&whole) : SearchSplit(whole, &cuts);
  if (outcome != SearchOutcome::kFound) return outcome;
  solution->offsets.assign(blocks.size(), 0);
  solution->height = 0;
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].fixed_offset) solution->offsets[i] = *blocks[i].fixed_offset;
  }
  for (uint32_t b = 0; b < n; ++b) solution->offsets[sweep_.free[b]] = found_[b];
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    solution->height = std::max(solution->height, ReachOf(blocks[i], solution->offsets[i]));
  }
  return SearchOutcome::kFound;
}

bool CapacitySearch::Charge() {
  const uint64_t cost = work_ - charged_;
  charged_ = work_;
  // Spend even past the limit: the caller's accounting must see the work.
  const bool budget_left = budget_->Spend(cost);
  return budget_left && work_ <= step_limit_;
}

SearchOutcome CapacitySearch::SolvePartition(Partition* part) {
  const std::vector<Block>& blocks = problem_.blocks;
  struct Key {
    Bytes peak;  // largest unplaced total in the block's sections, now
    double area;
    double length;
    uint32_t block;
  };
  std::vector<Key> keys;
  keys.reserve(part->blocks.size());
  for (uint32_t b : part->blocks) {
    Key key{0, 0, 0, b};
    for (uint32_t s = sweep_.section_begin[b]; s < sweep_.section_end[b]; ++s) {
      key.peak = std::max(key.peak, total_[s]);
    }
    work_ += sweep_.section_end[b] - sweep_.section_begin[b];
    const Lifespan& span = blocks[sweep_.free[b]].lifespan;
    key.length = static_cast<double>(span.end) - static_cast<double>(span.begin);
    key.area = static_cast<double>(size_[b]) * key.length;
    keys.push_back(key);
  }
  if (!Charge()) return SearchOutcome::kOutOfSteps;
  auto before = [this](const Key& x, const Key& y) {
    switch (order_.preorder) {
      case SearchPreorder::kPeakTotalThenArea:
        if (x.peak != y.peak) return x.peak > y.peak;
        if (x.area != y.area) return x.area > y.area;
        if (x.length != y.length) return x.length > y.length;
        break;
      case SearchPreorder::kLengthThenArea:
        if (x.length != y.length) return x.length > y.length;
        if (x.area != y.area) return x.area > y.area;
        if (x.peak != y.peak) return x.peak > y.peak;
        break;
      case SearchPreorder::kPeakTotalThenLength:
        if (x.peak != y.peak) return x.peak > y.peak;
        if (x.length != y.length) return x.length > y.length;
        if (x.area != y.area) return x.area > y.area;
        break;
    }
    return x.block < y.block;
  };
  std::sort(keys.begin(), keys.end(), before);
  const size_t n = keys.size();
  // The sort (and the shuffle's, below) cost n log n, a few steps per block.
  work_ += n * static_cast<uint64_t>(std::bit_width(n));
  if (order_.shuffle_seed != 0) {
    // Each partition draws from its own stream, so sibling partitions are
    // shuffled independently of the order they are solved in.
    uint64_t state = order_.shuffle_seed ^ (uint64_t{part->section_begin} * 0x9e3779b97f4a7c15ull);
    const double reach = order_.shuffle_permille / 1000.0 * static_cast<double>(n);
    std::vector<std::pair<double, uint32_t>> keyed(n);
    for (uint32_t r = 0; r < n; ++r) keyed[r] = {r + reach * UnitRandom(&state), r};
    std::sort(keyed.begin(), keyed.end());
    std::vector<Key> shuffled(n);
    for (uint32_t r = 0; r < n; ++r) shuffled[r] = keys[keyed[r].second];
    keys.swap(shuffled);
  }
  // Ranks are per partition; the enclosing partition's come back after.
  std::vector<uint32_t> saved(n);
  for (uint32_t r = 0; r < n; ++r) {
    part->blocks[r] = keys[r].block;
    saved[r] = rank_[keys[r].block];
    rank_[keys[r].block] = r;
  }
  SearchOutcome outcome = Search(*part, 0, 0);
  for (uint32_t r = 0; r < n; ++r) rank_[part->blocks[r]] = saved[r];
  return outcome;
}

SearchOutcome CapacitySearch::Search(const Partition& part, Offset last_offset,
                                     uint32_t last_rank) {
  // Sized to the block count in Run, so this reference stays valid below.
  std::vector<Candidate>& candidates = candidates_[depth_];
  candidates.clear();
  Offset min_top = std::numeric_limits<Offset>::max();
  size_t unplaced = 0;
  for (uint32_t b : part.blocks) {
    if (offset_[b] != kUnplaced) continue;
    ++unplaced;
    // min_offset_ stays aligned; only fixed blocks can push a block higher.
    const Offset offset = any_obstacles_ ? LowestFreeOffset(b, min_offset_[b]) : min_offset_[b];
    min_top = std::min(min_top, offset + size_[b]);
    // Canonical order: a block below the last placement, or level with it
    // but earlier in the preorder, would have been placed before it.
    if (offset < last_offset || (offset == last_offset && rank_[b] < last_rank)) continue;
    candidates.push_back({offset, rank_[b], b});
  }
  if (unplaced == 0) return SearchOutcome::kFound;
  work_ += part.blocks.size() + (part.section_end - part.section_begin);
  if (!Charge()) return SearchOutcome::kOutOfSteps;
  // Dominance: at or above min_top, the block reaching min_top could have
  // gone first without touching the one placed there. Dropping those before
  // sorting keeps the sort small (it was most of a node's time).
  std::erase_if(candidates, [&](const Candidate& c) { return c.offset >= min_top; });
  work_ += candidates.size() * std::bit_width(candidates.size());
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
    return x.offset != y.offset ? x.offset < y.offset : x.rank < y.rank;
  });
  if (deviation_pending_ && depth_ == order_.deviate_depth && candidates.size() > 1) {
    deviation_pending_ = false;
    const size_t pick = 1 + order_.deviate_pick % (candidates.size() - 1);
    std::rotate(candidates.begin(), candidates.begin() + pick, candidates.begin() + pick + 1);
  }
  // Every unplaced block goes at or above the offset placed next, so a
  // section whose unplaced bytes do not fit above that offset fails the
  // section check after any placement there (unless the block placed was
  // the last unplaced one in it). Most candidates fail so; finding out
  // before placing them saves most of a node's work.
  const MonotoneBound bound = MonotoneFloorBound(part);
  std::vector<uint32_t> cuts;
  for (const Candidate& candidate : candidates) {
    const uint32_t b = candidate.block;
    if (candidate.offset + size_[b] > capacity_) continue;
    if (candidate.offset > bound.offset && FailsMonotoneFloor(part, bound, b, candidate.offset)) {
      continue;
    }
    const size_t undo_mark = undo_.size();
    cuts.clear();
    Place(b, candidate.offset, part, &cuts);
    SearchOutcome outcome = SearchOutcome::kInfeasible;
    if (SectionsFit(part, candidate.offset)) {
      outcome =
          cuts.empty() ? Search(part, candidate.offset, candidate.rank) : SearchSplit(part, &cuts);
    }
    Unplace(b, undo_mark);
    if (outcome == SearchOutcome::kFound) found_[b] = candidate.offset;
    if (outcome != SearchOutcome::kInfeasible) return outcome;
  }
  return SearchOutcome::kInfeasible;
}

SearchOutcome CapacitySearch::SearchSplit(const Partition& part, std::vector<uint32_t>* cuts) {
  std::vector<uint32_t>& bounds = *cuts;
  std::sort(bounds.begin(), bounds.end());
  bounds.insert(bounds.begin(), part.section_begin);
  bounds.push_back(part.section_end);
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    Partition sub{bounds[i], bounds[i + 1], {}};
    if (sub.section_begin >= sub.section_end) continue;
    for (uint32_t b : part.blocks) {
      if (offset_[b] == kUnplaced && sweep_.section_begin[b] < sub.section_end &&
          sub.section_begin < sweep_.section_end[b]) {
        sub.blocks.push_back(b);
      }
    }
    work_ += part.blocks.size();
    if (sub.blocks.empty()) continue;
    // Independent of what lies left and right: a fresh canonical order.
    SearchOutcome outcome = SolvePartition(&sub);
    if (outcome != SearchOutcome::kFound) return outcome;
  }
  return SearchOutcome::kFound;
}

Offset CapacitySearch::LowestFreeOffset(uint32_t b, Offset from) const {
  Offset offset = RoundUpToAlignment(from, alignment_);
  // Obstacles are sorted by begin; a bump past one can only run into a later
  // one, so one pass repeated until nothing moves suffices (usually none).
  for (bool moved = true; moved;) {
    moved = false;
    for (const FixedSpan& fixed : sweep_.obstacles[b]) {
      if (fixed.begin < offset + size_[b] && offset < fixed.end) {
        offset = RoundUpToAlignment(fixed.end, alignment_);
        moved = true;
      }
    }
  }
  return offset;
}

CapacitySearch::MonotoneBound CapacitySearch::MonotoneFloorBound(const Partition& part) {
  MonotoneBound bound{std::numeric_limits<Offset>::max(), part.section_begin};
  for (uint32_t s = part.section_begin; s < part.section_end; ++s) {
    if (total_[s] == 0) continue;
    const Offset room = capacity_ - std::min(capacity_, total_[s]);
    if (room < bound.offset) bound = {room, s};
  }
  work_ += part.section_end - part.section_begin;
  return bound;
}

bool CapacitySearch::FailsMonotoneFloor(const Partition& part, const MonotoneBound& bound,
                                        uint32_t b, Offset offset) {
  auto only_unplaced = [&](uint32_t s) {
    return total_[s] == size_[b] && sweep_.section_begin[b] <= s && s < sweep_.section_end[b];
  };
  ++work_;
  if (!only_unplaced(bound.section)) return true;
  // The tightest section holds nothing but b: look at the others.
  work_ += part.section_end - part.section_begin;
  for (uint32_t s = part.section_begin; s < part.section_end; ++s) {
    if (total_[s] > 0 && offset + total_[s] > capacity_ && !only_unplaced(s)) return true;
  }
  return false;
}

bool CapacitySearch::SectionsFit(const Partition& part, Offset offset) const {
  for (uint32_t s = part.section_begin; s < part.section_end; ++s) {
    if (total_[s] == 0) continue;
    // Every unplaced block of this section goes at or above `floor`, in the
    // room the fixed blocks leave there.
    const Offset floor = std::max(floor_[s], offset);
    Bytes fixed_above = 0;
    for (const FixedSpan& fixed : sweep_.fixed[s]) {
      if (fixed.end > floor) fixed_above += fixed.end - std::max(fixed.begin, floor);
    }
    Bytes needed = floor + total_[s] + fixed_above;
    if (fixed_above == 0 && alignment_ > 1) {
      // Unplaced blocks start aligned, so each but the topmost also takes
      // its padding: the next one cannot start before the next multiple.
      needed = RoundUpToAlignment(floor, alignment_) +
               std::max(total_[s], padded_[s] - (alignment_ - 1));
    }
    if (needed > capacity_) return false;
  }
  return true;
}

void CapacitySearch::Place(uint32_t b, Offset offset, const Partition& part,
                           std::vector<uint32_t>* cuts) {
  offset_[b] = offset;
  deepest_ = std::max(deepest_, ++depth_);
  const Offset top = offset + size_[b];
  const Offset aligned_top = RoundUpToAlignment(top, alignment_);
  for (uint32_t s = sweep_.section_begin[b]; s < sweep_.section_end[b]; ++s) {
    if (floor_[s] < top) {
      undo_.push_back({s | kSectionTag, floor_[s]});
      floor_[s] = top;
    }
    total_[s] -= size_[b];
    padded_[s] -= padded_size_[b];
    if (s + 1 < sweep_.section_end[b] && --spans_[s] == 0 && s + 1 > part.section_begin &&
        s + 1 < part.section_end) {
      cuts->push_back(s + 1);
    }
    // Off the section's unplaced list: the last entry takes b's place.
    std::vector<uint32_t>& list = unplaced_[s];
    const uint32_t position = *Slot(b, s);
    const uint32_t last = list.back();
    list[position] = last;
    *Slot(last, s) = position;
    list.pop_back();
  }
  // Raise the lowest offsets of the blocks live alongside, then the floors
  // of their sections: no unplaced block there can go below the lowest.
  // The sections are those of the raised blocks, each visited once (their
  // ranges merged), and only where the floor is below the new lowest offset.
  affected_.clear();
  raised_.clear();
  const std::vector<uint32_t>& conflicts = sweep_.conflicts[b];
  for (uint32_t other : conflicts) {
    if (offset_[other] != kUnplaced || min_offset_[other] >= aligned_top) continue;
    undo_.push_back({other, min_offset_[other]});
    min_offset_[other] = aligned_top;
    raised_.push_back({sweep_.section_begin[other], sweep_.section_end[other]});
  }
  std::sort(raised_.begin(), raised_.end());
  uint32_t visited_end = 0;
  for (const auto& [from, to] : raised_) {
    for (uint32_t s = std::max(from, visited_end); s < to; ++s) {
      if (floor_[s] < aligned_top) affected_.push_back(s);
    }
    visited_end = std::max(visited_end, to);
  }
  work_ += conflicts.size() + (sweep_.section_end[b] - sweep_.section_begin[b]) +
           raised_.size() * std::bit_width(raised_.size()) + affected_.size();
  for (uint32_t s : affected_) {
    const Offset floor = floor_[s];
    // One unplaced block still at or below the floor keeps it where it is.
    // The last one found is checked first: it usually still is.
    const uint32_t witness = witness_[s];
    if (witness != kNoWitness && offset_[witness] == kUnplaced && min_offset_[witness] <= floor) {
      continue;
    }
    Offset lowest = std::numeric_limits<Offset>::max();
    for (uint32_t peer : unplaced_[s]) {
      ++work_;
      if (min_offset_[peer] <= floor) {
        witness_[s] = peer;
        lowest = floor;
        break;
      }
      lowest = std::min(lowest, min_offset_[peer]);
    }
    if (lowest != std::numeric_limits<Offset>::max() && lowest > floor) {
      undo_.push_back({s | kSectionTag, floor});
      floor_[s] = lowest;
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
  // In reverse order of Place, so every list is restored exactly.
  for (uint32_t s = sweep_.section_end[b]; s-- > sweep_.section_begin[b];) {
    total_[s] += size_[b];
    padded_[s] += padded_size_[b];
    if (s + 1 < sweep_.section_end[b]) ++spans_[s];
    // Back on the unplaced list where it was; the entry that took its
    // place goes back to the end.
    std::vector<uint32_t>& list = unplaced_[s];
    const uint32_t position = *Slot(b, s);
    if (position < list.size()) {
      const uint32_t moved = list[position];
      list[position] = b;
      *Slot(moved, s) = static_cast<uint32_t>(list.size());
      list.push_back(moved);
    } else {
      list.push_back(b);
    }
  }
  offset_[b] = kUnplaced;
  --depth_;
}

}  // namespace pteshare
