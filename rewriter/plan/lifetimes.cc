#include "rewriter/plan/lifetimes.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

#include "rewriter/plan/live_overlaps.h"
#include "rewriter/program/instruction_effects.h"

namespace pteshare {
namespace {

/// Union-find over value indices (path halving, union by lower index so a
/// set's representative is its lowest member: deterministic group order).
class Sets {
 public:
  explicit Sets(size_t count) : parent_(count) {
    std::iota(parent_.begin(), parent_.end(), uint32_t{0});
  }
  uint32_t Find(uint32_t v) {
    while (parent_[v] != v) v = parent_[v] = parent_[parent_[v]];
    return v;
  }
  void Join(uint32_t a, uint32_t b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<uint32_t> parent_;
};

/// Where the instructions reference each value.
struct References {
  std::vector<std::optional<LiveRange>> range;
  /// The first instruction that references the value reads it (it may
  /// write it too: `add.out(v, y, out=v)`, in place).
  std::vector<bool> first_reads;
  std::vector<std::pair<uint32_t, uint32_t>> moves;  // (from, to)
  std::vector<LiveRange> loops;                      // [destination, jump]
  int64_t instruction_count = 0;
};

References CollectReferences(const MethodEffects& effects, size_t value_count) {
  References refs;
  refs.range.resize(value_count);
  refs.first_reads.resize(value_count, false);
  refs.instruction_count = effects.instruction_count();
  for (int64_t time = 0; time < refs.instruction_count; ++time) {
    // What a DelegateCall defines may also be a static view handed to it
    // (the two look alike): the view rule asks first (JoinStaticViews), so
    // here its args count as read.
    const bool delegate =
        effects.instructions[static_cast<size_t>(time)].kind == InstructionKind::kDelegate;
    auto [touch, end] = effects.TouchesOf(time);
    for (; touch != end; ++touch) {
      const bool writes = touch->writes && !delegate;
      std::optional<LiveRange>& range = refs.range[touch->value];
      if (!range) {
        range = LiveRange{time, time};
        refs.first_reads[touch->value] = !writes;
        continue;
      }
      if (range->first == time && !writes) refs.first_reads[touch->value] = true;
      range->Cover({time, time});
    }
  }
  refs.moves = effects.moves;
  for (const BackwardJump& loop : effects.loops)
    refs.loops.push_back({loop.destination, loop.jump});
  return refs;
}

bool IsSized(const TensorValue& t) { return t.planned && t.nbytes > 0; }

/// Overlapping loops act as one: the sorted, disjoint unions of `loops`.
std::vector<LiveRange> MergeLoops(std::vector<LiveRange> loops) {
  std::sort(loops.begin(), loops.end(),
            [](const LiveRange& a, const LiveRange& b) { return a.first < b.first; });
  std::vector<LiveRange> merged;
  for (const LiveRange& loop : loops) {
    if (!merged.empty() && merged.back().Overlaps(loop)) {
      merged.back().Cover(loop);
    } else {
      merged.push_back(loop);
    }
  }
  return merged;
}

/// Widens `range` over every loop it touches. Loops are disjoint, so
/// covering one never makes the range reach another it did not touch.
void WidenOverLoops(const std::vector<LiveRange>& loops, LiveRange* range) {
  auto it = std::lower_bound(loops.begin(), loops.end(), range->first,
                             [](const LiveRange& loop, int64_t t) { return loop.last < t; });
  const int64_t original_last = range->last;
  for (; it != loops.end() && it->first <= original_last; ++it) range->Cover(*it);
}

// The range of every value before aliasing: references, inputs, outputs,
// always-live values, moves, loops.
std::vector<std::optional<LiveRange>> ValueRanges(const MethodView& method, const References& refs,
                                                  const std::vector<uint32_t>& always_live,
                                                  int64_t last) {
  std::vector<std::optional<LiveRange>> range = refs.range;
  const std::vector<bool> input = ValueFlags(method.inputs, range.size());
  const std::vector<bool> output = ValueFlags(method.outputs, range.size());
  for (size_t v = 0; v < range.size(); ++v) {
    if (input[v]) range[v] = range[v] ? LiveRange{0, range[v]->last} : LiveRange{0, 0};
    if (output[v]) range[v] = range[v] ? LiveRange{range[v]->first, last} : LiveRange{last, last};
  }
  const LiveRange always{0, last};
  for (uint32_t v : always_live) {
    if (v < range.size()) range[v] = always;
  }
  for (const TensorValue& t : method.tensors) {
    // Nothing says when an unreferenced tensor is free: never free it.
    if (IsSized(t) && (t.is_mutable_buffer() || !range[t.value_index]))
      range[t.value_index] = always;
  }

  // A move's destination uses the source's memory from then on: every
  // value linked by moves is live over the union of their ranges.
  Sets moved(range.size());
  for (const auto& [from, to] : refs.moves) moved.Join(from, to);
  std::map<uint32_t, LiveRange> linked;
  for (const auto& [from, to] : refs.moves) {
    for (uint32_t v : {from, to}) {
      if (!range[v]) continue;
      auto [it, fresh] = linked.emplace(moved.Find(v), *range[v]);
      if (!fresh) it->second.Cover(*range[v]);
    }
  }
  for (const auto& [from, to] : refs.moves) {
    for (uint32_t v : {from, to}) range[v] = linked.at(moved.Find(v));
  }

  const std::vector<LiveRange> loops = MergeLoops(refs.loops);
  for (std::optional<LiveRange>& r : range) {
    if (r) WidenOverLoops(loops, &*r);
  }
  return range;
}

bool Contains(const Placement& outer, const Placement& inner) {
  return outer.memory_id == inner.memory_id && outer.offset <= inner.offset &&
         inner.end() <= outer.end();
}

// The static-view rule: a tensor read before anything writes it is a view
// of an earlier value (by index) with its placement (see lifetimes.h). Of
// several, the one whose life began last, no later than the view's first
// read, is the one whose bytes the view sees: not an earlier tenant of the
// bytes, and not a later one that reuses them after the view is done (that
// choice is also stable when run on replan's own output).
// Returns, per value, whether it was joined to a base as a view.
std::vector<bool> JoinStaticViews(const MethodView& method, const References& refs,
                                  const std::vector<LiveRange>& live, int64_t last, Sets* sets,
                                  std::string* too_complex) {
  std::vector<bool> viewed(method.value_count, false);
  const std::vector<bool> input = ValueFlags(method.inputs, method.value_count);
  const std::vector<bool> output = ValueFlags(method.outputs, method.value_count);
  // When the value is first read without having been written: at its first
  // reference if that reads it, even if it writes it too (an in-place op on
  // a view, `add.out(v, y, out=v)`, reads the base's bytes first: planned
  // as a fresh tensor, replan could move it off its base); at the end if no
  // instruction references it and the caller reads it (an output that is a
  // view).
  auto first_read = [&](uint32_t v) -> std::optional<int64_t> {
    if (input[v]) return std::nullopt;
    if (refs.range[v]) {
      return refs.first_reads[v] ? std::optional(refs.range[v]->first) : std::nullopt;
    }
    return output[v] ? std::optional(last) : std::nullopt;
  };
  // Per placement, the earlier values by the start of their life (the later
  // value wins a tie), so the one whose life began last, no later than a
  // read, is one search away however many share the placement.
  std::map<std::tuple<uint32_t, uint64_t, uint64_t>, std::map<int64_t, uint32_t>> same_placement;
  std::vector<const TensorValue*> earlier;
  uint64_t containment_work = 0;
  // The candidate whose life began last, no later than `read_at`.
  auto pick = [&](const std::vector<uint32_t>& candidates,
                  int64_t read_at) -> std::optional<uint32_t> {
    std::optional<uint32_t> best;
    for (uint32_t c : candidates) {
      if (live[c].first > read_at) continue;
      if (!best || live[c].first >= live[*best].first) best = c;
    }
    return best;
  };
  for (const TensorValue& t : method.tensors) {
    if (!IsSized(t)) continue;
    const uint32_t v = t.value_index;
    const Placement& p = t.placement;
    const auto key = std::make_tuple(p.memory_id, p.offset, p.nbytes);
    const std::optional<int64_t> read_at = first_read(v);
    if (read_at && !t.has_initial_state) {
      std::optional<uint32_t> base;
      if (auto it = same_placement.find(key); it != same_placement.end()) {
        auto after = it->second.upper_bound(*read_at);
        if (after != it->second.begin()) base = std::prev(after)->second;
      }
      if (!base) {  // a view at an offset into its base
        containment_work += earlier.size();
        if (containment_work > kMaxContainmentWork) {
          *too_complex = "more than " + std::to_string(kMaxContainmentWork) +
                         " comparisons to find the tensors that tensors read before any write "
                         "are views into (pteshare's limit for one method)";
          return viewed;
        }
        std::vector<uint32_t> containing;
        for (const TensorValue* e : earlier) {
          if (Contains(e->placement, p)) containing.push_back(e->value_index);
        }
        base = pick(containing, *read_at);
      }
      if (base) {
        sets->Join(v, *base);
        viewed[v] = true;
      }
    }
    same_placement[key][live[v].first] = v;
    earlier.push_back(&t);
  }
  return viewed;
}

// The exporter plans a DelegateCall's outputs as born after the call has
// read its inputs, so an output may sit on the bytes of an input that dies
// at the call. Such a pair is not an in-place alias: `DelegateHandover`
// tells, per value, the call it is born at and the call it dies in.
struct DelegateHandover {
  std::vector<int64_t> born_at;  // -1: not born at a DelegateCall
  std::vector<int64_t> dies_at;  // -1: its last reference is no DelegateCall read

  /// `earlier` dies in the call that gives birth to `later`.
  bool HandsOver(uint32_t earlier, uint32_t later) const {
    return born_at[later] >= 0 && dies_at[earlier] == born_at[later];
  }
};

DelegateHandover FindDelegateHandovers(const MethodView& method, const MethodEffects& effects,
                                       const std::vector<LiveRange>& live,
                                       const std::vector<bool>& viewed) {
  DelegateHandover handover;
  handover.born_at.assign(method.value_count, -1);
  handover.dies_at.assign(method.value_count, -1);
  const std::vector<bool> output = ValueFlags(method.outputs, method.value_count);
  for (const TensorValue& t : method.tensors) {
    if (!IsSized(t)) continue;
    const uint32_t v = t.value_index;
    const LiveRange& range = live[v];
    // Only while its range is still the call's own: an input, an output or
    // a loop that widens it keeps it live across the call.
    // A value the view rule took for a view of an earlier one is not born
    // here: when unsure, keep them together.
    if (effects.born_at_delegate[v] >= 0 && effects.born_at_delegate[v] == range.first &&
        !viewed[v]) {
      handover.born_at[v] = range.first;
    }
    if (output[v] || handover.born_at[v] == range.last ||
        range.last >= effects.instruction_count() ||
        effects.instructions[static_cast<size_t>(range.last)].kind != InstructionKind::kDelegate) {
      continue;
    }
    auto [touch, end] = effects.TouchesOf(range.last);
    for (; touch != end; ++touch) {
      if (touch->value == v && !touch->writes) handover.dies_at[v] = range.last;
    }
  }
  return handover;
}

// In-place results: overlapping bytes while both are live, unless one is a
// delegate output born on the bytes of an input that dies in that call.
void JoinLiveOverlaps(const MethodView& method, const std::vector<LiveRange>& live,
                      const DelegateHandover& handover, Sets* sets) {
  std::map<uint32_t, std::vector<const TensorValue*>> by_arena;
  for (const TensorValue& t : method.tensors) {
    if (IsSized(t)) by_arena[t.placement.memory_id].push_back(&t);
  }
  for (const auto& [memory_id, all] : by_arena) {
    // Tensors alike in bytes and life are one group whatever else holds
    // (a hostile file may have tens of thousands on one placement): join
    // them here, and look for overlaps among the distinct ones only, so the
    // pairs stay few. Sorted by (life, bytes), each run of equal keys is one
    // group, looked at through its first member.
    auto key = [&](const TensorValue* t) {
      const LiveRange& r = live[t->value_index];
      return std::make_tuple(r.first, r.last, t->placement.offset, t->placement.end());
    };
    std::vector<const TensorValue*> sorted = all;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](const TensorValue* a, const TensorValue* b) { return key(a) < key(b); });
    std::vector<const TensorValue*> tensors;
    std::vector<LiveRect> rects;
    for (size_t i = 0; i < sorted.size(); ++i) {
      const TensorValue* t = sorted[i];
      if (i > 0 && key(sorted[i - 1]) == key(t)) {
        sets->Join(tensors.back()->value_index, t->value_index);
        continue;
      }
      const LiveRange& r = live[t->value_index];
      tensors.push_back(t);
      rects.push_back({r.first, r.last, t->placement.offset, t->placement.end()});
    }
    for (const auto& [a, b] : FindLiveOverlaps(rects)) {
      const uint32_t va = tensors[a]->value_index, vb = tensors[b]->value_index;
      if (handover.HandsOver(va, vb) || handover.HandsOver(vb, va)) continue;
      sets->Join(va, vb);
    }
  }
}

// Doubled time: instruction t reads at 2t and writes at 2t + 1. A value
// born at a DelegateCall starts at the write; one that dies reading into a
// DelegateCall ends at the read.
std::vector<LiveRange> Moments(const MethodView& method, const std::vector<LiveRange>& live,
                               const DelegateHandover& handover) {
  std::vector<LiveRange> moments(method.value_count);
  for (const TensorValue& t : method.tensors) {
    if (!IsSized(t)) continue;
    const uint32_t v = t.value_index;
    moments[v] = {2 * live[v].first + (handover.born_at[v] >= 0 ? 1 : 0),
                  2 * live[v].last + (handover.dies_at[v] >= 0 ? 0 : 1)};
  }
  return moments;
}

}  // namespace

MethodLifetimes ComputeLifetimes(const MethodView& method, const std::vector<uint32_t>& always_live,
                                 LowerBound lower_bound) {
  MethodLifetimes out;
  const References refs = CollectReferences(method.effects, method.value_count);
  out.instruction_count = refs.instruction_count;
  const std::vector<std::optional<LiveRange>> ranges =
      ValueRanges(method, refs, always_live, out.last_instruction());

  out.live.assign(method.value_count, LiveRange{});
  out.group_of.assign(method.value_count, -1);
  for (const TensorValue& t : method.tensors) {
    if (IsSized(t)) out.live[t.value_index] = *ranges[t.value_index];
  }

  Sets sets(method.value_count);
  for (const auto& [from, to] : refs.moves) {
    const TensorValue* a = method.tensor(from);
    const TensorValue* b = method.tensor(to);
    if (a && b && IsSized(*a) && IsSized(*b) && a->placement.memory_id == b->placement.memory_id) {
      sets.Join(from, to);
    }
  }
  const std::vector<bool> viewed =
      JoinStaticViews(method, refs, out.live, out.last_instruction(), &sets, &out.too_complex);
  const DelegateHandover handover = FindDelegateHandovers(method, method.effects, out.live, viewed);
  JoinLiveOverlaps(method, out.live, handover, &sets);

  for (const TensorValue& t : method.tensors) {  // value order: lowest member first
    if (!IsSized(t)) continue;
    const uint32_t root = sets.Find(t.value_index);
    if (out.group_of[root] < 0) {
      out.group_of[root] = static_cast<int32_t>(out.groups.size());
      AliasGroup& g = out.groups.emplace_back();
      g.memory_id = t.placement.memory_id;
      g.live = out.live[t.value_index];
      g.offset = t.placement.offset;
      g.end = t.placement.end();
    }
    AliasGroup& g = out.groups[static_cast<size_t>(out.group_of[root])];
    out.group_of[t.value_index] = out.group_of[root];
    g.members.push_back(t.value_index);
    g.live.Cover(out.live[t.value_index]);
    g.offset = std::min(g.offset, t.placement.offset);
    g.end = std::max(g.end, t.placement.end());
  }
  out.moments = Moments(method, out.live, handover);
  if (lower_bound == LowerBound::kCompute) out.lower_bound = PeakLiveBytesPerArena(method, out);
  return out;
}

// Tensors live at one moment that do not share bytes in the input are in
// different groups, which no plan may overlap, and a group's members keep
// their relative offsets: the union of their input ranges is a bound on
// every plan, and never more than a valid input arena holds.
std::vector<uint64_t> PeakLiveBytesPerArena(const MethodView& method,
                                            const MethodLifetimes& lifetimes,
                                            const std::vector<bool>& left_out,
                                            const std::vector<bool>& arenas) {
  std::vector<uint64_t> bounds(method.arenas.size(), 0);
  std::map<uint32_t, std::vector<LiveRect>> by_arena;
  auto asked = [&](uint32_t memory_id) {
    return arenas.empty() ||
           (memory_id >= 1 && memory_id <= arenas.size() && arenas[memory_id - 1]);
  };
  for (const TensorValue& t : method.tensors) {
    const int32_t group = IsSized(t) ? lifetimes.group_of[t.value_index] : -1;
    if (group < 0 || (!left_out.empty() && left_out[static_cast<size_t>(group)])) continue;
    if (!asked(t.placement.memory_id)) continue;
    const LiveRange& m = lifetimes.moments[t.value_index];
    by_arena[t.placement.memory_id].push_back(
        {m.first, m.last, t.placement.offset, t.placement.end()});
  }
  for (const auto& [memory_id, rects] : by_arena) {
    if (memory_id >= 1 && memory_id <= bounds.size()) bounds[memory_id - 1] = PeakLiveBytes(rects);
  }
  return bounds;
}

std::vector<uint32_t> SharedValues(const MethodView& method, const SharedBufferSet& shared) {
  std::vector<uint32_t> values;
  for (const SharedBuffer& b : shared.buffers) {
    if (method.index < b.value_in_method.size() && b.value_in_method[method.index]) {
      values.push_back(*b.value_in_method[method.index]);
    }
  }
  return values;
}

}  // namespace pteshare
