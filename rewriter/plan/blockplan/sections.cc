#include "rewriter/plan/blockplan/sections.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace pteshare {
namespace {

bool Occupies(const Block& block) {
  return block.size > 0 && block.lifespan.begin < block.lifespan.end;
}

}  // namespace

BlockSections SweepBlocks(const BlockProblem& problem) {
  const std::vector<Block>& blocks = problem.blocks;
  BlockSections out;
  // Problem index -> local free index (or kNotFree for fixed blocks).
  constexpr uint32_t kNotFree = ~0u;
  std::vector<uint32_t> local(blocks.size(), kNotFree);
  struct Event {
    TimeValue time;
    bool is_begin;  // ends sort first: half-open lifespans
    uint32_t block;
  };
  std::vector<Event> events;
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    if (!Occupies(blocks[i])) continue;
    if (!blocks[i].fixed_offset) {
      local[i] = static_cast<uint32_t>(out.free.size());
      out.free.push_back(i);
    }
    events.push_back({blocks[i].lifespan.begin, true, i});
    events.push_back({blocks[i].lifespan.end, false, i});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.is_begin != b.is_begin) return !a.is_begin;
    return a.block < b.block;
  });
  const size_t n = out.free.size();
  out.section_begin.assign(n, 0);
  out.section_end.assign(n, 0);
  // The live blocks, removable in O(1) by swapping with the last.
  std::vector<uint32_t> live;
  std::vector<uint32_t> live_position(blocks.size(), 0);
  std::vector<uint32_t> first_section(blocks.size(), 0);
  bool begun_since_section = false;
  for (const Event& event : events) {
    const uint32_t i = event.block;
    if (event.is_begin) {
      live_position[i] = static_cast<uint32_t>(live.size());
      live.push_back(i);
      first_section[i] = static_cast<uint32_t>(out.members.size());
      begun_since_section = true;
      continue;
    }
    // The first end after a begin closes a maximal live set.
    if (begun_since_section) {
      begun_since_section = false;
      std::vector<uint32_t>& members = out.members.emplace_back();
      std::vector<FixedSpan>& fixed = out.fixed.emplace_back();
      for (uint32_t j : live) {
        if (local[j] != kNotFree) {
          members.push_back(local[j]);
        } else {
          fixed.push_back({*blocks[j].fixed_offset, *blocks[j].fixed_offset + blocks[j].size});
        }
      }
      std::sort(members.begin(), members.end());
    }
    if (local[i] != kNotFree) {
      out.section_begin[local[i]] = first_section[i];
      out.section_end[local[i]] = static_cast<uint32_t>(out.members.size());
    }
    const uint32_t last = live.back();
    live[live_position[i]] = last;
    live_position[last] = live_position[i];
    live.pop_back();
  }
  // Conflicts: with blocks sorted by begin, the blocks after b that begin
  // before b ends are exactly the later-beginning ones live alongside it.
  out.conflicts.assign(n, {});
  out.obstacles.assign(n, {});
  std::vector<uint32_t> by_begin(n);
  std::iota(by_begin.begin(), by_begin.end(), 0u);
  auto span = [&](uint32_t b) -> const Lifespan& { return blocks[out.free[b]].lifespan; };
  std::stable_sort(by_begin.begin(), by_begin.end(),
                   [&](uint32_t x, uint32_t y) { return span(x).begin < span(y).begin; });
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n && span(by_begin[j]).begin < span(by_begin[i]).end; ++j) {
      out.conflicts[by_begin[i]].push_back(by_begin[j]);
      out.conflicts[by_begin[j]].push_back(by_begin[i]);
    }
  }
  for (const Block& other : blocks) {
    if (!other.fixed_offset || !Occupies(other)) continue;
    for (uint32_t b = 0; b < n; ++b) {
      if (LifespansOverlap(span(b), other.lifespan)) {
        out.obstacles[b].push_back({*other.fixed_offset, *other.fixed_offset + other.size});
      }
    }
  }
  for (std::vector<FixedSpan>& spans : out.obstacles) {
    std::sort(spans.begin(), spans.end(),
              [](const FixedSpan& x, const FixedSpan& y) { return x.begin < y.begin; });
  }
  return out;
}

}  // namespace pteshare
