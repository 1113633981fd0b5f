// CheckOverlapsKept (I3 without lifetimes) judges clusters instead of pairs
// when it can: on random plans it must find a violation exactly when some
// pair breaks I3, as the pairwise definition says (checked here the slow
// way, every pair against every other).
#include "rewriter/verify/overlaps_kept.h"

#include <gtest/gtest.h>

#include <random>

namespace pteshare {
namespace {

bool Overlap(const Placement& a, const Placement& b) {
  return a.memory_id == b.memory_id && BytesOverlap(a.offset, a.nbytes, b.offset, b.nbytes);
}

// I3 without lifetimes, pair by pair: an overlap keeps its arena and its
// relative offset, and nothing overlaps now that did not before (no slots
// here, so no pair is excused).
bool BreaksSomePair(const std::vector<TensorMove>& moves) {
  for (size_t i = 0; i < moves.size(); ++i) {
    for (size_t j = i + 1; j < moves.size(); ++j) {
      const TensorMove &a = moves[i], &b = moves[j];
      const bool was = Overlap(a.before, b.before);
      if (was && (a.after.memory_id != b.after.memory_id ||
                  a.after.offset - a.before.offset != b.after.offset - b.before.offset)) {
        return true;
      }
      if (!was && Overlap(a.after, b.after)) return true;
    }
  }
  return false;
}

TEST(OverlapsKept, FindsAViolationExactlyWhenSomePairBreaks) {
  std::mt19937_64 random(14);
  size_t kept = 0, broken = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    Plan plan;
    plan.strategy = Strategy::kRelocate;
    MethodPlan m;
    m.name = "forward";
    const size_t count = 2 + random() % 12;
    // A few shifts, one per tensor or one per cluster-ish band of offsets,
    // and now and then a second arena: most plans keep everything, some
    // break one pair.
    const uint64_t band = 64 << (random() % 4);
    const bool per_band = random() % 2 == 0;
    for (uint32_t v = 0; v < count; ++v) {
      TensorMove move;
      move.value_index = v;
      move.before = {1, 16 * (random() % 32), 16 * (1 + random() % 8)};
      const uint64_t shift_key = per_band ? move.before.offset / band : random() % 3;
      move.after = move.before;
      move.after.offset += 16 * ((shift_key * 7) % 5);
      if (random() % 40 == 0) move.after.memory_id = 2;
      m.moves.push_back(move);
    }
    // Alike moves stand for each other in the check: keep them distinct.
    std::sort(m.moves.begin(), m.moves.end(), [](const TensorMove& a, const TensorMove& b) {
      return std::tie(a.before.offset, a.before.nbytes) <
             std::tie(b.before.offset, b.before.nbytes);
    });
    m.moves.erase(
        std::unique(m.moves.begin(), m.moves.end(),
                    [](const TensorMove& a, const TensorMove& b) { return a.before == b.before; }),
        m.moves.end());
    const bool breaks = BreaksSomePair(m.moves);
    EXPECT_EQ(!CheckOverlapsKept(m, plan).empty(), breaks) << "trial " << trial;
    (breaks ? broken : kept) += 1;
  }
  // Both kinds of plan were tried, many times each.
  EXPECT_GT(kept, 300u);
  EXPECT_GT(broken, 300u);
}

}  // namespace
}  // namespace pteshare
