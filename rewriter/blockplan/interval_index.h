// PlacedBlockIndex: which already-placed blocks are live during a lifespan?
// The greedy placer asks this once per block, so it must not scan every placed
// block: over n blocks it answers in O(log n + k) for k hits, which keeps a
// greedy pass at O((n + overlaps) log n).
#pragma once

#include <cstdint>
#include <vector>

#include "rewriter/blockplan/problem.h"

namespace pteshare {

/// A static index over a fixed set of lifespans (given up front), into which
/// blocks are inserted as they are placed. Blocks are sorted by begin; a
/// segment tree over that order keeps the latest end among the placed blocks
/// of each range, so a query visits only ranges holding an overlapping block.
class PlacedBlockIndex {
 public:
  explicit PlacedBlockIndex(const std::vector<Lifespan>& lifespans);

  /// Marks block `block` (an index into the constructor's lifespans) placed.
  void Insert(uint32_t block);
  /// Forgets every placed block (keeps the sorted order).
  void Clear();
  /// Appends to `out` every placed block whose lifespan overlaps `span`
  /// (half-open), in no particular order.
  void FindOverlapping(const Lifespan& span, std::vector<uint32_t>* out) const;
  /// Appends to `out` every placed block that begins after `span` begins
  /// and ends before it ends (strictly inside it), in no particular order.
  void FindInside(const Lifespan& span, std::vector<uint32_t>* out) const;

 private:
  void Collect(size_t node, size_t node_lo, size_t node_hi, size_t prefix, TimeValue after,
               std::vector<uint32_t>* out) const;
  void CollectInside(size_t node, size_t node_lo, size_t node_hi, size_t lo, size_t hi,
                     TimeValue before, std::vector<uint32_t>* out) const;

  std::vector<TimeValue> sorted_begins_;  // begins in ascending order
  std::vector<uint32_t> by_begin_;        // block at each sorted position
  std::vector<uint32_t> position_;        // sorted position of each block
  std::vector<TimeValue> ends_;           // end of each block
  size_t leaves_ = 1;                     // power of two >= block count
  /// |max_end_[node]| is the largest end among placed blocks under `node`
  /// (kNone when none is placed); node 1 is the root, leaves start at leaves_.
  std::vector<TimeValue> max_end_;
  /// |min_end_[node]|: the smallest end among them (kNoneMin when none).
  std::vector<TimeValue> min_end_;
};

}  // namespace pteshare
