// Plan: the new placement of every planned tensor of every method, and the
// new arena sizes, produced by a strategy (relocate, replan, best) and
// checked by the PlanVerifier before anything is written.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rewriter/program/program_view.h"

namespace pteshare {

/// Replan's block planner effort per arena, in deterministic steps, unless
/// PlanOptions says otherwise.
inline constexpr uint64_t kDefaultReplanMaxSteps = 20'000'000;

/// Where the shared buffers go (docs/design.md, "Layouts").
enum class Layout {
  /// At the front of the arena each buffer is in already.
  kFront,
  /// In an arena of their own, one per device that holds shared buffers:
  /// the next memory_id, in every method; the arenas they leave are
  /// compacted or replanned without them.
  kArena,
};

/// "front", "arena" (plan.cc).
const char* LayoutName(Layout layout);
/// The layout called `name`, or nullopt.
std::optional<Layout> ParseLayout(std::string_view name);

/// How the other tensors make room for the front regions.
enum class Strategy {
  /// Shift by a translation that keeps every overlap (relocate.h); needs no
  /// lifetimes; leaves arenas without a front alone.
  kRelocate,
  /// Plan every arena again from the lifetimes (replan.h). Where that would
  /// be larger than relocate, the arena takes relocate's layout (I6).
  kReplan,
  /// Per method and arena the smaller of the two (relocate on ties, as it
  /// moves less).
  kBest,
};

/// "relocate", "replan", "best" (plan.cc).
const char* StrategyName(Strategy strategy);
/// The strategy called `name`, or nullopt.
std::optional<Strategy> ParseStrategy(std::string_view name);

/// One shared buffer's place at the front of its arena, the same in every
/// method.
struct FrontSlot {
  std::string name;
  /// The arena the buffer is in, in the input: the region's own arena with
  /// Layout::kFront; with Layout::kArena the arena it leaves (or the state
  /// arena itself, when an earlier rewrite already moved it there).
  uint32_t source_memory_id = 0;
  uint64_t offset = 0;  // aligned to the plan alignment
  uint64_t nbytes = 0;
  /// Bytes the slot takes in the front region: nbytes rounded up to the
  /// alignment, so whatever follows stays aligned.
  uint64_t slot_bytes = 0;
  /// A private buffer's slot (SharedBuffer::private_state): one method's
  /// state that the others keep clear of.
  bool private_state = false;
};

/// [0, size) of arena memory_id, holding that arena's shared buffers in
/// sorted-name order. Every method that uses the arena keeps all of it free
/// of other tensors, even a method that lacks some of the buffers.
///
/// With Layout::kArena the region is a whole arena that holds nothing but
/// shared buffers and their aliases (a state arena): its size is F in every
/// method, also in methods that lack some (or all) of its buffers.
struct FrontRegion {
  uint32_t memory_id = 0;
  uint64_t size = 0;  // F: the sum of the slots
  std::vector<FrontSlot> slots;
  /// Layout::kArena: the arena holds the front and nothing else.
  bool state_arena = false;
  /// The device of the arena (the device of the arenas its buffers leave).
  DeviceType device = DeviceType::kCpu;
  int8_t device_index = 0;

  /// How many of the slots are private state's (FrontSlot::private_state).
  size_t private_slots() const {
    return static_cast<size_t>(std::count_if(slots.begin(), slots.end(),
                                             [](const FrontSlot& s) { return s.private_state; }));
  }
};

/// Where one planned tensor was and where it goes.
struct TensorMove {
  uint32_t value_index = 0;
  Placement before;
  Placement after;

  bool moved() const { return before.offset != after.offset; }
};

struct MethodPlan {
  std::string name;
  uint32_t method_index = 0;
  /// Arena sizes, indexed by memory_id - 1.
  std::vector<uint64_t> arena_sizes_before;
  std::vector<uint64_t> arena_sizes_after;
  /// Every planned tensor of the method, in value-index order.
  std::vector<TensorMove> moves;

  /// The move of value `value_index`, or nullptr (a binary search: moves
  /// are in value-index order).
  const TensorMove* Find(uint32_t value_index) const;

  /// How many planned tensors get a new offset.
  size_t moved_count() const {
    size_t moved = 0;
    for (const TensorMove& move : moves) moved += move.moved() ? 1 : 0;
    return moved;
  }

  // What the strategies give per arena (indexed by memory_id - 1), for the
  // report and the verifier's I6. arena_sizes_relocate is always filled;
  // the others only when replan ran (strategy replan or best, or a
  // comparison was asked for).
  std::vector<uint64_t> arena_sizes_relocate{};
  /// Unset where replan left the arena alone.
  std::vector<std::optional<uint64_t>> arena_sizes_replan{};
  /// Largest total live at one instruction, front included.
  std::vector<uint64_t> arena_lower_bounds{};
  /// Where each arena's placements come from: kRelocate or kReplan.
  std::vector<Strategy> arena_strategies{};
};

struct Plan {
  Strategy strategy = Strategy::kRelocate;
  Layout layout = Layout::kFront;
  uint64_t alignment = 16;
  std::vector<FrontRegion> fronts;  // by memory_id
  std::vector<MethodPlan> methods;  // same order as ProgramView::methods
  /// Things a user should know that do not stop the plan (initial state
  /// re-copied on load, arenas ExecuTorch's Module does not share).
  std::vector<std::string> warnings;
  /// Arenas that exceed an --arena-limit in every plan found, one line
  /// each with the numbers. A plan with misses must not be written.
  std::vector<std::string> limit_misses{};
  /// Set when --share-auto found nothing to share, saying why ("only
  /// method forward has mutable state"); the plan still shrinks arenas.
  std::string nothing_to_share{};

  const FrontRegion* front(uint32_t memory_id) const {
    for (const FrontRegion& f : fronts) {
      if (f.memory_id == memory_id) return &f;
    }
    return nullptr;
  }
};

}  // namespace pteshare
