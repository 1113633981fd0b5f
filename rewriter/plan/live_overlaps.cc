#include "rewriter/plan/live_overlaps.h"

#include <algorithm>
#include <numeric>

namespace pteshare {
namespace {

// The live rects, indexed by their position in offset order: a segment
// tree keeps, per range of positions, the highest end among the live rects
// there (0 when none is live), so a query descends only into ranges holding
// a rect that reaches past the asked offset.
class LiveByOffset {
 public:
  explicit LiveByOffset(size_t count) {
    while (leaves_ < count) leaves_ *= 2;
    max_end_.assign(2 * leaves_, 0);
  }

  void Set(size_t position, uint64_t end) {
    size_t node = leaves_ + position;
    max_end_[node] = end;
    for (node /= 2; node >= 1; node /= 2) {
      max_end_[node] = std::max(max_end_[2 * node], max_end_[2 * node + 1]);
    }
  }

  /// Appends the positions below `prefix` whose end is past `offset`.
  void Find(size_t prefix, uint64_t offset, std::vector<size_t>* out) const {
    Collect(1, 0, leaves_, prefix, offset, out);
  }

 private:
  void Collect(size_t node, size_t lo, size_t hi, size_t prefix, uint64_t offset,
               std::vector<size_t>* out) const {
    if (lo >= prefix || max_end_[node] <= offset) return;
    if (hi - lo == 1) {
      out->push_back(lo);
      return;
    }
    const size_t mid = lo + (hi - lo) / 2;
    Collect(2 * node, lo, mid, prefix, offset, out);
    Collect(2 * node + 1, mid, hi, prefix, offset, out);
  }

  size_t leaves_ = 1;
  std::vector<uint64_t> max_end_;  // node 1 is the root; leaves start at leaves_
};

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> FindLiveOverlaps(const std::vector<LiveRect>& rects) {
  std::vector<uint32_t> by_offset, by_first, by_last;
  for (uint32_t i = 0; i < rects.size(); ++i) {
    if (rects[i].offset < rects[i].end) by_offset.push_back(i);
  }
  by_first = by_last = by_offset;
  std::stable_sort(by_offset.begin(), by_offset.end(),
                   [&](uint32_t a, uint32_t b) { return rects[a].offset < rects[b].offset; });
  std::stable_sort(by_first.begin(), by_first.end(),
                   [&](uint32_t a, uint32_t b) { return rects[a].first < rects[b].first; });
  std::stable_sort(by_last.begin(), by_last.end(),
                   [&](uint32_t a, uint32_t b) { return rects[a].last < rects[b].last; });
  std::vector<size_t> position(rects.size());
  std::vector<uint64_t> sorted_offsets;
  for (size_t p = 0; p < by_offset.size(); ++p) {
    position[by_offset[p]] = p;
    sorted_offsets.push_back(rects[by_offset[p]].offset);
  }

  LiveByOffset live(by_offset.size());
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  std::vector<size_t> hits;
  size_t next_to_end = 0;
  for (uint32_t i : by_first) {
    const LiveRect& r = rects[i];
    // Everything that ended before r begins can no longer meet anything.
    while (next_to_end < by_last.size() && rects[by_last[next_to_end]].last < r.first) {
      live.Set(position[by_last[next_to_end++]], 0);
    }
    // Live rects started no later than r and end no earlier: they share
    // r.first. Of those, the ones starting below r.end and ending past
    // r.offset share bytes.
    const size_t prefix =
        static_cast<size_t>(std::lower_bound(sorted_offsets.begin(), sorted_offsets.end(), r.end) -
                            sorted_offsets.begin());
    hits.clear();
    live.Find(prefix, r.offset, &hits);
    for (size_t p : hits) {
      const uint32_t j = by_offset[p];
      pairs.emplace_back(std::min(i, j), std::max(i, j));
    }
    if (r.last >= r.first) live.Set(position[i], r.end);
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

namespace {

// Cover counts over elementary byte intervals [edges[i], edges[i + 1]): a
// node's covered length is its whole width where some rect covers all of
// it, else the sum of its children's (the classic union-length tree).
class CoveredBytes {
 public:
  explicit CoveredBytes(std::vector<uint64_t> edges)
      : edges_(std::move(edges)), cover_(4 * edges_.size() + 4, 0), length_(cover_.size(), 0) {}

  void Add(uint64_t offset, uint64_t end, int delta) {
    const size_t lo = Index(offset), hi = Index(end);
    if (lo < hi) Update(1, 0, edges_.size() - 1, lo, hi, delta);
  }
  uint64_t covered() const { return length_[1]; }

 private:
  size_t Index(uint64_t x) const {
    return static_cast<size_t>(std::lower_bound(edges_.begin(), edges_.end(), x) - edges_.begin());
  }
  // Node covers elementary intervals [lo, hi) (edge indices).
  void Update(size_t node, size_t lo, size_t hi, size_t from, size_t to, int delta) {
    if (to <= lo || hi <= from) return;
    if (from <= lo && hi <= to) {
      cover_[node] += delta;
    } else {
      const size_t mid = lo + (hi - lo) / 2;
      Update(2 * node, lo, mid, from, to, delta);
      Update(2 * node + 1, mid, hi, from, to, delta);
    }
    if (cover_[node] > 0) {
      length_[node] = edges_[hi] - edges_[lo];
    } else if (hi - lo == 1) {
      length_[node] = 0;
    } else {
      length_[node] = length_[2 * node] + length_[2 * node + 1];
    }
  }

  std::vector<uint64_t> edges_;
  std::vector<int64_t> cover_;
  std::vector<uint64_t> length_;
};

}  // namespace

uint64_t PeakLiveBytes(const std::vector<LiveRect>& rects) {
  std::vector<uint64_t> edges;
  struct Event {
    int64_t time;
    int delta;  // -1 (ends before `time`) sorts before +1 (starts at `time`)
    uint32_t rect;
  };
  std::vector<Event> events;
  for (uint32_t i = 0; i < rects.size(); ++i) {
    const LiveRect& r = rects[i];
    if (r.offset >= r.end || r.last < r.first) continue;
    edges.push_back(r.offset);
    edges.push_back(r.end);
    events.push_back({r.first, +1, i});
    events.push_back({r.last + 1, -1, i});
  }
  if (events.empty()) return 0;
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : a.delta < b.delta;
  });
  CoveredBytes covered(std::move(edges));
  uint64_t peak = 0;
  for (size_t i = 0; i < events.size();) {
    const int64_t time = events[i].time;
    for (; i < events.size() && events[i].time == time; ++i) {
      const LiveRect& r = rects[events[i].rect];
      covered.Add(r.offset, r.end, events[i].delta);
    }
    peak = std::max(peak, covered.covered());
  }
  return peak;
}

}  // namespace pteshare
