#include "rewriter/plan/blockplan/long_lived.h"

#include <algorithm>

namespace pteshare {

LongLivedOccupancy::LongLivedOccupancy(const std::vector<Lifespan>& lifespans) {
  for (const Lifespan& span : lifespans) {
    if (span.begin >= span.end) continue;
    points_.push_back(span.begin);
    points_.push_back(span.end);
  }
  std::sort(points_.begin(), points_.end());
  points_.erase(std::unique(points_.begin(), points_.end()), points_.end());
  while (leaves_ + 1 < points_.size()) leaves_ *= 2;
  ranges_.resize(2 * leaves_);
}

void LongLivedOccupancy::Clear() {
  for (size_t node : touched_) ranges_[node].clear();
  touched_.clear();
}

size_t LongLivedOccupancy::Leaf(TimeValue t) const {
  return static_cast<size_t>(std::lower_bound(points_.begin(), points_.end(), t) - points_.begin());
}

void LongLivedOccupancy::Insert(const Lifespan& span, Offset begin, Offset end) {
  for (size_t lo = Leaf(span.begin) + leaves_, hi = Leaf(span.end) + leaves_; lo < hi;
       lo /= 2, hi /= 2) {
    for (size_t node : {lo & 1 ? lo++ : 0, hi & 1 ? --hi : 0}) {
      if (node == 0) continue;
      std::map<Offset, Offset>& ranges = ranges_[node];
      if (ranges.empty()) touched_.push_back(node);
      // Merge with every range it overlaps or touches.
      Offset merged_begin = begin;
      Offset merged_end = end;
      auto it = ranges.upper_bound(begin);
      if (it != ranges.begin() && std::prev(it)->second >= begin) --it;
      while (it != ranges.end() && it->first <= merged_end) {
        merged_begin = std::min(merged_begin, it->first);
        merged_end = std::max(merged_end, it->second);
        it = ranges.erase(it);
      }
      ranges.emplace(merged_begin, merged_end);
    }
  }
}

}  // namespace pteshare
