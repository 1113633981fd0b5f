#include "rewriter/verify/plan_verifier.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "rewriter/base/grouped.h"
#include "rewriter/plan/input_lifetimes.h"
#include "rewriter/plan/lifetimes.h"
#include "rewriter/plan/live_overlaps.h"
#include "rewriter/program/instruction_effects.h"
#include "rewriter/share/alias_evidence.h"
#include "rewriter/verify/overlaps_kept.h"
#include "rewriter/verify/state_arena_checks.h"

namespace pteshare {

namespace {

class Checker {
 public:
  Checker(const ProgramView& view, const SharedBufferSet& shared, const Plan& plan,
          InputLifetimes* lifetimes)
      : view_(view), shared_(shared), plan_(plan), lifetimes_(lifetimes) {
    // Each buffer's slot and the arena holding it, found once by the name
    // and the arena the buffer comes from.
    std::map<std::pair<uint32_t, std::string>, std::pair<const FrontSlot*, const FrontRegion*>>
        slots;
    for (const FrontRegion& f : plan_.fronts) {
      for (const FrontSlot& s : f.slots) slots[{s.source_memory_id, s.name}] = {&s, &f};
    }
    for (const SharedBuffer& b : shared_.buffers) {
      auto it = slots.find({b.memory_id, b.name});
      slot_of_buffer_.push_back(it != slots.end() ? it->second.first : nullptr);
      region_of_buffer_.push_back(it != slots.end() ? it->second.second : nullptr);
    }
    for (const MethodView& m : view_.methods)
      most_arenas_ = std::max(most_arenas_, m.arenas.size());
    // What CheckShape asks of every move, as sets: which arena takes buffers
    // from which (in the first region of each memory_id, as plan_.front
    // finds it), and which arenas buffers leave.
    for (const FrontRegion& f : plan_.fronts) {
      for (const FrontSlot& s : f.slots) {
        if (f.state_arena && plan_.front(f.memory_id) == &f) {
          state_arena_sources_.insert({f.memory_id, s.source_memory_id});
        }
        if (s.source_memory_id != f.memory_id) left_arenas_.insert(s.source_memory_id);
      }
    }
  }

  std::vector<PlanViolation> Run() {
    if (!CheckShape()) return violations_;  // I5 broken: nothing else is comparable
    CheckFronts();
    Append(CheckStateArenaLayout(view_, plan_, most_arenas_));
    for (const MethodPlan& m : plan_.methods) {
      LearnMethod(m);
      CheckSharedPlacements(m);
      Append(CheckAliasesFollow(view_.methods[m.method_index], m, shared_, slot_of_buffer_,
                                region_of_buffer_));
      CheckFrontRegionsFree(m);
      CheckFitAndAlignment(m);
      if (plan_.strategy == Strategy::kRelocate) Append(CheckOverlapsKept(m, plan_));
      CheckLiveOverlaps(m);
      CheckGrowth(m);
    }
    return violations_;
  }

 private:
  void Fail(Invariant invariant, std::string message) {
    violations_.push_back({invariant, std::move(message)});
  }
  void Append(std::vector<PlanViolation> found) {
    for (PlanViolation& v : found) violations_.push_back(std::move(v));
  }

  // The arena count a method must have after the plan: its own, or with
  // Layout::kArena up to the highest state arena.
  // A method with no planned byte keeps its arenas (a constant method);
  // every other reaches the state arenas' memory ids.
  size_t ArenasAfter(const MethodView& in) const {
    size_t count = in.arenas.size();
    bool planned_bytes = false;
    for (const Arena& a : in.arenas) planned_bytes |= a.size > 0;
    for (const TensorValue& t : in.tensors) planned_bytes |= t.planned && t.nbytes > 0;
    if (!planned_bytes) return count;
    for (const FrontRegion& f : plan_.fronts) {
      if (f.state_arena) count = std::max<size_t>(count, f.memory_id);
    }
    return count;
  }

  // `to` is a state arena that takes a shared buffer from arena `from`.
  bool IsStateArenaOf(uint32_t to, uint32_t from) const {
    return state_arena_sources_.count({to, from}) != 0;
  }

  // Some shared buffer leaves arena `memory_id` for a state arena.
  bool IsLeftBy(uint32_t memory_id) const { return left_arenas_.count(memory_id) != 0; }

  // I5: the plan covers exactly the program's planned tensors.
  bool CheckShape() {
    if (plan_.methods.size() != view_.methods.size()) {
      Fail(Invariant::kSameShape, "plan has " + std::to_string(plan_.methods.size()) +
                                      " methods, program has " +
                                      std::to_string(view_.methods.size()));
      return false;
    }
    bool ok = true;
    for (size_t i = 0; i < view_.methods.size(); ++i) {
      const MethodView& in = view_.methods[i];
      const MethodPlan& m = plan_.methods[i];
      if (m.arena_sizes_before.size() != in.arenas.size() ||
          m.arena_sizes_after.size() != ArenasAfter(in)) {
        Fail(Invariant::kSameShape, "method " + in.name + ": arena count changes from " +
                                        std::to_string(in.arenas.size()) + " to " +
                                        std::to_string(m.arena_sizes_after.size()) + " (expected " +
                                        std::to_string(ArenasAfter(in)) + ")");
        ok = false;
        continue;
      }
      size_t k = 0;
      for (const TensorValue& t : in.tensors) {
        if (!t.planned) continue;
        if (k >= m.moves.size() || m.moves[k].value_index != t.value_index ||
            m.moves[k].before != t.placement) {
          Fail(Invariant::kSameShape, "method " + in.name + ": the plan does not list value " +
                                          std::to_string(t.value_index) +
                                          " with its input placement");
          ok = false;
          break;
        }
        const TensorMove& move = m.moves[k++];
        if ((move.after.memory_id != move.before.memory_id &&
             !IsStateArenaOf(move.after.memory_id, move.before.memory_id)) ||
            move.after.nbytes != move.before.nbytes) {
          Fail(Invariant::kSameShape,
               ValueLabel(m.name, move.value_index) + ": arena or size changes (arena " +
                   std::to_string(move.before.memory_id) + " -> " +
                   std::to_string(move.after.memory_id) + ", " + Grouped(move.before.nbytes) +
                   " -> " + Grouped(move.after.nbytes) + " bytes)");
        }
        const FrontRegion* front = plan_.front(move.before.memory_id);
        if (plan_.strategy == Strategy::kRelocate && front == nullptr &&
            !IsLeftBy(move.before.memory_id) && move.after != move.before) {
          Fail(Invariant::kSameShape,
               ValueLabel(m.name, move.value_index) + " moves in arena " +
                   std::to_string(move.before.memory_id) +
                   ", which has no front region and no shared buffer leaves");
        }
      }
      if (ok && k != m.moves.size()) {
        Fail(Invariant::kSameShape, "method " + in.name + ": the plan lists " +
                                        std::to_string(m.moves.size()) +
                                        " tensors, the program plans " + std::to_string(k));
        ok = false;
      }
    }
    return ok;
  }

  // I1/I4 for the fronts themselves: aligned, disjoint slots inside [0, F).
  void CheckFronts() {
    for (const FrontRegion& f : plan_.fronts) {
      uint64_t previous_end = 0;
      for (const FrontSlot& s : f.slots) {
        if (s.offset % plan_.alignment != 0) {
          Fail(Invariant::kFitsAndAligned,
               "arena " + std::to_string(f.memory_id) + ": slot of '" + s.name + "' at offset " +
                   Grouped(s.offset) + " is not aligned to " + std::to_string(plan_.alignment));
        }
        if (s.offset < previous_end || s.offset + s.nbytes > f.size) {
          Fail(Invariant::kSharedPlacement, "arena " + std::to_string(f.memory_id) + ": slot of '" +
                                                s.name + "' " + ByteRangeText(s.offset, s.nbytes) +
                                                " overlaps another or leaves the front [0, " +
                                                Grouped(f.size) + ")");
        }
        previous_end = s.offset + s.nbytes;
      }
    }
  }

  // What the checks of one method need, found once per method: which
  // buffers it has, which slots those are, and which tensors the program
  // shows to be aliases of them (alias_evidence.h, from the input).
  void LearnMethod(const MethodPlan& m) {
    const MethodView& in = view_.methods[m.method_index];
    has_slot_.clear();
    std::vector<BufferInMethod> buffers;
    for (size_t i = 0; i < shared_.buffers.size(); ++i) {
      const auto& value = shared_.buffers[i].value_in_method[m.method_index];
      if (!value) continue;
      buffers.push_back({i, *value});
      if (slot_of_buffer_[i] != nullptr) has_slot_.insert(slot_of_buffer_[i]);
    }
    aliases_ = FindSharedAliases(in, buffers);
  }

  // I1: the buffer sits in its slot in every method that has it.
  void CheckSharedPlacements(const MethodPlan& m) {
    for (const SharedBuffer& b : shared_.buffers) {
      const auto& value = b.value_in_method[m.method_index];
      if (!value) continue;
      const FrontSlot* slot = slot_of_buffer_[static_cast<size_t>(&b - shared_.buffers.data())];
      const TensorMove* move = m.Find(*value);
      if (slot == nullptr || move == nullptr) {
        Fail(
            Invariant::kSharedPlacement,
            "shared buffer '" + b.name + "' has no front slot or no placement in method " + m.name);
        continue;
      }
      const uint32_t arena =
          region_of_buffer_[static_cast<size_t>(&b - shared_.buffers.data())]->memory_id;
      Placement expected{arena, slot->offset, b.nbytes};
      if (move->after != expected || move->before.memory_id != b.memory_id) {
        Fail(Invariant::kSharedPlacement,
             ValueLabel(m.name, *value) + " ('" + b.name + "'): placed at arena " +
                 std::to_string(move->after.memory_id) + " " +
                 ByteRangeText(move->after.offset, move->after.nbytes) + ", its slot is arena " +
                 std::to_string(arena) + " " + ByteRangeText(slot->offset, b.nbytes));
      }
    }
  }

  // The method (LearnMethod's) has the buffer of this slot.
  bool MethodHas(const FrontSlot& slot) const { return has_slot_.count(&slot) != 0; }

  bool MethodUsesArena(const MethodPlan& m, uint32_t memory_id) const {
    const FrontRegion* f = plan_.front(memory_id);
    if (f != nullptr && f->state_arena) return true;  // every method gets it
    if (memory_id == 0 || memory_id > m.arena_sizes_before.size()) return false;
    if (m.arena_sizes_before[memory_id - 1] > 0) return true;
    return std::any_of(m.moves.begin(), m.moves.end(), [&](const TensorMove& move) {
      return move.before.memory_id == memory_id && move.before.nbytes > 0;
    });
  }

  // I2: only a shared buffer the method has and the tensors the program
  // shows to be its aliases touch a front, each inside that buffer's slot;
  // the slot of a buffer the method lacks stays empty.
  void CheckFrontRegionsFree(const MethodPlan& m) {
    for (const FrontRegion& f : plan_.fronts) {
      if (!MethodUsesArena(m, f.memory_id)) continue;
      for (const TensorMove& move : m.moves) {
        const Placement& p = move.after;
        // A state arena is all front: everything in it is checked.
        if (p.memory_id != f.memory_id || p.nbytes == 0 || (!f.state_arena && p.offset >= f.size)) {
          continue;
        }
        const int32_t buffer = move.value_index < aliases_.buffer_of.size()
                                   ? aliases_.buffer_of[move.value_index]
                                   : -1;
        const FrontSlot* slot =
            buffer >= 0 ? slot_of_buffer_[static_cast<size_t>(buffer)] : nullptr;
        if (slot != nullptr && p.offset >= slot->offset && p.end() <= slot->offset + slot->nbytes) {
          continue;
        }
        Fail(Invariant::kFrontRegionFree,
             ValueLabel(m.name, move.value_index) + " " + ByteRangeText(p.offset, p.nbytes) +
                 " enters the front region [0, " + Grouped(f.size) + ") of arena " +
                 std::to_string(f.memory_id) +
                 (buffer >= 0 ? ", outside the slot of the buffer it aliases" : ""));
      }
    }
  }

  // I4: fits the new arena size; aligned offsets stay aligned.
  void CheckFitAndAlignment(const MethodPlan& m) {
    for (const TensorMove& move : m.moves) {
      const Placement& p = move.after;
      if (p.memory_id == 0 || p.memory_id > m.arena_sizes_after.size()) continue;  // I5 said
      uint64_t size = m.arena_sizes_after[p.memory_id - 1];
      if (p.end() > size || p.end() < p.offset) {
        Fail(Invariant::kFitsAndAligned, ValueLabel(m.name, move.value_index) + ": offset " +
                                             Grouped(p.offset) + " + " + Grouped(p.nbytes) +
                                             " bytes > arena " + std::to_string(p.memory_id) +
                                             " size " + Grouped(size));
      }
      if (move.before.offset % plan_.alignment == 0 && p.offset % plan_.alignment != 0) {
        Fail(Invariant::kFitsAndAligned, ValueLabel(m.name, move.value_index) + ": offset " +
                                             Grouped(p.offset) + " loses the alignment " +
                                             std::to_string(plan_.alignment));
      }
    }
  }

  // Full I3, with the input's lifetimes: tensors live at the same time (over
  // their alias groups' ranges) share bytes in the output only if they did
  // in the input, at the same relative offset.
  void CheckLiveOverlaps(const MethodPlan& m) {
    const MethodView& in = view_.methods[m.method_index];
    MethodLifetimes computed;
    const MethodLifetimes& lifetimes =
        LifetimesOf(lifetimes_, in, SharedValues(in, shared_), LowerBound::kSkip, &computed);
    if (!lifetimes.too_complex.empty()) {
      Fail(Invariant::kOverlapsKept,
           "method " + m.name + ": lifetimes not checked: " + lifetimes.too_complex);
      return;
    }
    // As in CheckOverlapsPreserved: moves alike in life, before and after
    // are checked once, the first of them. Found by sorting their keys (with
    // the move's position, so the first sorts first), not by a set of keys:
    // a node per move.
    using Alike = std::tuple<int64_t, int64_t, uint64_t, uint64_t, uint64_t>;
    std::vector<std::pair<Alike, size_t>> keys;
    keys.reserve(m.moves.size());
    for (size_t k = 0; k < m.moves.size(); ++k) {
      const TensorMove& move = m.moves[k];
      if (move.before.nbytes > 0 && move.value_index < lifetimes.group_of.size() &&
          lifetimes.group_of[move.value_index] >= 0) {
        const LiveRange& live = lifetimes.group_live(move.value_index);
        keys.push_back(
            {{live.first, live.last, move.before.offset, move.before.nbytes, move.after.offset},
             k});
      }
    }
    std::sort(keys.begin(), keys.end());
    std::vector<bool> checked(m.moves.size(), false);
    for (size_t k = 0; k < keys.size(); ++k) {
      if (k == 0 || keys[k].first != keys[k - 1].first) checked[keys[k].second] = true;
    }
    std::map<uint32_t, std::vector<const TensorMove*>> by_arena;
    for (size_t k = 0; k < m.moves.size(); ++k) {
      if (checked[k]) by_arena[m.moves[k].after.memory_id].push_back(&m.moves[k]);
    }
    for (const auto& [memory_id, moves] : by_arena) {
      std::vector<LiveRect> rects;
      rects.reserve(moves.size());
      for (const TensorMove* move : moves) {
        const LiveRange& live = lifetimes.group_live(move->value_index);
        rects.push_back({live.first, live.last, move->after.offset, move->after.end()});
      }
      for (const auto& [i, j] : FindLiveOverlaps(rects)) {
        const TensorMove& a = *moves[i];
        const TensorMove& b = *moves[j];
        const bool overlapped =
            a.before.memory_id == b.before.memory_id &&
            BytesOverlap(a.before.offset, a.before.nbytes, b.before.offset, b.before.nbytes);
        const int64_t was = static_cast<int64_t>(a.before.offset - b.before.offset);
        const int64_t now = static_cast<int64_t>(a.after.offset - b.after.offset);
        if (overlapped && was == now) continue;
        const LiveRange& la = lifetimes.group_live(a.value_index);
        const LiveRange& lb = lifetimes.group_live(b.value_index);
        Fail(Invariant::kOverlapsKept,
             "method " + m.name + ": values " + std::to_string(a.value_index) + " " +
                 ByteRangeText(a.after.offset, a.after.nbytes) + " live [" +
                 std::to_string(la.first) + ", " + std::to_string(la.last) + "] and " +
                 std::to_string(b.value_index) + " " +
                 ByteRangeText(b.after.offset, b.after.nbytes) + " live [" +
                 std::to_string(lb.first) + ", " + std::to_string(lb.last) +
                 "] share bytes of arena " + std::to_string(memory_id) + " while both live" +
                 (overlapped ? "; in the input they overlapped at relative offset " +
                                   std::to_string(was) + ", now " + std::to_string(now)
                             : "; in the input they did not overlap"));
      }
    }
  }

  // I6: relocate grows an arena by at most the slots the method lacks;
  // replan and best are never larger than relocate.
  void CheckGrowth(const MethodPlan& m) {
    for (size_t i = 0; i < m.arena_sizes_after.size(); ++i) {
      const uint32_t memory_id = static_cast<uint32_t>(i + 1);
      const FrontRegion* f = plan_.front(memory_id);
      if (i >= m.arena_sizes_before.size()) {
        // A new arena: a state arena is its front, an arena before it empty.
        const uint64_t want = f != nullptr ? f->size : 0;
        if (m.arena_sizes_after[i] != want) {
          Fail(Invariant::kNoGrowth,
               "method " + m.name + ": new arena " + std::to_string(memory_id) + " takes " +
                   Grouped(m.arena_sizes_after[i]) + " bytes, not " + Grouped(want));
        }
        continue;
      }
      uint64_t allowed = m.arena_sizes_before[i];
      if (f != nullptr && MethodUsesArena(m, memory_id)) {
        for (const FrontSlot& s : f->slots) {
          // A slot the method has may still add its alignment padding
          // (design.md I6): with --alignment above the input's, the slot
          // is larger than the buffer whose place it takes.
          allowed += MethodHas(s) ? s.slot_bytes - std::min(s.slot_bytes, s.nbytes) : s.slot_bytes;
        }
      }
      if (plan_.strategy == Strategy::kRelocate) {
        if (m.arena_sizes_after[i] > allowed) {
          Fail(Invariant::kNoGrowth,
               "method " + m.name + ": arena " + std::to_string(memory_id) + " grows from " +
                   Grouped(m.arena_sizes_before[i]) + " to " + Grouped(m.arena_sizes_after[i]) +
                   " bytes, more than the " + Grouped(allowed) + " its missing slots allow");
        }
        continue;
      }
      // Relocate's size as the plan states it, itself held to relocate's rule.
      uint64_t relocate = allowed;
      if (i < m.arena_sizes_relocate.size()) {
        if (m.arena_sizes_relocate[i] > allowed) {
          Fail(Invariant::kNoGrowth, "method " + m.name + ": arena " + std::to_string(memory_id) +
                                         ": relocate's size " + Grouped(m.arena_sizes_relocate[i]) +
                                         " is more than the " + Grouped(allowed) +
                                         " bytes its missing slots allow");
        }
        relocate = std::min(relocate, m.arena_sizes_relocate[i]);
      }
      if (m.arena_sizes_after[i] > relocate) {
        Fail(Invariant::kNoGrowth, "method " + m.name + ": arena " + std::to_string(memory_id) +
                                       " takes " + Grouped(m.arena_sizes_after[i]) +
                                       " bytes with " + StrategyName(plan_.strategy) +
                                       ", more than relocate's " + Grouped(relocate));
      }
    }
  }

  const ProgramView& view_;
  const SharedBufferSet& shared_;
  const Plan& plan_;
  InputLifetimes* lifetimes_;  // may be null: computed per method
  std::vector<PlanViolation> violations_;
  /// Indexed like shared_.buffers.
  std::vector<const FrontSlot*> slot_of_buffer_;
  std::vector<const FrontRegion*> region_of_buffer_;
  size_t most_arenas_ = 0;
  std::set<std::pair<uint32_t, uint32_t>> state_arena_sources_;  // (state arena, source)
  std::set<uint32_t> left_arenas_;
  // Of the method being checked (LearnMethod).
  std::set<const FrontSlot*> has_slot_;
  SharedAliases aliases_;
};

}  // namespace

std::vector<PlanViolation> VerifyPlan(const ProgramView& view, const SharedBufferSet& shared,
                                      const Plan& plan, InputLifetimes* lifetimes) {
  return Checker(view, shared, plan, lifetimes).Run();
}

}  // namespace pteshare
