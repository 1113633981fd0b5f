#include "rewriter/plan/blockplan/interval_index.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace pteshare {
namespace {
constexpr TimeValue kNoneMin = std::numeric_limits<TimeValue>::max();
}  // namespace

PlacedBlockIndex::PlacedBlockIndex(const std::vector<Lifespan>& lifespans) {
  const size_t n = lifespans.size();
  by_begin_.resize(n);
  std::iota(by_begin_.begin(), by_begin_.end(), 0u);
  std::stable_sort(by_begin_.begin(), by_begin_.end(),
                   [&](uint32_t a, uint32_t b) { return lifespans[a].begin < lifespans[b].begin; });
  sorted_begins_.resize(n);
  position_.resize(n);
  ends_.resize(n);
  for (size_t pos = 0; pos < n; ++pos) {
    sorted_begins_[pos] = lifespans[by_begin_[pos]].begin;
    position_[by_begin_[pos]] = static_cast<uint32_t>(pos);
  }
  for (size_t i = 0; i < n; ++i) ends_[i] = lifespans[i].end;
  while (leaves_ < n) leaves_ *= 2;
  min_end_.assign(2 * leaves_, kNoneMin);
}

void PlacedBlockIndex::Insert(uint32_t block) {
  size_t node = leaves_ + position_[block];
  min_end_[node] = ends_[block];
  for (node /= 2; node >= 1; node /= 2) {
    min_end_[node] = std::min(min_end_[2 * node], min_end_[2 * node + 1]);
  }
}

void PlacedBlockIndex::Clear() { std::fill(min_end_.begin(), min_end_.end(), kNoneMin); }

void PlacedBlockIndex::FindInside(const Lifespan& span, std::vector<uint32_t>* out) const {
  if (span.begin >= span.end) return;
  // Candidates begin in (span.begin, span.end): a range of the sorted
  // order. Among them, those ending before span.end are inside.
  const size_t lo = static_cast<size_t>(
      std::upper_bound(sorted_begins_.begin(), sorted_begins_.end(), span.begin) -
      sorted_begins_.begin());
  const size_t hi =
      static_cast<size_t>(std::lower_bound(sorted_begins_.begin(), sorted_begins_.end(), span.end) -
                          sorted_begins_.begin());
  if (lo >= hi) return;
  CollectInside(1, 0, leaves_, lo, hi, span.end, out);
}

void PlacedBlockIndex::CollectInside(size_t node, size_t node_lo, size_t node_hi, size_t lo,
                                     size_t hi, TimeValue before,
                                     std::vector<uint32_t>* out) const {
  if (node_hi <= lo || node_lo >= hi || min_end_[node] >= before) return;
  if (node >= leaves_) {
    out->push_back(by_begin_[node - leaves_]);
    return;
  }
  size_t mid = node_lo + (node_hi - node_lo) / 2;
  CollectInside(2 * node, node_lo, mid, lo, hi, before, out);
  CollectInside(2 * node + 1, mid, node_hi, lo, hi, before, out);
}

}  // namespace pteshare
