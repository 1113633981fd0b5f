#include "rewriter/verify/state_arena_checks.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "rewriter/verify/overlaps_kept.h"

namespace pteshare {

// I5 for the layout: front regions only with Layout::kFront, each in the
// arena its buffers come from; with Layout::kArena one state arena per
// device, each new one numbered from one past the most arenas any method
// had, or an arena that already holds nothing but its buffers; its device
// the device of every arena its buffers leave, in every method.
std::vector<PlanViolation> CheckStateArenaLayout(const ProgramView& view, const Plan& plan,
                                                 size_t most_arenas) {
  std::vector<PlanViolation> violations;
  auto fail = [&](Invariant invariant, std::string message) {
    violations.push_back({invariant, std::move(message)});
  };
  uint32_t next_new = static_cast<uint32_t>(most_arenas) + 1;
  std::set<std::pair<int, int>> devices;
  for (const FrontRegion& f : plan.fronts) {
    const std::string arena = "arena " + std::to_string(f.memory_id);
    if (f.state_arena != (plan.layout == Layout::kArena)) {
      fail(Invariant::kSameShape, arena + ": a " +
                                      (f.state_arena ? "state arena" : "front region") +
                                      " in a plan of layout " + LayoutName(plan.layout));
      continue;
    }
    if (!f.state_arena) {
      for (const FrontSlot& s : f.slots) {
        if (s.source_memory_id != f.memory_id) {
          fail(Invariant::kSharedPlacement, arena + ": slot of '" + s.name +
                                                "' takes a buffer of arena " +
                                                std::to_string(s.source_memory_id));
        }
      }
      continue;
    }
    if (!devices.insert({static_cast<int>(f.device), f.device_index}).second) {
      fail(Invariant::kSameShape, arena + ": a second state arena on the same device");
    }
    if (f.memory_id > most_arenas) {
      if (f.memory_id != next_new) {
        fail(Invariant::kSameShape,
             arena + ": a new state arena must be arena " + std::to_string(next_new));
      }
      next_new = f.memory_id + 1;
    } else {
      for (const FrontSlot& s : f.slots) {
        if (s.source_memory_id != f.memory_id) {
          fail(Invariant::kSameShape, arena + ": an arena of the input taken as state arena for '" +
                                          s.name + "' of arena " +
                                          std::to_string(s.source_memory_id));
        }
      }
    }
    for (const MethodView& in : view.methods) {
      for (const FrontSlot& s : f.slots) {
        const Arena* source = in.arena(s.source_memory_id);
        if (source != nullptr &&
            (source->device != f.device || source->device_index != f.device_index)) {
          fail(Invariant::kSameShape, "method " + in.name + ": '" + s.name + "' leaves arena " +
                                          std::to_string(s.source_memory_id) + " for " + arena +
                                          " on another device");
        }
      }
    }
  }
  return violations;
}

// I1 for aliases with Layout::kArena: every tensor that lay inside a
// shared buffer (ChooseSharedBuffers let only its aliases be there) goes
// with it to the state arena, at the same offset relative to the buffer.
std::vector<PlanViolation> CheckAliasesFollow(
    const MethodView& in, const MethodPlan& m, const SharedBufferSet& shared,
    const std::vector<const FrontSlot*>& slot_of_buffer,
    const std::vector<const FrontRegion*>& region_of_buffer) {
  std::vector<PlanViolation> violations;
  auto fail = [&](Invariant invariant, std::string message) {
    violations.push_back({invariant, std::move(message)});
  };
  // The non-empty moves by input (arena, offset): each buffer finds the
  // moves that start inside it by a binary search, not a pass over all.
  std::vector<size_t> by_start;
  for (size_t k = 0; k < m.moves.size(); ++k) {
    if (m.moves[k].before.nbytes > 0) by_start.push_back(k);
  }
  auto start = [&](size_t k) {
    return std::make_pair(m.moves[k].before.memory_id, m.moves[k].before.offset);
  };
  std::sort(by_start.begin(), by_start.end(),
            [&](size_t a, size_t b) { return start(a) < start(b); });
  std::vector<std::pair<size_t, size_t>> inside;  // (buffer, move)
  for (size_t i = 0; i < shared.buffers.size(); ++i) {
    const SharedBuffer& b = shared.buffers[i];
    const FrontRegion* region = region_of_buffer[i];
    const auto& value = b.value_in_method[m.method_index];
    if (region == nullptr || !region->state_arena || !value) continue;
    const Placement& buffer = in.tensor(*value)->placement;
    auto it = std::partition_point(by_start.begin(), by_start.end(), [&](size_t k) {
      return start(k) < std::make_pair(buffer.memory_id, buffer.offset);
    });
    for (; it != by_start.end() && start(*it) < std::make_pair(buffer.memory_id, buffer.end());
         ++it) {
      if (m.moves[*it].before.end() <= buffer.end()) inside.emplace_back(i, *it);
    }
  }
  std::sort(inside.begin(), inside.end());  // buffer by buffer, each in move order
  for (const auto& [i, k] : inside) {
    const TensorMove& move = m.moves[k];
    const Placement& p = move.before;
    const Placement& buffer =
        in.tensor(*shared.buffers[i].value_in_method[m.method_index])->placement;
    const Placement want{region_of_buffer[i]->memory_id,
                         slot_of_buffer[i]->offset + (p.offset - buffer.offset), p.nbytes};
    if (move.after != want) {
      fail(Invariant::kSharedPlacement,
           ValueLabel(m.name, move.value_index) + " lies inside '" + shared.buffers[i].name +
               "' but goes to arena " + std::to_string(move.after.memory_id) + " " +
               ByteRangeText(move.after.offset, move.after.nbytes) + ", not with it to arena " +
               std::to_string(want.memory_id) + " " + ByteRangeText(want.offset, want.nbytes));
    }
  }
  return violations;
}

}  // namespace pteshare
