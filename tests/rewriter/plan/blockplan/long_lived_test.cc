// LongLivedOccupancy against a plain list: for a query shorter than every
// inserted span, the ranges it returns cover exactly the bytes of the
// inserted spans live with the query (union compared byte range by range).
#include "rewriter/plan/blockplan/long_lived.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace pteshare {
namespace {

struct Range {
  Offset begin;
  Offset end;
};

/// Sorted, merged union of `ranges` (touching ones merged).
std::vector<std::pair<Offset, Offset>> Union(std::vector<Range> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  std::vector<std::pair<Offset, Offset>> out;
  for (const Range& r : ranges) {
    if (!out.empty() && r.begin <= out.back().second) {
      out.back().second = std::max(out.back().second, r.end);
    } else {
      out.push_back({r.begin, r.end});
    }
  }
  return out;
}

TEST(LongLivedOccupancy, ShortQueriesSeeTheUnionOfEveryLongSpanLiveWithThem) {
  std::mt19937 random(3);
  for (int instance = 0; instance < 30; ++instance) {
    std::vector<Lifespan> spans;
    std::vector<Range> ranges;
    for (int i = 0; i < 40; ++i) {  // long: 50 to 200 instants
      TimeValue begin = random() % 300;
      spans.push_back({begin, begin + 50 + static_cast<TimeValue>(random() % 150)});
      Offset offset = random() % 2000;
      ranges.push_back({offset, offset + 1 + random() % 300});
    }
    std::vector<Lifespan> queries;
    for (int i = 0; i < 60; ++i) {  // short: 1 to 49 instants
      TimeValue begin = random() % 500;
      queries.push_back({begin, begin + 1 + static_cast<TimeValue>(random() % 49)});
    }
    std::vector<Lifespan> all = spans;
    all.insert(all.end(), queries.begin(), queries.end());
    LongLivedOccupancy occupancy(all);
    for (int round = 0; round < 2; ++round) {  // and again after Clear
      occupancy.Clear();
      for (size_t i = 0; i < spans.size(); ++i) {
        occupancy.Insert(spans[i], ranges[i].begin, ranges[i].end);
      }
      for (const Lifespan& query : queries) {
        std::vector<Range> expected;
        for (size_t i = 0; i < spans.size(); ++i) {
          if (LifespansOverlap(spans[i], query)) expected.push_back(ranges[i]);
        }
        std::vector<Range> got;
        occupancy.AppendCovering(query, &got);
        EXPECT_EQ(Union(got), Union(expected))
            << "instance " << instance << " query [" << query.begin << ", " << query.end << ")";
      }
    }
  }
}

}  // namespace
}  // namespace pteshare
