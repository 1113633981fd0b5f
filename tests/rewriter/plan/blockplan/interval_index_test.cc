// PlacedBlockIndex against a plain scan: for random lifespans placed in a
// random order, every query lists exactly the placed blocks strictly inside
// it.
#include "rewriter/plan/blockplan/interval_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace pteshare {
namespace {

std::vector<uint32_t> Sorted(std::vector<uint32_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(PlacedBlockIndex, ListsOnlyPlacedBlocksStrictlyInsideTheQuery) {
  PlacedBlockIndex index({{0, 4}, {4, 8}, {2, 6}, {7, 9}});
  std::vector<uint32_t> hits;
  index.FindInside({0, 9}, &hits);
  EXPECT_TRUE(hits.empty());  // nothing placed yet
  index.Insert(0);
  index.Insert(1);
  index.Insert(3);
  index.FindInside({0, 9}, &hits);  // strictly inside: begins after 0, ends before 9
  EXPECT_EQ(Sorted(hits), (std::vector<uint32_t>{1}));
  hits.clear();
  index.FindInside({3, 10}, &hits);
  EXPECT_EQ(Sorted(hits), (std::vector<uint32_t>{1, 3}));
  index.Clear();
  hits.clear();
  index.FindInside({0, 10}, &hits);
  EXPECT_TRUE(hits.empty());
}

TEST(PlacedBlockIndex, AgreesWithAScanOnRandomLifespans) {
  std::mt19937 random(5);
  for (int instance = 0; instance < 40; ++instance) {
    const size_t n = 1 + random() % 200;
    std::vector<Lifespan> spans;
    for (size_t i = 0; i < n; ++i) {
      TimeValue begin = random() % 100;
      spans.push_back({begin, begin + 1 + static_cast<TimeValue>(random() % 30)});
    }
    std::vector<uint32_t> order(n);
    for (uint32_t i = 0; i < n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), random);
    PlacedBlockIndex index(spans);
    std::vector<bool> placed(n, false);
    for (size_t k = 0; k < n; ++k) {
      index.Insert(order[k]);
      placed[order[k]] = true;
      TimeValue begin = random() % 110;
      const Lifespan query{begin, begin + 1 + static_cast<TimeValue>(random() % 40)};
      std::vector<uint32_t> inside, expected_inside;
      index.FindInside(query, &inside);
      for (uint32_t i = 0; i < n; ++i) {
        if (!placed[i]) continue;
        if (spans[i].begin > query.begin && spans[i].end < query.end) expected_inside.push_back(i);
      }
      ASSERT_EQ(Sorted(inside), expected_inside) << "instance " << instance;
    }
  }
}

}  // namespace
}  // namespace pteshare
