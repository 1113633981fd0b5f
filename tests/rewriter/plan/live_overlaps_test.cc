// FindLiveOverlaps and PeakLiveBytes (live_overlaps.h) on rects in time and
// bytes: the edges that decide what overlaps (inclusive instructions,
// half-open bytes, empty rects), and both sweeps against a brute force over
// every pair and every instant on random rects. Lifetimes and the verifier
// use them on programs (lifetimes_test.cc, plan_verifier_test.cc).
#include "rewriter/plan/live_overlaps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace pteshare {
namespace {

using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

// Every pair sharing an instruction and a byte, by looking at all of them.
Pairs BruteForcePairs(const std::vector<LiveRect>& rects) {
  Pairs pairs;
  for (uint32_t i = 0; i < rects.size(); ++i) {
    for (uint32_t j = i + 1; j < rects.size(); ++j) {
      const LiveRect &a = rects[i], &b = rects[j];
      const bool time = a.first <= b.last && b.first <= a.last;
      const bool bytes = std::max(a.offset, b.offset) < std::min(a.end, b.end);
      if (time && bytes) pairs.emplace_back(i, j);
    }
  }
  return pairs;
}

// The union of live byte ranges, byte by byte, at every instant.
uint64_t BruteForcePeak(const std::vector<LiveRect>& rects, int64_t instants, uint64_t bytes) {
  uint64_t peak = 0;
  for (int64_t t = 0; t < instants; ++t) {
    std::vector<bool> covered(bytes, false);
    for (const LiveRect& r : rects) {
      if (r.first > t || r.last < t) continue;
      for (uint64_t b = r.offset; b < r.end; ++b) covered[b] = true;
    }
    peak = std::max<uint64_t>(peak, std::count(covered.begin(), covered.end(), true));
  }
  return peak;
}

std::vector<LiveRect> RandomRects(uint32_t seed, size_t count, int64_t instants, uint64_t bytes) {
  std::mt19937 random(seed);
  std::vector<LiveRect> rects;
  for (size_t i = 0; i < count; ++i) {
    const int64_t first = static_cast<int64_t>(random() % instants);
    const int64_t last = first + static_cast<int64_t>(random() % (instants - first));
    const uint64_t offset = random() % bytes;
    // Some rects are empty (offset == end): they share nothing.
    const uint64_t end = std::min<uint64_t>(bytes, offset + random() % 48);
    rects.push_back({first, last, offset, end});
  }
  return rects;
}

TEST(LiveOverlaps, TensorsLiveAtOneInstructionOverlap) {
  const std::vector<LiveRect> rects = {
      {0, 3, 0, 64},    // 0
      {3, 5, 32, 96},   // 1: shares instruction 3 (inclusive) and [32, 64) with 0
      {4, 9, 0, 32},    // 2: starts after 0 ends: the same bytes, no overlap
      {0, 9, 96, 128},  // 3: starts where 1 ends in bytes: no overlap
      {5, 5, 40, 41},   // 4: one byte of 1, at 1's last instruction
  };
  EXPECT_EQ(FindLiveOverlaps(rects), (Pairs{{0, 1}, {1, 4}}));
}

TEST(LiveOverlaps, EmptyRectsShareNothing) {
  const std::vector<LiveRect> rects = {{0, 9, 0, 64}, {0, 9, 16, 16}, {0, 9, 64, 64}};
  EXPECT_TRUE(FindLiveOverlaps(rects).empty());
  EXPECT_EQ(PeakLiveBytes(rects), 64u);
  EXPECT_EQ(PeakLiveBytes({}), 0u);
}

TEST(LiveOverlaps, PairsAreEveryOverlapSortedSmallerIndexFirst) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    const std::vector<LiveRect> rects = RandomRects(seed, 200, 40, 512);
    const Pairs found = FindLiveOverlaps(rects);
    EXPECT_TRUE(std::is_sorted(found.begin(), found.end()));
    EXPECT_EQ(found, BruteForcePairs(rects));
  }
}

TEST(LiveOverlaps, PeakCountsBytesTwoLiveRectsShareOnce) {
  // At instruction 1: [0, 64) and [32, 96) make 96 bytes, not 128; at 2
  // only the second and [200, 300): 164. Never live together: the larger.
  EXPECT_EQ(PeakLiveBytes({{0, 1, 0, 64}, {1, 2, 32, 96}, {2, 2, 200, 300}}), 164u);
  EXPECT_EQ(PeakLiveBytes({{0, 1, 0, 64}, {2, 3, 0, 100}}), 100u);
  // Ending at instruction t and starting at t + 1 are never live together.
  EXPECT_EQ(PeakLiveBytes({{0, 1, 0, 64}, {2, 3, 64, 128}}), 64u);
}

TEST(LiveOverlaps, PeakIsTheLargestUnionAtAnyInstant) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    const std::vector<LiveRect> rects = RandomRects(seed, 120, 30, 400);
    EXPECT_EQ(PeakLiveBytes(rects), BruteForcePeak(rects, 30, 400));
  }
}

}  // namespace
}  // namespace pteshare
