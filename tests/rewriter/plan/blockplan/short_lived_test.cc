// ShortLivedOccupancy against a plain scan: for random lifespans (of many
// length classes, some empty) placed in a random order, every query lists
// exactly the byte ranges of the placed blocks live with it.
#include "rewriter/plan/blockplan/short_lived.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace pteshare {
namespace {

struct Range {
  Offset begin;
  Offset end;
  bool operator<(const Range& other) const {
    return std::pair(begin, end) < std::pair(other.begin, other.end);
  }
  bool operator==(const Range& other) const = default;
};

std::vector<Range> Sorted(std::vector<Range> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(ShortLivedOccupancy, ListsOnlyPlacedBlocksLiveWithTheQuery) {
  ShortLivedOccupancy index({{0, 4}, {4, 8}, {2, 6}, {7, 9}, {5, 5}});
  std::vector<Range> hits;
  index.AppendOverlapping({3, 5}, &hits);
  EXPECT_TRUE(hits.empty());  // nothing placed yet
  index.Insert(0, 0, 10);
  index.Insert(1, 10, 20);
  index.Insert(3, 30, 40);
  index.AppendOverlapping({3, 5}, &hits);
  EXPECT_EQ(Sorted(hits), (std::vector<Range>{{0, 10}, {10, 20}}));
  hits.clear();
  index.AppendOverlapping({4, 7}, &hits);  // half-open: 0 ends at 4, 3 begins at 7
  EXPECT_EQ(Sorted(hits), (std::vector<Range>{{10, 20}}));
  hits.clear();
  index.AppendOverlapping({6, 6}, &hits);  // an empty query overlaps nothing
  EXPECT_TRUE(hits.empty());
  index.Clear();
  index.AppendOverlapping({0, 9}, &hits);
  EXPECT_TRUE(hits.empty());
}

TEST(ShortLivedOccupancy, AgreesWithAScanOnRandomLifespans) {
  std::mt19937 random(5);
  for (int instance = 0; instance < 60; ++instance) {
    const size_t n = 1 + random() % 300;
    std::vector<Lifespan> spans;
    for (size_t i = 0; i < n; ++i) {
      const TimeValue begin = static_cast<TimeValue>(random() % 400) - 100;
      // Lengths from 0 to 255, skewed short, so several classes are mixed.
      const TimeValue length = static_cast<TimeValue>(random() % (1u << (random() % 9)));
      spans.push_back({begin, begin + length});
    }
    ShortLivedOccupancy index(spans);
    std::vector<uint32_t> order(n);
    for (uint32_t i = 0; i < n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), random);
    std::vector<bool> placed(n, false);
    for (size_t k = 0; k < n; ++k) {
      const uint32_t block = order[k];
      if (spans[block].begin < spans[block].end) {
        index.Insert(block, 1000 * block, 1000 * block + 1 + block);
        placed[block] = true;
      }
      const TimeValue begin = static_cast<TimeValue>(random() % 450) - 120;
      const Lifespan query{begin, begin + 1 + static_cast<TimeValue>(random() % 300)};
      std::vector<Range> found, expected;
      index.AppendOverlapping(query, &found);
      for (uint32_t i = 0; i < n; ++i) {
        if (placed[i] && LifespansOverlap(spans[i], query)) {
          expected.push_back({1000 * i, 1000 * i + 1 + i});
        }
      }
      ASSERT_EQ(Sorted(found), Sorted(expected)) << "instance " << instance << " query " << k;
    }
  }
}

TEST(ShortLivedOccupancy, LifespansNearTheEndsOfTimeDoNotWrap) {
  constexpr TimeValue kMin = std::numeric_limits<TimeValue>::min();
  constexpr TimeValue kMax = std::numeric_limits<TimeValue>::max();
  ShortLivedOccupancy index({{kMin, kMin + 10}, {kMax - 10, kMax}, {kMin, kMax}});
  index.Insert(0, 0, 1);
  index.Insert(1, 1, 2);
  index.Insert(2, 2, 3);
  std::vector<Range> hits;
  index.AppendOverlapping({kMin, kMin + 1}, &hits);
  EXPECT_EQ(Sorted(hits), (std::vector<Range>{{0, 1}, {2, 3}}));
  hits.clear();
  index.AppendOverlapping({kMax - 1, kMax}, &hits);
  EXPECT_EQ(Sorted(hits), (std::vector<Range>{{1, 2}, {2, 3}}));
}

}  // namespace
}  // namespace pteshare
