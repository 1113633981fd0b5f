// LongLivedOccupancy: the bytes taken by long-lived placed blocks, merged
// into disjoint ranges per node of a segment tree over time.
//
// The greedy placer needs, for each block it places, the byte ranges taken
// by the placed blocks live at the same time. Listing them one by one costs
// O(overlaps): quadratic for programs where a thousand KV caches live
// throughout and every short activation overlaps all of them. Here a block
// whose lifespan is at least `long_length` goes into the O(log T) canonical
// nodes covering its lifespan, each holding the union of its blocks' byte
// ranges (a stack of caches is one range). A long block live with a query
// either covers the query's first or last instant, and is then stored on the
// path from one of those two leaves to the root (2 log T nodes, usually a
// few ranges), or lies strictly inside the query, which only a longer query
// can have: the placer lists those one by one (PlacedBlockIndex::FindInside).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "rewriter/plan/blockplan/problem.h"

namespace pteshare {

class LongLivedOccupancy {
 public:
  /// Time is compressed to the begins and ends of `lifespans`; every span
  /// later inserted or queried must have its begin and end among them.
  explicit LongLivedOccupancy(const std::vector<Lifespan>& lifespans);

  /// Forgets every range (keeps the time compression).
  void Clear();
  /// Marks [begin, end) taken during `span` (non-empty).
  void Insert(const Lifespan& span, Offset begin, Offset end);
  /// Appends to `out` ranges whose union is every range inserted with a span
  /// that covers the first or the last instant of `span` (non-empty), and
  /// nothing inserted with a span that does not overlap `span`. Ranges may
  /// overlap.
  template <typename Interval>
  void AppendCovering(const Lifespan& span, std::vector<Interval>* out) const {
    const size_t first = Leaf(span.begin);
    const size_t last = Leaf(span.end) - 1;
    for (size_t a = first + leaves_, b = last + leaves_; a >= 1; a /= 2, b /= 2) {
      Append(a, out);
      if (b != a) Append(b, out);
    }
  }

 private:
  size_t Leaf(TimeValue t) const;
  template <typename Interval>
  void Append(size_t node, std::vector<Interval>* out) const {
    for (const auto& [begin, end] : ranges_[node]) out->push_back({begin, end});
  }

  std::vector<TimeValue> points_;  // sorted distinct begins and ends
  size_t leaves_ = 1;              // power of two >= points_.size() - 1
  /// |ranges_[node]| maps begin -> end of disjoint, non-touching byte ranges.
  std::vector<std::map<Offset, Offset>> ranges_;
  std::vector<size_t> touched_;  // nodes with ranges, for Clear
};

}  // namespace pteshare
