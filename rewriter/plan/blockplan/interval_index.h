// PlacedBlockIndex: which already-placed blocks lie strictly inside a
// lifespan? The greedy placer asks this for long blocks (the long-lived ones
// live with a query that do not cover its first or last instant,
// long_lived.h), so it must not scan every placed block: over n blocks it
// answers in O(log n + k) for k hits. (Short blocks: short_lived.h.)
#pragma once

#include <cstdint>
#include <vector>

#include "rewriter/plan/blockplan/problem.h"

namespace pteshare {

/// A static index over a fixed set of lifespans (given up front), into which
/// blocks are inserted as they are placed. Blocks are sorted by begin; a
/// segment tree over that order keeps the earliest end among the placed
/// blocks of each range, so a query visits only ranges holding a hit.
class PlacedBlockIndex {
 public:
  explicit PlacedBlockIndex(const std::vector<Lifespan>& lifespans);

  /// Marks block `block` (an index into the constructor's lifespans) placed.
  void Insert(uint32_t block);
  /// Forgets every placed block (keeps the sorted order).
  void Clear();
  /// Appends to `out` every placed block that begins after `span` begins
  /// and ends before it ends (strictly inside it), in no particular order.
  void FindInside(const Lifespan& span, std::vector<uint32_t>* out) const;

 private:
  void CollectInside(size_t node, size_t node_lo, size_t node_hi, size_t lo, size_t hi,
                     TimeValue before, std::vector<uint32_t>* out) const;

  std::vector<TimeValue> sorted_begins_;  // begins in ascending order
  std::vector<uint32_t> by_begin_;        // block at each sorted position
  std::vector<uint32_t> position_;        // sorted position of each block
  std::vector<TimeValue> ends_;           // end of each block
  size_t leaves_ = 1;                     // power of two >= block count
  /// |min_end_[node]| is the smallest end among placed blocks under `node`
  /// (kNoneMin when none is placed); node 1 is the root, leaves start at
  /// leaves_.
  std::vector<TimeValue> min_end_;
};

}  // namespace pteshare
