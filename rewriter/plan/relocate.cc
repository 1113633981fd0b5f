#include "rewriter/plan/relocate.h"

#include "rewriter/plan/front_region.h"
#include "rewriter/plan/state_arena.h"

#include <algorithm>

namespace pteshare {
namespace {

// A shared buffer as this method holds it: where it was, where it goes
// (the slot, in arena `to_memory_id`: the same arena with Layout::kFront,
// its device's state arena with Layout::kArena).
struct PresentBuffer {
  Placement input;
  const FrontSlot* slot;
  uint32_t to_memory_id = 0;
};

// Everything needed to move the tensors of one arena of one method.
struct ArenaRelocation {
  /// The arena's own front region (0 for an arena the buffers only leave).
  uint64_t front_size = 0;
  bool has_own_front = false;
  // Free space below the lowest moved tensor once the vacated slots are
  // taken out: min over moved tensors of (offset - ReclaimedBelow(offset)).
  uint64_t floor = 0;
  // Sorted by input offset. ChooseSharedBuffers refuses shared buffers that
  // overlap, so their ends are in the same order: both questions below are
  // a binary search, not a scan of every buffer per tensor.
  std::vector<PresentBuffer> present;
  // reclaimed_before[k]: the slots of present[0, k).
  std::vector<uint64_t> reclaimed_before;
  // Non-empty tensors that are not inside a shared buffer, as [offset, end)
  // sorted by offset, with the running maximum of their ends: answers "is
  // this point inside some moved tensor?" for zero-byte tensors.
  std::vector<std::pair<uint64_t, uint64_t>> moved_ranges;
  std::vector<uint64_t> max_end_so_far;

  const PresentBuffer* Containing(uint64_t offset) const {
    // The last buffer starting at or below `offset` is the only candidate.
    auto it = std::partition_point(present.begin(), present.end(), [&](const PresentBuffer& b) {
      return b.input.offset <= offset;
    });
    if (it == present.begin() || offset >= std::prev(it)->input.end()) return nullptr;
    return &*std::prev(it);
  }
  // Slots of the shared buffers that end at or below `offset`.
  uint64_t ReclaimedBelow(uint64_t offset) const {
    auto it = std::partition_point(present.begin(), present.end(),
                                   [&](const PresentBuffer& b) { return b.input.end() <= offset; });
    return reclaimed_before[static_cast<size_t>(it - present.begin())];
  }
  uint64_t ReclaimedTotal() const { return reclaimed_before.back(); }
  bool InsideMovedTensor(uint64_t offset) const {
    auto it = std::upper_bound(moved_ranges.begin(), moved_ranges.end(),
                               std::make_pair(offset, UINT64_MAX));
    if (it == moved_ranges.begin()) return false;
    return max_end_so_far[static_cast<size_t>(it - moved_ranges.begin()) - 1] > offset;
  }
};

// The arena `memory_id` of `method`: its own front (if any) and the shared
// buffers that lie in it in the input, wherever their slots are.
ArenaRelocation PrepareArena(const MethodView& method, const SharedBufferSet& shared,
                             const std::vector<FrontRegion>& fronts,
                             const std::vector<BufferSlot>& slots, uint32_t memory_id) {
  ArenaRelocation arena;
  for (const FrontRegion& front : fronts) {
    if (front.memory_id == memory_id) {
      arena.front_size = front.size;
      arena.has_own_front = true;
    }
  }
  for (size_t i = 0; i < shared.buffers.size(); ++i) {
    const std::optional<uint32_t>& value = shared.buffers[i].value_in_method[method.index];
    const BufferSlot& slot = slots[i];
    if (!value || slot.slot == nullptr || slot.slot->source_memory_id != memory_id) continue;
    arena.present.push_back({method.tensor(*value)->placement, slot.slot, slot.region->memory_id});
  }
  std::sort(arena.present.begin(), arena.present.end(),
            [](const PresentBuffer& a, const PresentBuffer& b) {
              return a.input.offset < b.input.offset;
            });
  arena.reclaimed_before.push_back(0);
  for (const PresentBuffer& b : arena.present) {
    arena.reclaimed_before.push_back(arena.reclaimed_before.back() + b.slot->slot_bytes);
  }
  for (const TensorValue& t : method.tensors) {
    if (!t.planned || t.nbytes == 0 || t.placement.memory_id != memory_id) continue;
    if (arena.Containing(t.placement.offset) != nullptr) continue;
    arena.moved_ranges.emplace_back(t.placement.offset, t.placement.end());
  }
  std::sort(arena.moved_ranges.begin(), arena.moved_ranges.end());
  uint64_t running = 0;
  for (const auto& [offset, end] : arena.moved_ranges) {
    running = std::max(running, end);
    arena.max_end_so_far.push_back(running);
  }
  if (!arena.moved_ranges.empty()) {
    arena.floor = UINT64_MAX;
    for (const auto& [offset, end] : arena.moved_ranges) {
      arena.floor = std::min(arena.floor, offset - arena.ReclaimedBelow(offset));
    }
  }
  return arena;
}

Placement NewPlacement(const ArenaRelocation& arena, const TensorValue& t) {
  Placement p = t.placement;
  const uint64_t offset = t.placement.offset;
  if (const PresentBuffer* buffer = arena.Containing(offset)) {
    p.memory_id = buffer->to_memory_id;  // the buffer or an alias
    p.offset = buffer->slot->offset + (offset - buffer->input.offset);
  } else if (t.nbytes > 0 || arena.InsideMovedTensor(offset)) {  // else nothing to follow
    p.offset = offset + arena.front_size - arena.ReclaimedBelow(offset) - arena.floor;
  }
  return p;
}

}  // namespace

MethodPlan RelocateMethod(const MethodView& method, const SharedBufferSet& shared,
                          const std::vector<FrontRegion>& fronts) {
  MethodPlan plan;
  plan.name = method.name;
  plan.method_index = method.index;
  for (const Arena& a : method.arenas) plan.arena_sizes_before.push_back(a.size);
  plan.arena_sizes_after = plan.arena_sizes_before;
  const size_t count_after = ArenaCountAfter(method, fronts);
  // A state arena the method did not have is as large as its front; the
  // empty arenas before it (to reach the common memory_id) take nothing.
  plan.arena_sizes_after.resize(count_after, 0);
  for (const FrontRegion& front : fronts) {
    // (Not in a method that plans nothing: it keeps its arenas.)
    if (front.state_arena && front.memory_id > method.arenas.size() &&
        front.memory_id <= count_after) {
      plan.arena_sizes_after[front.memory_id - 1] = front.size;
    }
  }

  const std::vector<BufferSlot> slots = FindBufferSlots(shared, fronts);
  std::vector<std::optional<ArenaRelocation>> arenas(method.arenas.size());
  for (const Arena& a : method.arenas) {
    ArenaRelocation arena = PrepareArena(method, shared, fronts, slots, a.memory_id);
    // An arena with a front is rearranged wherever the method uses it; one
    // the buffers only leave, where the method has some of them.
    if (arena.has_own_front ? UsesArena(method, a.memory_id) : !arena.present.empty()) {
      arenas[a.memory_id - 1] = std::move(arena);
    }
  }
  std::vector<uint64_t> highest_end(count_after, 0);
  for (const TensorValue& t : method.tensors) {
    if (!t.planned) continue;
    TensorMove move{t.value_index, t.placement, t.placement};
    uint32_t id = t.placement.memory_id;
    if (id >= 1 && id <= arenas.size() && arenas[id - 1]) {
      move.after = NewPlacement(*arenas[id - 1], t);
      highest_end[move.after.memory_id - 1] =
          std::max(highest_end[move.after.memory_id - 1], move.after.end());
    }
    plan.moves.push_back(move);
  }
  for (size_t i = 0; i < arenas.size(); ++i) {
    if (!arenas[i]) continue;
    // Keep whatever size the exporter folded in that no tensor shows (tail
    // padding): grow by the front, give back the slots the method vacated
    // and the free space below its lowest moved tensor.
    uint64_t grown = plan.arena_sizes_before[i] + arenas[i]->front_size;
    uint64_t given_back = arenas[i]->ReclaimedTotal() + arenas[i]->floor;
    uint64_t size = grown > given_back ? grown - given_back : 0;
    if (arenas[i]->moved_ranges.empty()) {
      // Only shared buffers here, all going to the front: the arena needs
      // the front and keeps its size. The arithmetic above would count a
      // slot an earlier rewrite kept free (for a buffer this method lacks)
      // as tail padding and grow the arena again on every rewrite (I7).
      // An arena the buffers only leave keeps nothing.
      size = arenas[i]->has_own_front ? std::max(plan.arena_sizes_before[i], arenas[i]->front_size)
                                      : 0;
    }
    plan.arena_sizes_after[i] = std::max(size, highest_end[i]);
  }
  return plan;
}

}  // namespace pteshare
