#include "rewriter/plan/blockplan/validator.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pteshare {
namespace {

std::string Name(const BlockProblem& problem, size_t i) {
  const std::string& id = problem.blocks[i].id;
  return "block " + (id.empty() ? "#" + std::to_string(i) : "'" + id + "'");
}

bool Occupies(const Block& block) {
  return block.size > 0 && block.lifespan.begin < block.lifespan.end;
}

/// Checks that no two blocks overlap in time and space with a sweep: the live
/// blocks, pairwise disjoint so far, ordered by offset; a block entering can
/// only overlap its neighbours there.
Status CheckNoOverlap(const BlockProblem& problem, const BlockSolution& solution) {
  const std::vector<Block>& blocks = problem.blocks;
  struct Event {
    TimeValue time;
    bool enters;  // leaves sort first at the same instant (half-open spans)
    uint32_t block;
  };
  std::vector<Event> events;
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    if (!Occupies(blocks[i])) continue;
    events.push_back({blocks[i].lifespan.begin, true, i});
    events.push_back({blocks[i].lifespan.end, false, i});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.enters != b.enters) return !a.enters;
    return a.block < b.block;
  });
  // (offset, block) of the live blocks.
  std::set<std::pair<Offset, uint32_t>> live;
  for (const Event& event : events) {
    const std::pair<Offset, uint32_t> key{solution.offsets[event.block], event.block};
    if (!event.enters) {
      live.erase(key);
      continue;
    }
    auto next = live.lower_bound(key);
    const Offset begin = key.first;
    const Offset end = begin + blocks[event.block].size;
    uint32_t other = event.block;
    if (next != live.end() && next->first < end) other = next->second;
    if (next != live.begin()) {
      auto previous = std::prev(next);
      if (previous->first + blocks[previous->second].size > begin) other = previous->second;
    }
    if (other != event.block) {
      const uint32_t a = std::min(other, event.block);
      const uint32_t b = std::max(other, event.block);
      return Error{Name(problem, a) + " at [" + std::to_string(solution.offsets[a]) + ", " +
                   std::to_string(solution.offsets[a] + blocks[a].size) + ") and " +
                   Name(problem, b) + " at [" + std::to_string(solution.offsets[b]) + ", " +
                   std::to_string(solution.offsets[b] + blocks[b].size) +
                   ") overlap while both are live"};
    }
    live.insert(key);
  }
  return Status::Ok();
}

}  // namespace

Status ValidateBlockSolution(const BlockProblem& problem, const BlockSolution& solution) {
  const std::vector<Block>& blocks = problem.blocks;
  if (solution.offsets.size() != blocks.size()) {
    return Error{"the solution places " + std::to_string(solution.offsets.size()) + " of " +
                 std::to_string(blocks.size()) + " blocks"};
  }
  Offset highest = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Offset offset = solution.offsets[i];
    const Block& block = blocks[i];
    if (block.fixed_offset && offset != *block.fixed_offset) {
      return Error{"fixed " + Name(problem, i) + " is at " + std::to_string(offset) +
                   " instead of " + std::to_string(*block.fixed_offset)};
    }
    if (!block.fixed_offset && problem.alignment != 0 && offset % problem.alignment != 0) {
      return Error{Name(problem, i) + " at " + std::to_string(offset) +
                   " is not a multiple of the alignment " + std::to_string(problem.alignment)};
    }
    if (block.size > 0) highest = std::max(highest, offset + block.size);
  }
  if (highest != solution.height) {
    return Error{"the solution's height is " + std::to_string(solution.height) +
                 " but its blocks reach " + std::to_string(highest)};
  }
  if (problem.capacity && solution.height > *problem.capacity) {
    return Error{"the arena of " + std::to_string(solution.height) +
                 " bytes is over the capacity " + std::to_string(*problem.capacity)};
  }
  return CheckNoOverlap(problem, solution);
}

}  // namespace pteshare
