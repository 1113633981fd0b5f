#include "rewriter/plan/replan.h"

#include <algorithm>

#include "rewriter/base/grouped.h"
#include "rewriter/plan/blockplan/planner.h"
#include "rewriter/plan/front_region.h"
#include "rewriter/plan/state_arena.h"

namespace pteshare {
namespace {

uint64_t AlignDown(uint64_t value, uint64_t alignment) { return value / alignment * alignment; }

// A shared buffer's slot and the arena that holds it.
struct SlotPlace {
  const FrontSlot* slot = nullptr;
  uint32_t memory_id = 0;
};

// Per value of `method`: the slot of the shared buffer it holds, in that
// buffer's arena's own front (Layout::kFront) or in its device's state
// arena (Layout::kArena); none for other values. Found once per method, so
// placing a group asks one vector, not every buffer and slot by name.
std::vector<SlotPlace> SlotsOfValues(const MethodView& method, const SharedBufferSet& shared,
                                     const std::vector<FrontRegion>& fronts) {
  std::vector<SlotPlace> of_value(method.value_count);
  const std::vector<BufferSlot> slots = FindBufferSlots(shared, fronts);
  for (size_t i = 0; i < shared.buffers.size(); ++i) {
    const std::optional<uint32_t>& value = shared.buffers[i].value_in_method[method.index];
    if (!value || *value >= of_value.size() || slots[i].slot == nullptr) continue;
    // The first buffer (in name order) holding the value wins.
    if (of_value[*value].slot == nullptr) {
      of_value[*value] = {slots[i].slot, slots[i].region->memory_id};
    }
  }
  return of_value;
}

// Where a value of the arena being replanned goes.
struct NewPlace {
  uint64_t offset = 0;
  uint32_t memory_id = 0;  // 0: stays in its arena
};

class ArenaReplanner {
 public:
  ArenaReplanner(const MethodView& method, const MethodLifetimes& lifetimes,
                 const std::vector<SlotPlace>& slots_of_values, const FrontRegion* front,
                 const ReplanOptions& options, uint32_t memory_id,
                 std::vector<std::optional<NewPlace>>* new_offsets)
      : method_(method),
        lifetimes_(lifetimes),
        slots_of_values_(slots_of_values),
        front_(front),
        options_(options),
        memory_id_(memory_id),
        new_offsets_(*new_offsets) {}

  ArenaReplan Run() {
    ArenaReplan out;
    out.memory_id = memory_id_;
    out.size = method_.arena(memory_id_)->size;
    if (memory_id_ <= lifetimes_.lower_bound.size()) {
      out.lower_bound = lifetimes_.lower_bound[memory_id_ - 1];
    }
    std::vector<const AliasGroup*> groups;
    for (const AliasGroup& g : lifetimes_.groups) {
      if (g.memory_id == memory_id_) groups.push_back(&g);
    }
    const bool has_front = front_ != nullptr && UsesArena(method_, memory_id_);
    if (!has_front && groups.empty()) {
      out.why_not = "nothing planned in it";
      return out;
    }
    if (front_ != nullptr && !has_front) {
      out.why_not = "the method does not use it, so its front region stays out of it";
      return out;
    }

    BlockProblem problem;
    problem.alignment = options_.alignment;
    const Lifespan always{0, lifetimes_.last_instruction() + 1};
    if (has_front && front_->size > 0) problem.blocks.push_back({"front", always, front_->size, 0});
    std::vector<const AliasGroup*> free_groups;
    for (const AliasGroup* g : groups) {
      std::optional<std::string> problem_with_slot;
      if (PlaceInSlot(*g, &problem_with_slot)) continue;
      if (problem_with_slot) {
        out.why_not = *problem_with_slot;
        out.refused = true;
        return out;
      }
      const uint64_t base = AlignDown(g->offset, options_.alignment);
      problem.blocks.push_back({"group of value " + std::to_string(g->members.front()),
                                Lifespan{g->live.first, g->live.last + 1}, g->end - base,
                                std::nullopt});
      free_groups.push_back(g);
    }

    BlockPlannerOptions planner;
    planner.seed = options_.seed;
    planner.max_steps = options_.max_steps;
    if (options_.max_steps > 0 && free_groups.size() > options_.large_arena_blocks) {
      planner.max_steps =
          std::max(planner.max_steps, options_.steps_per_block * free_groups.size());
    }
    Result<BlockPlan> plan = PlanBlocks(problem, planner);
    if (!plan.ok()) {  // only an invalid problem can fail without a capacity
      out.why_not = "replan could not lay it out: " + plan.error().message;
      out.refused = true;
      return out;
    }
    if (auto limit = options_.arena_limits.find(memory_id_); limit != options_.arena_limits.end()) {
      FitLimit(problem, planner, limit->second, has_front ? front_->size : 0, &plan.value(), &out);
    }

    const size_t first_free = problem.blocks.size() - free_groups.size();
    for (size_t i = 0; i < free_groups.size(); ++i) {
      const AliasGroup& g = *free_groups[i];
      const uint64_t block_offset = plan->solution.offsets[first_free + i];
      const uint64_t base = AlignDown(g.offset, options_.alignment);
      for (uint32_t v : g.members) {
        new_offsets_[v] = NewPlace{block_offset + (method_.tensor(v)->placement.offset - base)};
      }
    }
    PlaceZeroByteTensors();
    out.replanned = true;
    out.lower_bound = plan->lower_bound;
    out.size =
        AlignUp(std::max(plan->solution.height, has_front ? front_->size : 0), options_.alignment);
    return out;
  }

 private:
  // A group holding a shared buffer stays rigid around it in its slot.
  // Returns false for a group without one; sets `problem` when the group
  // cannot follow its buffer.
  bool PlaceInSlot(const AliasGroup& g, std::optional<std::string>* problem) {
    const FrontSlot* slot = nullptr;
    uint32_t slot_arena = 0;
    uint32_t buffer_value = 0;
    for (uint32_t v : g.members) {
      // Only the slots of buffers from this arena (the member could not be
      // elsewhere: a group lies in one arena).
      const SlotPlace& s = slots_of_values_[v];
      if (s.slot == nullptr || s.slot->source_memory_id != memory_id_) continue;
      if (slot != nullptr) {
        *problem = ValueLabel(method_, buffer_value) + " and " + ValueLabel(method_, v) +
                   " are two shared buffers in one alias group";
        return false;
      }
      slot = s.slot;
      slot_arena = s.memory_id == memory_id_ ? 0 : s.memory_id;
      buffer_value = v;
    }
    if (slot == nullptr) return false;
    const Placement& buffer = method_.tensor(buffer_value)->placement;
    for (uint32_t v : g.members) {
      const Placement& p = method_.tensor(v)->placement;
      if (p.offset < buffer.offset || p.end() > buffer.end()) {
        *problem = ValueLabel(method_, v) + " aliases shared buffer '" + slot->name +
                   "' but lies outside it";
        return false;
      }
      new_offsets_[v] = NewPlace{slot->offset + (p.offset - buffer.offset), slot_arena};
    }
    return true;
  }

  // The plan misses `limit`: search for one that fits it, and if none is
  // found say why in the arena's terms (the front region, the bytes live
  // at once), not the block planner's.
  void FitLimit(BlockProblem problem, const BlockPlannerOptions& planner, uint64_t limit,
                uint64_t front, BlockPlan* plan, ArenaReplan* out) {
    if (AlignUp(plan->solution.height, options_.alignment) <= limit) return;
    const uint64_t usable = AlignDown(limit, options_.alignment);
    if (front > usable) {
      out->limit_miss =
          "its front region (the shared buffers' slots) alone takes " + Grouped(front) + " bytes";
      return;
    }
    if (plan->lower_bound > usable) {
      out->limit_miss = Grouped(plan->lower_bound) + " bytes of its tensors are live at once" +
                        (front > 0 ? " (its front region included)" : "");
      return;
    }
    problem.capacity = usable;
    Result<BlockPlan> fitted = PlanBlocks(problem, planner);
    if (fitted.ok()) {
      *plan = std::move(fitted).value();
      return;
    }
    out->limit_miss =
        "replan found no layout in " + Grouped(usable) + " bytes" +
        (usable != limit ? " (the limit at the alignment of " + Grouped(options_.alignment) + ")"
                         : "") +
        ", though at most " + Grouped(plan->lower_bound) + " bytes are live at once";
  }

  void PlaceZeroByteTensors() {
    // Non-empty tensors of the arena by input offset, with the running
    // highest end and whose it is: the tensor reaching furthest among
    // those starting at or below a point contains it if anything does.
    std::vector<const TensorValue*> sized;
    for (const TensorValue& t : method_.tensors) {
      if (t.planned && t.nbytes > 0 && t.placement.memory_id == memory_id_) sized.push_back(&t);
    }
    std::stable_sort(sized.begin(), sized.end(), [](const TensorValue* a, const TensorValue* b) {
      return a->placement.offset < b->placement.offset;
    });
    std::vector<const TensorValue*> furthest;
    for (const TensorValue* t : sized) {
      furthest.push_back(furthest.empty() || t->placement.end() > furthest.back()->placement.end()
                             ? t
                             : furthest.back());
    }
    for (const TensorValue& t : method_.tensors) {
      if (!t.planned || t.nbytes > 0 || t.placement.memory_id != memory_id_) continue;
      const uint64_t at = t.placement.offset;
      auto it = std::upper_bound(
          sized.begin(), sized.end(), at,
          [](uint64_t o, const TensorValue* s) { return o < s->placement.offset; });
      const TensorValue* container =
          it == sized.begin() ? nullptr : furthest[static_cast<size_t>(it - sized.begin()) - 1];
      if (container != nullptr && container->placement.end() > at) {
        const NewPlace& with = *new_offsets_[container->value_index];
        new_offsets_[t.value_index] =
            NewPlace{with.offset + (at - container->placement.offset), with.memory_id};
      } else {
        new_offsets_[t.value_index] = NewPlace{};
      }
    }
  }

  const MethodView& method_;
  const MethodLifetimes& lifetimes_;
  const std::vector<SlotPlace>& slots_of_values_;
  const FrontRegion* front_;  // the arena's own, if any
  const ReplanOptions& options_;
  const uint32_t memory_id_;
  std::vector<std::optional<NewPlace>>& new_offsets_;
};

}  // namespace

MethodReplan ReplanMethod(const MethodView& method, const MethodLifetimes& lifetimes,
                          const SharedBufferSet& shared, const std::vector<FrontRegion>& fronts,
                          const ReplanOptions& options) {
  MethodReplan out;
  MethodPlan& plan = out.plan;
  plan.name = method.name;
  plan.method_index = method.index;
  std::vector<std::optional<NewPlace>> new_places(method.value_count);
  const std::vector<SlotPlace> slots_of_values = SlotsOfValues(method, shared, fronts);
  for (const Arena& a : method.arenas) {
    const FrontRegion* front = nullptr;
    for (const FrontRegion& f : fronts) {
      if (f.memory_id == a.memory_id) front = &f;
    }
    std::vector<std::optional<NewPlace>> arena_places(method.value_count);
    ArenaReplan arena = ArenaReplanner(method, lifetimes, slots_of_values, front, options,
                                       a.memory_id, &arena_places)
                            .Run();
    if (arena.replanned) {
      for (size_t v = 0; v < arena_places.size(); ++v) {
        if (arena_places[v]) new_places[v] = arena_places[v];
      }
    }
    plan.arena_sizes_before.push_back(a.size);
    plan.arena_sizes_after.push_back(arena.size);
    out.arenas.push_back(std::move(arena));
  }
  // State arenas the method did not have (Layout::kArena), and the empty
  // arenas before them: nothing to plan, their slots are fixed.
  for (size_t i = method.arenas.size(); i < ArenaCountAfter(method, fronts); ++i) {
    ArenaReplan arena;
    arena.memory_id = static_cast<uint32_t>(i + 1);
    for (const FrontRegion& f : fronts) {
      if (f.memory_id == arena.memory_id) arena.size = arena.lower_bound = f.size;
    }
    arena.why_not = "a new arena: its slots are fixed";
    plan.arena_sizes_after.push_back(arena.size);
    out.arenas.push_back(std::move(arena));
  }
  for (const TensorValue& t : method.tensors) {
    if (!t.planned) continue;
    TensorMove move{t.value_index, t.placement, t.placement};
    if (const std::optional<NewPlace>& place = new_places[t.value_index]) {
      move.after.offset = place->offset;
      if (place->memory_id != 0) move.after.memory_id = place->memory_id;
    }
    plan.moves.push_back(move);
  }
  return out;
}

}  // namespace pteshare
