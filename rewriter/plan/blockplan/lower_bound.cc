#include "rewriter/plan/blockplan/lower_bound.h"

#include <algorithm>
#include <utility>

namespace pteshare {

Bytes BlockLowerBound(const std::vector<Block>& blocks) {
  // One event per lifespan end: (time, -size) and begin: (time, +size).
  // Sorting ends before begins at the same instant keeps the half-open
  // convention: a block ending at t and one beginning at t never add up.
  struct Event {
    TimeValue time;
    bool is_begin;
    Bytes size;
  };
  std::vector<Event> events;
  events.reserve(2 * blocks.size());
  Bytes highest_fixed_end = 0;
  Bytes largest = 0;
  for (const Block& block : blocks) {
    if (block.fixed_offset)
      highest_fixed_end = std::max(highest_fixed_end, ReachOf(block, *block.fixed_offset));
    largest = std::max(largest, block.size);  // never-live blocks need room too
    if (block.size == 0 || block.lifespan.begin >= block.lifespan.end) continue;
    events.push_back({block.lifespan.begin, true, block.size});
    events.push_back({block.lifespan.end, false, block.size});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.is_begin < b.is_begin;
  });
  Bytes live = 0;
  Bytes peak = 0;
  for (const Event& event : events) {
    if (event.is_begin) {
      live += event.size;
      peak = std::max(peak, live);
    } else {
      live -= event.size;
    }
  }
  return std::max({peak, highest_fixed_end, largest});
}

}  // namespace pteshare
