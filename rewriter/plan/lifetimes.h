// Lifetimes: when each planned tensor of a method is live, in instruction
// time, and which tensors must move together (alias groups). These are
// facts of the input program; replan plans with them and the plan verifier
// checks full I3 with them, each on its own.
//
// Time is the instruction index over the method's chains, chain after
// chain. A tensor is live over [first, last], the first and last
// instruction that references it: KernelCall and DelegateCall args, the
// items of a TensorList / OptionalTensorList arg, MoveCall from and to,
// FreeCall, JumpFalseCall's condition. Then:
//  - plan inputs are live from instruction 0, plan outputs to the last one;
//  - mutable buffers (initial state or a name), the values the caller says
//    are shared, and tensors no instruction, input or output references
//    (nothing says when they are free) are live always;
//  - a MoveCall's destination refers to the source's memory: both are live
//    over the union of their ranges (chains of moves too), and in one
//    group when they share an arena;
//  - a backward JumpFalseCall re-runs [destination, jump]: a tensor live
//    anywhere inside is live across the whole loop (overlapping loops act
//    as one).
// Zero-byte tensors are not planned: they get no range and no group.
//
// What the exporter leaves implicit:
//  - a KernelCall's args are the schema args followed by the return values
//    again, so the values of the repeated tail are written by that call
//    (the tail is the longest suffix that repeats the args just before it);
//  - a static view is a separate value with its base's placement and size
//    and no instruction linking them: a tensor whose first reference does
//    not write it (or that no instruction references but the caller reads
//    as an output), that is not a plan input and has no initial state,
//    aliases an earlier value (by index) with the same placement and
//    nbytes, or failing that one whose bytes contain its own (a view with
//    an offset); of several, the latest to become live no later than the
//    view's first read (the one whose bytes it reads);
//  - tensors whose input placements overlap while they are live at the
//    same time are one alias group (in-place results).
// When unsure, merge: a group costs bytes, never correctness. A group moves
// as one rigid block: its members keep their offsets relative to each other
// and it is live over the union of their ranges.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "rewriter/program/program_view.h"
#include "rewriter/share/shared_buffers.h"

namespace pteshare {

/// An inclusive range of instruction indices, [first, last]: the first and
/// the last instruction that touch the tensor, as the instruction stream
/// names them. The block planner's Lifespan (blockplan/problem.h) is
/// half-open; replan.cc converts once, as [first, last + 1).
struct LiveRange {
  int64_t first = 0;
  int64_t last = 0;

  bool Overlaps(const LiveRange& other) const { return first <= other.last && other.first <= last; }
  void Cover(const LiveRange& other) {
    first = std::min(first, other.first);
    last = std::max(last, other.last);
  }
  bool operator==(const LiveRange&) const = default;
};

/// Tensors that move as one rigid block. Invariant: all members are planned,
/// non-empty and in arena memory_id.
struct AliasGroup {
  uint32_t memory_id = 0;
  /// Value indices, ascending.
  std::vector<uint32_t> members;
  /// The union of the members' ranges.
  LiveRange live;
  /// [offset, end) covers every member's input placement.
  uint64_t offset = 0;
  uint64_t end = 0;
};

struct MethodLifetimes {
  /// Instructions over all chains; time runs over [0, max(count - 1, 0)].
  int64_t instruction_count = 0;
  /// Indexed by value index; meaningful for planned non-empty tensors.
  std::vector<LiveRange> live;
  /// Indexed by value index: the tensor's group in `groups`, or -1 (not a
  /// planned non-empty tensor).
  std::vector<int32_t> group_of;
  /// Ordered by lowest member value index.
  std::vector<AliasGroup> groups;
  /// Indexed by value index: `live` in doubled time, where instruction t
  /// reads at 2t and writes at 2t + 1, so that a DelegateCall's inputs can
  /// die before its outputs are born (the exporter plans them so).
  std::vector<LiveRange> moments;
  /// Indexed by memory_id - 1: the most bytes live at one moment, the union
  /// of the live tensors' input ranges (PeakLiveBytesPerArena with nothing
  /// left out). No plan that keeps each group rigid is smaller, and a valid
  /// input arena is never smaller. Empty with LowerBound::kSkip.
  std::vector<uint64_t> lower_bound;

  /// Set when the method passes a work limit (a hostile program): why. The
  /// lifetimes are then incomplete and must not be planned with.
  std::string too_complex;

  int64_t last_instruction() const { return instruction_count > 0 ? instruction_count - 1 : 0; }
  /// The range a planned non-empty tensor occupies its bytes: its group's.
  const LiveRange& group_live(uint32_t value_index) const {
    return groups[static_cast<size_t>(group_of[value_index])].live;
  }
};

/// The most comparisons the static-view rule may spend on views at an offset
/// into another tensor in one method (about n x views); past it the
/// lifetimes say `too_complex`. Real programs need a tiny fraction of it.
inline constexpr uint64_t kMaxContainmentWork = 200'000'000;

/// Whether ComputeLifetimes fills `lower_bound`: the verifier needs only the
/// groups and ranges, and the bound is a sweep over every tensor.
enum class LowerBound { kCompute, kSkip };

/// Lifetimes and alias groups of `method`. `always_live` lists value
/// indices to keep live throughout (the shared buffers).
MethodLifetimes ComputeLifetimes(const MethodView& method,
                                 const std::vector<uint32_t>& always_live = {},
                                 LowerBound lower_bound = LowerBound::kCompute);

/// Per arena (memory_id - 1), the most bytes live at one moment over the
/// planned non-empty tensors whose group is not `left_out` (indexed by
/// group; empty: none left out), for the arenas `arenas` asks for
/// (indexed by memory_id - 1; empty: all); 0 for the others, which are not
/// swept (the sweep is over every tensor of an arena).
std::vector<uint64_t> PeakLiveBytesPerArena(const MethodView& method,
                                            const MethodLifetimes& lifetimes,
                                            const std::vector<bool>& left_out = {},
                                            const std::vector<bool>& arenas = {});

/// The value indices of `method`'s shared buffers (always live).
std::vector<uint32_t> SharedValues(const MethodView& method, const SharedBufferSet& shared);

}  // namespace pteshare
