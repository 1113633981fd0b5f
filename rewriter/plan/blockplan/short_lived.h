// ShortLivedOccupancy: the byte ranges of placed short-lived blocks live
// during a lifespan, found by scanning arrays in begin order.
//
// The greedy placer asks this once per block it places. A segment tree over
// begin order (interval_index.h) answers in O(log n) per hit, and on long
// chains of short blocks (every block live with ~50 others) those descents
// were most of a greedy pass. Here the blocks are split into length classes
// (class k holds lengths in [2^k, 2^(k+1))), each an array sorted by begin.
// A block of class k that overlaps [b, e) begins in (b - longest_k, e), a
// contiguous run of the array; scanning it also meets blocks of the class
// that ended by b, but all of those are live at the instant b - 2^k, so a
// query costs O(classes x log n + blocks live with it or at one instant per
// class): a pass is O(n log n + overlaps), scanned in order, in cache.
#pragma once

#include <cstdint>
#include <vector>

#include "rewriter/plan/blockplan/problem.h"

namespace pteshare {

class ShortLivedOccupancy {
 public:
  /// Indexes every non-empty lifespan of `lifespans` (by block index);
  /// only those may be inserted. (The greedy placer leaves long-lived
  /// blocks out, with empty spans: each would be scanned by every query.)
  explicit ShortLivedOccupancy(const std::vector<Lifespan>& lifespans);

  /// Forgets every placed block (keeps the arrays).
  void Clear();
  /// Marks `block` placed at bytes [begin, end) (begin < end).
  void Insert(uint32_t block, Offset begin, Offset end);
  /// Appends to `out` the byte range of every placed block whose lifespan
  /// overlaps `span` (half-open), in no particular order.
  template <typename Interval>
  void AppendOverlapping(const Lifespan& span, std::vector<Interval>* out) const {
    if (span.begin >= span.end) return;
    for (const LengthClass& c : classes_) {
      for (size_t k = FirstThatMayOverlap(c, span.begin); k < c.entries.size(); ++k) {
        const Entry& entry = c.entries[k];
        if (entry.begin >= span.end) break;
        if (entry.bytes_end > entry.bytes_begin && entry.end > span.begin) {
          out->push_back({entry.bytes_begin, entry.bytes_end});
        }
      }
    }
  }

 private:
  struct Entry {
    TimeValue begin;
    TimeValue end;
    /// The placed bytes; empty (equal) while the block is not placed.
    Offset bytes_begin;
    Offset bytes_end;
  };
  struct LengthClass {
    std::vector<Entry> entries;  // by begin
    uint64_t longest = 0;        // the longest lifespan in the class
    /// The begin of every kSampleEvery-th entry: the search for where a
    /// scan starts runs in this small array first (it stays in cache; a
    /// search over `entries` missed it at every probe).
    std::vector<TimeValue> sampled_begins;
  };
  static constexpr size_t kSampleEvery = 16;
  /// The first entry of `c` that can still be live at `instant`.
  static size_t FirstThatMayOverlap(const LengthClass& c, TimeValue instant);

  std::vector<LengthClass> classes_;  // only non-empty classes
  struct Position {
    uint32_t length_class;
    uint32_t entry;
  };
  std::vector<Position> position_;  // of each block
};

}  // namespace pteshare
