#include "rewriter/verify/overlaps_kept.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "rewriter/base/grouped.h"

namespace pteshare {

std::string ByteRangeText(uint64_t offset, uint64_t nbytes) {
  return "[" + Grouped(offset) + ", " + Grouped(offset + nbytes) + ")";
}

namespace {

// Placements in (arena, offset, size) order, for sets of them.
struct PlacementOrder {
  bool operator()(const std::pair<Placement, uint64_t>& a,
                  const std::pair<Placement, uint64_t>& b) const {
    return std::tie(a.first.memory_id, a.first.offset, a.first.nbytes, a.second) <
           std::tie(b.first.memory_id, b.first.offset, b.first.nbytes, b.second);
  }
};

// Both after-placements inside one shared buffer's slot.
bool InsideOneSlot(const Plan& plan, const Placement& a, const Placement& b) {
  const FrontRegion* f = plan.front(a.memory_id);
  if (f == nullptr) return false;
  for (const FrontSlot& s : f->slots) {
    auto inside = [&](const Placement& p) {
      return p.offset >= s.offset && p.end() <= s.offset + s.nbytes;
    };
    if (inside(a) && inside(b)) return true;
  }
  return false;
}

// Calls visit(i, j) for every pair of `moves` whose ranges (picked by
// `range`) overlap within one arena: sort by start, sweep an active set.
template <typename Range, typename Visit>
void ForOverlappingPairs(const std::vector<const TensorMove*>& moves, Range range, Visit visit) {
  std::vector<const TensorMove*> order = moves;
  std::sort(order.begin(), order.end(), [&](const TensorMove* a, const TensorMove* b) {
    const Placement &pa = range(*a), &pb = range(*b);
    return pa.memory_id != pb.memory_id ? pa.memory_id < pb.memory_id : pa.offset < pb.offset;
  });
  std::vector<const TensorMove*> active;
  for (const TensorMove* move : order) {
    const Placement& p = range(*move);
    std::erase_if(active, [&](const TensorMove* a) {
      return range(*a).memory_id != p.memory_id || range(*a).end() <= p.offset;
    });
    for (const TensorMove* a : active) visit(*a, *move);
    active.push_back(move);
  }
}

// Per move, the cluster its range (picked by `range`) is in: the moves
// chained by the pairs ForOverlappingPairs visits. Sorted by (arena,
// offset), a move starting below the furthest end so far in its arena
// overlaps the move that reaches there. Numbered 0.. in that order.
template <typename Range>
std::vector<uint32_t> Clusters(const std::vector<const TensorMove*>& moves, Range range) {
  std::vector<uint32_t> order(moves.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Placement &pa = range(*moves[a]), &pb = range(*moves[b]);
    return pa.memory_id != pb.memory_id ? pa.memory_id < pb.memory_id : pa.offset < pb.offset;
  });
  std::vector<uint32_t> cluster(moves.size());
  uint32_t current = 0;
  uint64_t furthest = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const Placement& p = range(*moves[order[k]]);
    const bool joins =
        k > 0 && p.memory_id == range(*moves[order[k - 1]]).memory_id && p.offset < furthest;
    if (!joins) {
      current = static_cast<uint32_t>(k);
      furthest = 0;
    }
    furthest = std::max(furthest, p.end());
    cluster[order[k]] = current;
  }
  return cluster;
}

// True when neither sweep of CheckOverlapsKept can find a violation: every
// input cluster goes to one arena with one shift (so each of its overlaps
// keeps its relative offset), and every output cluster comes from one
// input cluster (so two tensors overlap now only if they did before: the
// same translation of the same bytes). False says only "sweep the pairs".
bool KeptWithoutPairs(const std::vector<const TensorMove*>& sized) {
  // Plain integers, so equal shifts mod 2^64 are equal shifts; and no size
  // change (I5 reports it), so no range is empty.
  constexpr uint64_t kLimit = uint64_t{1} << 62;
  for (const TensorMove* move : sized) {
    if (move->after.nbytes != move->before.nbytes || move->before.end() >= kLimit ||
        move->after.end() >= kLimit) {
      return false;
    }
  }
  auto before = [](const TensorMove& t) -> const Placement& { return t.before; };
  auto after = [](const TensorMove& t) -> const Placement& { return t.after; };
  const std::vector<uint32_t> input = Clusters(sized, before);
  std::vector<std::optional<std::pair<uint32_t, uint64_t>>> motion(sized.size());
  for (size_t i = 0; i < sized.size(); ++i) {
    const std::pair<uint32_t, uint64_t> here{sized[i]->after.memory_id,
                                             sized[i]->after.offset - sized[i]->before.offset};
    std::optional<std::pair<uint32_t, uint64_t>>& of_cluster = motion[input[i]];
    if (!of_cluster) of_cluster = here;
    if (*of_cluster != here) return false;
  }
  const std::vector<uint32_t> output = Clusters(sized, after);
  std::vector<std::optional<uint32_t>> source(sized.size());
  for (size_t i = 0; i < sized.size(); ++i) {
    std::optional<uint32_t>& of_cluster = source[output[i]];
    if (!of_cluster) of_cluster = input[i];
    if (*of_cluster != input[i]) return false;
  }
  return true;
}

}  // namespace

std::vector<PlanViolation> CheckOverlapsKept(const MethodPlan& m, const Plan& plan) {
  std::vector<PlanViolation> violations;
  auto fail = [&](std::string message) {
    violations.push_back({Invariant::kOverlapsKept, std::move(message)});
  };
  // Moves alike before and after agree with each other and with any third
  // alike: one of them stands for all (a hostile file may put tens of
  // thousands on one placement, and pairs would grow as their square).
  std::vector<const TensorMove*> sized;
  std::set<std::pair<Placement, uint64_t>, PlacementOrder> seen;
  for (const TensorMove& move : m.moves) {
    if (move.before.nbytes > 0 && seen.insert({move.before, move.after.offset}).second) {
      sized.push_back(&move);
    }
  }
  if (KeptWithoutPairs(sized)) return violations;
  auto before = [](const TensorMove& t) -> const Placement& { return t.before; };
  auto after = [](const TensorMove& t) -> const Placement& { return t.after; };
  ForOverlappingPairs(sized, before, [&](const TensorMove& a, const TensorMove& b) {
    int64_t was = static_cast<int64_t>(a.before.offset - b.before.offset);
    int64_t now = static_cast<int64_t>(a.after.offset - b.after.offset);
    if (a.after.memory_id != b.after.memory_id) {
      fail("method " + m.name + ": values " + std::to_string(a.value_index) + " and " +
           std::to_string(b.value_index) + " overlapped and now sit in arenas " +
           std::to_string(a.after.memory_id) + " and " + std::to_string(b.after.memory_id));
    } else if (was != now) {
      fail("method " + m.name + ": values " + std::to_string(a.value_index) + " and " +
           std::to_string(b.value_index) + " overlapped at relative offset " + std::to_string(was) +
           " and now sit at " + std::to_string(now));
    }
  });
  ForOverlappingPairs(sized, after, [&](const TensorMove& a, const TensorMove& b) {
    bool overlapped =
        a.before.memory_id == b.before.memory_id &&
        BytesOverlap(a.before.offset, a.before.nbytes, b.before.offset, b.before.nbytes);
    if (!overlapped && !InsideOneSlot(plan, a.after, b.after)) {
      fail("method " + m.name + ": values " + std::to_string(a.value_index) + " " +
           ByteRangeText(a.after.offset, a.after.nbytes) + " and " + std::to_string(b.value_index) +
           " " + ByteRangeText(b.after.offset, b.after.nbytes) + " now overlap in arena " +
           std::to_string(a.after.memory_id) + "; they did not in the input");
    }
  });
  return violations;
}

}  // namespace pteshare
