// VisitedObjects answers "first visit?" exactly per (offset, kind) pair:
// at aligned and odd offsets, for several kinds at one offset, and for
// more kinds than it numbers (the rest go to its set).
#include "rewriter/patch/visited_objects.h"

#include <gtest/gtest.h>

#include <array>

namespace pteshare {
namespace {

// Kinds are addresses: the elements of an array stand for 300 types.
std::array<char, 300> kinds{};

TEST(VisitedObjects, FirstVisitOnlyAtAlignedAndOddOffsets) {
  VisitedObjects visited(64);
  for (uint64_t at : {0, 4, 60, 64, 3, 13}) {
    EXPECT_TRUE(visited.Insert(at, &kinds[0])) << at;
    EXPECT_FALSE(visited.Insert(at, &kinds[0])) << at;
  }
  EXPECT_TRUE(visited.Insert(8, &kinds[0]));
}

TEST(VisitedObjects, KindsAtOneOffsetAreVisitedApart) {
  VisitedObjects visited(16);
  EXPECT_TRUE(visited.Insert(8, &kinds[1]));
  EXPECT_TRUE(visited.Insert(8, &kinds[2]));
  EXPECT_TRUE(visited.Insert(8, &kinds[3]));
  for (int k : {1, 2, 3}) EXPECT_FALSE(visited.Insert(8, &kinds[k])) << k;
  EXPECT_TRUE(visited.Insert(9, &kinds[2]));
  EXPECT_FALSE(visited.Insert(9, &kinds[2]));
}

TEST(VisitedObjects, MoreKindsThanNumbersStayExact) {
  VisitedObjects visited(4096);
  // Every kind at its own slot, then at slot 0 (the second kind there and
  // after), then all of them again: each pair is new once.
  for (size_t k = 0; k < kinds.size(); ++k) {
    EXPECT_TRUE(visited.Insert(4 * (k + 1), &kinds[k])) << k;
    EXPECT_TRUE(visited.Insert(0, &kinds[k])) << k;
  }
  for (size_t k = 0; k < kinds.size(); ++k) {
    EXPECT_FALSE(visited.Insert(4 * (k + 1), &kinds[k])) << k;
    EXPECT_FALSE(visited.Insert(0, &kinds[k])) << k;
    // Another kind at a slot one kind took first.
    EXPECT_TRUE(visited.Insert(4 * (k + 1), &kinds[(k + 1) % kinds.size()])) << k;
  }
}

}  // namespace
}  // namespace pteshare
