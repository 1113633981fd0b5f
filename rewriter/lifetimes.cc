#include "rewriter/lifetimes.h"

#include <map>
#include <numeric>
#include <optional>
#include <tuple>

#include "rewriter/live_overlaps.h"

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
  /// The first instruction that references the value writes it.
  std::vector<bool> first_writes;
  std::vector<std::pair<uint32_t, uint32_t>> moves;  // (from, to)
  std::vector<LiveRange> loops;                      // [destination, jump]
  int64_t instruction_count = 0;
};

/// The longest suffix of `args` that repeats the args just before it: the
/// return values the exporter lists again after the schema args.
size_t RepeatedTail(const flatbuffers::Vector<int32_t>& args) {
  const size_t n = args.size();
  for (size_t k = n / 2; k >= 1; --k) {
    bool repeats = true;
    for (size_t i = 0; i < k && repeats; ++i) repeats = args[n - k + i] == args[n - 2 * k + i];
    if (repeats) return k;
  }
  return 0;
}

class ReferenceCollector {
 public:
  explicit ReferenceCollector(const fb::ExecutionPlan& plan) : plan_(plan) {
    const size_t count = plan.values() ? plan.values()->size() : 0;
    refs_.range.resize(count);
    refs_.first_writes.resize(count, false);
  }

  References Run() && {
    int64_t time = 0;
    if (plan_.chains() != nullptr) {
      for (const fb::Chain* chain : *plan_.chains()) {
        if (chain == nullptr || chain->instructions() == nullptr) continue;
        const int64_t chain_start = time;
        for (const fb::Instruction* instruction : *chain->instructions()) {
          if (instruction != nullptr) Visit(*instruction, chain_start, time);
          ++time;
        }
      }
    }
    refs_.instruction_count = time;
    return std::move(refs_);
  }

 private:
  void Visit(const fb::Instruction& instruction, int64_t chain_start, int64_t time) {
    using fb::InstructionArguments;
    // A union with its type set but no value passes the FlatBuffers
    // verifier; such an instruction references nothing.
    if (instruction.instr_args() == nullptr) return;
    switch (instruction.instr_args_type()) {
      case InstructionArguments::KernelCall: {
        const auto* args = instruction.instr_args_as_KernelCall()->args();
        if (args == nullptr) break;
        const size_t tail_start = args->size() - RepeatedTail(*args);
        for (size_t i = 0; i < args->size(); ++i) Touch(args->Get(i), time, i >= tail_start);
        break;
      }
      case InstructionArguments::DelegateCall: {
        // Which args a delegate writes is its own business: count none as
        // written, so a read-first output is taken for a view (merged).
        const auto* args = instruction.instr_args_as_DelegateCall()->args();
        if (args == nullptr) break;
        for (int32_t arg : *args) Touch(arg, time, false);
        break;
      }
      case InstructionArguments::MoveCall: {
        const fb::MoveCall* move = instruction.instr_args_as_MoveCall();
        Touch(move->move_from(), time, false);
        Touch(move->move_to(), time, true);
        if (Valid(move->move_from()) && Valid(move->move_to())) {
          refs_.moves.emplace_back(move->move_from(), move->move_to());
        }
        break;
      }
      case InstructionArguments::JumpFalseCall: {
        const fb::JumpFalseCall* jump = instruction.instr_args_as_JumpFalseCall();
        Touch(jump->cond_value_index(), time, false);
        const int64_t destination = chain_start + jump->destination_instruction();
        if (jump->destination_instruction() >= 0 && destination <= time) {
          refs_.loops.push_back({destination, time});
        }
        break;
      }
      case InstructionArguments::FreeCall:
        Touch(instruction.instr_args_as_FreeCall()->value_index(), time, false);
        break;
      default:
        break;
    }
  }

  bool Valid(int64_t index) const {
    return index >= 0 && static_cast<size_t>(index) < refs_.range.size();
  }

  // A list argument references its items too (with the list's write flag:
  // an out list is written item by item).
  void Touch(int64_t index, int64_t time, bool writes) {
    if (!Valid(index)) return;
    TouchOne(static_cast<size_t>(index), time, writes);
    const fb::EValue* value = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(index));
    const flatbuffers::Vector<int32_t>* items = nullptr;
    if (value == nullptr) return;
    if (const auto* list = value->val_as_TensorList()) items = list->items();
    if (const auto* list = value->val_as_OptionalTensorList()) items = list->items();
    if (items == nullptr) return;
    for (int32_t item : *items) {
      if (Valid(item)) TouchOne(static_cast<size_t>(item), time, writes);
    }
  }

  void TouchOne(size_t index, int64_t time, bool writes) {
    std::optional<LiveRange>& range = refs_.range[index];
    if (!range) {
      range = LiveRange{time, time};
      refs_.first_writes[index] = writes;
      return;
    }
    if (range->first == time && writes) refs_.first_writes[index] = true;
    range->Cover({time, time});
  }

  const fb::ExecutionPlan& plan_;
  References refs_;
};

bool IsSized(const TensorValue& t) { return t.planned && t.nbytes > 0; }

/// flags[v]: value v is listed in `values` (the plan's inputs or outputs).
std::vector<bool> Flags(const flatbuffers::Vector<int32_t>* values, size_t count) {
  std::vector<bool> flags(count, false);
  if (values == nullptr) return flags;
  for (int32_t v : *values) {
    if (v >= 0 && static_cast<size_t>(v) < count) flags[v] = true;
  }
  return flags;
}

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
  const fb::ExecutionPlan& plan = *method.plan;
  std::vector<std::optional<LiveRange>> range = refs.range;
  const std::vector<bool> input = Flags(plan.inputs(), range.size());
  const std::vector<bool> output = Flags(plan.outputs(), range.size());
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
void JoinStaticViews(const MethodView& method, const References& refs,
                     const std::vector<LiveRange>& live, int64_t last, Sets* sets) {
  const std::vector<bool> input = Flags(method.plan->inputs(), method.value_count);
  const std::vector<bool> output = Flags(method.plan->outputs(), method.value_count);
  // When the value is first read without having been written: at its first
  // reference if that does not write it; at the end if no instruction
  // references it and the caller reads it (an output that is a view).
  auto first_read = [&](uint32_t v) -> std::optional<int64_t> {
    if (input[v]) return std::nullopt;
    if (refs.range[v]) {
      return refs.first_writes[v] ? std::nullopt : std::optional(refs.range[v]->first);
    }
    return output[v] ? std::optional(last) : std::nullopt;
  };
  std::map<std::tuple<uint32_t, uint64_t, uint64_t>, std::vector<uint32_t>> same_placement;
  std::vector<const TensorValue*> earlier;
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
        base = pick(it->second, *read_at);
      }
      if (!base) {  // a view at an offset into its base
        std::vector<uint32_t> containing;
        for (const TensorValue* e : earlier) {
          if (Contains(e->placement, p)) containing.push_back(e->value_index);
        }
        base = pick(containing, *read_at);
      }
      if (base) sets->Join(v, *base);
    }
    same_placement[key].push_back(v);
    earlier.push_back(&t);
  }
}

// In-place results: overlapping bytes while both are live.
void JoinLiveOverlaps(const MethodView& method, const std::vector<LiveRange>& live, Sets* sets) {
  std::map<uint32_t, std::vector<const TensorValue*>> by_arena;
  for (const TensorValue& t : method.tensors) {
    if (IsSized(t)) by_arena[t.placement.memory_id].push_back(&t);
  }
  for (const auto& [memory_id, tensors] : by_arena) {
    std::vector<LiveRect> rects;
    for (const TensorValue* t : tensors) {
      const LiveRange& r = live[t->value_index];
      rects.push_back({r.first, r.last, t->placement.offset, t->placement.end()});
    }
    for (const auto& [a, b] : FindLiveOverlaps(rects)) {
      sets->Join(tensors[a]->value_index, tensors[b]->value_index);
    }
  }
}

std::vector<uint64_t> LowerBounds(const MethodView& method, const std::vector<AliasGroup>& groups) {
  std::vector<uint64_t> bounds(method.arenas.size(), 0);
  std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> events;  // (time, +-bytes)
  for (const AliasGroup& g : groups) {
    const int64_t bytes = static_cast<int64_t>(g.end - g.offset);
    events[g.memory_id].emplace_back(g.live.first, bytes);
    events[g.memory_id].emplace_back(g.live.last + 1, -bytes);
  }
  for (auto& [memory_id, list] : events) {
    std::sort(list.begin(), list.end());  // at one time, ends (negative) first
    int64_t live = 0, peak = 0;
    for (const auto& [time, bytes] : list) peak = std::max(peak, live += bytes);
    if (memory_id >= 1 && memory_id <= bounds.size()) {
      bounds[memory_id - 1] = static_cast<uint64_t>(peak);
    }
  }
  return bounds;
}

}  // namespace

MethodLifetimes ComputeLifetimes(const MethodView& method,
                                 const std::vector<uint32_t>& always_live) {
  MethodLifetimes out;
  const References refs = ReferenceCollector(*method.plan).Run();
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
  JoinStaticViews(method, refs, out.live, out.last_instruction(), &sets);
  JoinLiveOverlaps(method, out.live, &sets);

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
  out.lower_bound = LowerBounds(method, out.groups);
  return out;
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
