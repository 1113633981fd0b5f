// Which tensors overlap in bytes while they are live at the same time?
//
// Lifetimes asks it of the input placements (to find in-place aliases) and
// the plan verifier of the output placements (full I3). Both ask it of
// 10k-tensor methods whose placements reuse the same bytes hundreds of
// times over, so it must not look at every pair that shares bytes at some
// point: it sweeps time and keeps only the live tensors in an index over
// byte ranges, O((n + k) log n) for k reported pairs.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace pteshare {

/// A tensor in time and space: live over the instructions [first, last]
/// (inclusive), occupying the bytes [offset, end) of one arena.
struct LiveRect {
  int64_t first = 0;
  int64_t last = 0;
  uint64_t offset = 0;
  uint64_t end = 0;
};

/// Every pair (i, j), i < j, of `rects` that share an instruction and a
/// byte. Rects with no bytes (offset == end) share nothing. The caller puts
/// only rects of one arena in one call. Pairs come sorted.
std::vector<std::pair<uint32_t, uint32_t>> FindLiveOverlaps(const std::vector<LiveRect>& rects);

/// The largest number of bytes covered by the rects live at one time: at
/// each time, the size of the union of their byte ranges (bytes two rects
/// share count once). O(n log n).
uint64_t PeakLiveBytes(const std::vector<LiveRect>& rects);

}  // namespace pteshare
